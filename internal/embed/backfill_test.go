package embed_test

import (
	"context"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/newscrawl/newscrawl/internal/embed"
	"github.com/newscrawl/newscrawl/internal/embed/embedtest"
	"github.com/newscrawl/newscrawl/pkg/streamkit"
)

func TestEnqueue_Filters(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	jan, mar := time.Date(2024, 1, 10, 0, 0, 0, 0, time.UTC), time.Date(2024, 3, 10, 0, 0, 0, 0, time.UTC)
	for i := range 6 {
		host, pub := "a.example", jan
		if i%2 == 1 {
			host = "b.example"
		}
		if i >= 4 {
			pub = mar
		}
		embedtest.Insert(t, e.Pool, embedtest.Article{DocID: fmt.Sprintf("d%d", i), Title: "T", Text: "x", Host: host, Language: "en", Published: pub})
	}
	if _, err := e.Pool.Exec(context.Background(), `UPDATE cleaned SET is_article = false WHERE doc_id = 'd0'`); err != nil {
		t.Fatal(err)
	}
	feb := time.Date(2024, 2, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		b    embed.Backfill
		want string
	}{
		{name: "all articles", b: embed.Backfill{}, want: "[d1 d2 d3 d4 d5]"},
		{name: "with non-articles", b: embed.Backfill{IncludeSkipped: true}, want: "[d0 d1 d2 d3 d4 d5]"},
		{name: "host", b: embed.Backfill{Host: "b.example"}, want: "[d1 d3 d5]"},
		{name: "since", b: embed.Backfill{Since: &feb}, want: "[d4 d5]"},
		{name: "until and limit", b: embed.Backfill{Until: &feb, Limit: 2}, want: "[d1 d2]"},
		{name: "doc ids", b: embed.Backfill{DocIDs: []string{"d3", "d0", "nope"}}, want: "[d3]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e.RDB.Del(context.Background(), e.keys().Stream())
			n, err := embed.Enqueue(context.Background(), e.Pool, streamkit.NewProducer(e.RDB, e.Prefix, 0), tc.b)
			if err != nil {
				t.Fatal(err)
			}
			msgs, err := e.RDB.XRange(context.Background(), e.keys().Stream(), "-", "+").Result()
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, m := range msgs {
				if m.Values["content_hash"] == "" || m.Values["url"] == "" {
					t.Fatalf("message %v lacks content_hash or url", m.Values)
				}
				got = append(got, fmt.Sprint(m.Values["doc_id"]))
			}
			sort.Strings(got)
			if fmt.Sprint(got) != tc.want || n != len(got) {
				t.Fatalf("enqueued %v (n=%d), want %s", got, n, tc.want)
			}
		})
	}
}
