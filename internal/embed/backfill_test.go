package embed_test

import (
	"context"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/newscrawl/newscrawl/internal/embed"
	"github.com/newscrawl/newscrawl/internal/embed/embedtest"
	"github.com/newscrawl/newscrawl/internal/embed/local"
	"github.com/newscrawl/newscrawl/internal/pipeline"
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
				a := embedtest.Article{Text: "x"}
				if m.Values["text_hash"] != a.TextHash() || m.Values["content_hash"] != nil || m.Values["url"] == "" {
					t.Fatalf("message %v: want the cleaned text hash as text_hash, and a url", m.Values)
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

// newsctl reembed sends what the extractor sends on the live path, the
// text hash, so its key is the live one and a document the live path
// embedded is answered from the ledger. Before, it sent the body hash
// (then called content_hash): its keys were embed:doc:BODY_HASH:model,
// never the live path's. A document whose only key is such an old
// reembed's gets a new key from a reembed after the upgrade; the stage
// then finds the chunks of its current body stored and embeds nothing.
func TestEnqueue_KeysAreTheLivePaths(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	emb := &countingEmbedder{Embedder: local.New(local.Config{})}
	version := emb.Identity().Version()
	live := embedtest.Article{DocID: "live", Title: "Live", Text: longText("floods", 8), Host: "news.example"}
	old := embedtest.Article{DocID: "old", Title: "Old", Text: longText("storms", 8), Host: "news.example"}
	embedtest.Insert(t, e.Pool, live, old)
	if live.BodyHash() == live.TextHash() {
		t.Fatal("the fixture's body and text hashes are equal: the test could not tell them apart")
	}
	e.run(newStage(t, e.Pool, emb), version)

	// live went through the extractor; old was embedded by a reembed from
	// before the upgrade, which sent its body hash as content_hash.
	e.publishFields(map[string]any{"doc_id": live.DocID, "text_hash": live.TextHash(), "url": live.URL()})
	e.settledAfter(e.publishFields(map[string]any{"doc_id": old.DocID, "content_hash": old.BodyHash(), "url": old.URL()}))
	before := e.ledgerKeys()
	embedded := emb.embedded()
	if len(before) != 2 || embedded == 0 {
		t.Fatalf("before the reembed: ledger %v, %d inputs embedded", before, embedded)
	}

	stream := e.keys().Stream()
	n, err := embed.Enqueue(context.Background(), e.Pool, streamkit.NewProducer(e.RDB, e.Prefix, 0), embed.Backfill{})
	if err != nil || n != 2 {
		t.Fatalf("enqueued %d (%v), want 2", n, err)
	}
	msgs, err := e.RDB.XRevRangeN(context.Background(), stream, "+", "-", 2).Result()
	if err != nil || len(msgs) != 2 {
		t.Fatalf("read the reembed's messages: %v %v", msgs, err)
	}
	for _, m := range msgs {
		fields := map[string]string{}
		for k, v := range m.Values {
			fields[k] = fmt.Sprint(v)
		}
		key, err := embed.Key(pipeline.Embed, version, &streamkit.Message{ID: m.ID, Fields: fields})
		a := map[string]embedtest.Article{"live": live, "old": old}[fields["doc_id"]]
		if want := pipeline.LedgerKey(pipeline.Embed, a.DocID, a.TextHash(), version); err != nil || key != want {
			t.Errorf("reembed's key for %s = %q (%v), want the live path's %s", a.DocID, key, err, want)
		}
	}
	e.settledAfter(msgs[0].ID)

	after := e.ledgerKeys()
	wantAfter := []string{
		pipeline.LedgerKey(pipeline.Embed, live.DocID, live.TextHash(), version),
		pipeline.LedgerKey(pipeline.Embed, old.DocID, old.BodyHash(), version),
		pipeline.LedgerKey(pipeline.Embed, old.DocID, old.TextHash(), version),
	}
	sort.Strings(wantAfter)
	if fmt.Sprint(after) != fmt.Sprint(wantAfter) {
		t.Errorf("ledger after the reembed %v, want %v (live's key unchanged, old's live key added)", after, wantAfter)
	}
	if emb.embedded() != embedded {
		t.Errorf("%d inputs embedded by the reembed, want none", emb.embedded()-embedded)
	}
	for _, a := range []embedtest.Article{live, old} {
		if got := chunkRows(t, e.Pool, a.DocID, emb.Identity()); len(got) != 1 || got[a.BodyHash()] == 0 {
			t.Errorf("%s's chunks %v, want those of its body %s", a.DocID, got, a.BodyHash())
		}
	}
}
