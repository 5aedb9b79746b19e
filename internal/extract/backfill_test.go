package extract_test

import (
	"context"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/newscrawl/newscrawl/internal/extract"
	"github.com/newscrawl/newscrawl/internal/extract/heuristic"
	"github.com/newscrawl/newscrawl/internal/pipeline"
	"github.com/newscrawl/newscrawl/pkg/streamkit"
)

func TestEnqueue_SelectsDocuments(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	hashes := map[string]string{}
	for _, d := range []string{"a", "b", "c"} {
		hashes[d] = e.insertCleaned(article{docID: d})
	}
	e.insertCleaned(article{docID: "dup", duplicateOf: "a"})
	// "a" already has a heuristic extraction of its current text.
	e.publish("a", hashes["a"])
	stop := e.startStoppable(heuristic.New(heuristic.Config{}), consumerOpts{})
	e.eventually("heuristic row", 10*time.Second, func() bool { return e.ledger() == 1 })
	stop()

	cases := []struct {
		name string
		b    extract.Backfill
		want string
	}{
		{"all articles", extract.Backfill{}, "a,b,c"},
		{"with skipped", extract.Backfill{IncludeSkipped: true}, "a,b,c,dup"},
		{"listed", extract.Backfill{DocIDs: []string{"b", "dup"}}, "b"},
		{"limit", extract.Backfill{Limit: 2}, "a,b"},
		{"missing a heuristic row", extract.Backfill{MissingProvider: "heuristic"}, "b,c"},
		{"missing a model row", extract.Backfill{MissingProvider: "openai", MissingModel: "m"}, "a,b,c"},
		{"cleaned in the future", extract.Backfill{Since: time.Now().Add(time.Hour)}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			stream := e.keys(pipeline.Extract).Stream()
			if err := e.RDB.Del(ctx, stream).Err(); err != nil {
				t.Fatal(err)
			}
			n, err := extract.Enqueue(ctx, e.Pool, streamkit.NewProducer(e.RDB, e.Prefix, 0), tc.b)
			if err != nil {
				t.Fatal(err)
			}
			msgs, err := e.RDB.XRange(ctx, stream, "-", "+").Result()
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, m := range msgs {
				id := m.Values["doc_id"].(string)
				got = append(got, id)
				if id != "dup" && (m.Values["text_hash"] != hashes[id] || m.Values["content_hash"] != nil) {
					t.Errorf("%s enqueued as %v, want the cleaned text hash as text_hash", id, m.Values)
				}
			}
			sort.Strings(got)
			if strings.Join(got, ",") != tc.want || n != len(got) {
				t.Fatalf("enqueued %d: %q, want %q", n, got, tc.want)
			}
		})
	}
}
