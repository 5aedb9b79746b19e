package clean_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newscrawl/newscrawl/internal/clean"
	"github.com/newscrawl/newscrawl/internal/pipeline"
	"github.com/newscrawl/newscrawl/internal/testenv"
	"github.com/newscrawl/newscrawl/pkg/streamkit"
)

// shell is a script-built page: no story until script runs.
const shell = `<!DOCTYPE html><html><head><title>News</title></head><body><noscript>You need to enable JavaScript to run this app.</noscript>
<div id="root"></div><script id="__NEXT_DATA__" type="application/json">{"props":{}}</script><script src="/app.js"></script></body></html>`

// Under RENDER=auto the cleaner sends the renderer a script shell, not a
// page whose story it already has (unless its host is listed), and never a
// DOM the renderer sent back; the rendered DOM is cleaned into the row.
func TestStage_RoutesScriptShellsToTheRenderer(t *testing.T) {
	t.Parallel()
	f := &fixture{testenv.New(t)}
	f.Run(streamkit.Config{Stage: pipeline.Clean, Group: pipeline.CleanerGroup, Version: clean.Version, Key: clean.Key,
		Concurrency: 2, Visibility: 5 * time.Second, Block: 100 * time.Millisecond, JanitorInterval: -1},
		clean.NewStage(f.Pool, clean.Config{Render: clean.RenderAuto, RenderHosts: []string{"listed.example"}}, nil))
	ctx := context.Background()
	insert := func(docID, url, host, body string) string {
		t.Helper()
		hash := pipeline.BodyHash([]byte(body))
		if _, err := f.Pool.Exec(ctx, `INSERT INTO documents (doc_id, url, host, status, body, body_hash, fetched_at, first_seen_at)
			VALUES ($1, $2, $3, 200, $4, $5, now(), clock_timestamp())`, docID, url, host, []byte(body), hash); err != nil {
			t.Fatal(err)
		}
		return hash
	}
	insert("shell", "https://spa.example/story/1", "spa.example", shell)
	f.publish("shell", pipeline.BodyHash([]byte(shell)), "https://spa.example/story/1")
	insert("story", "https://static.example/story/2", "static.example", articlePage("Council passes budget", story))
	f.publish("story", pipeline.BodyHash([]byte(articlePage("Council passes budget", story))), "https://static.example/story/2")
	insert("listed", "https://listed.example/story/3", "listed.example", articlePage("Bridge reopens", story[1:]))
	f.publish("listed", pipeline.BodyHash([]byte(articlePage("Bridge reopens", story[1:]))), "https://listed.example/story/3")

	routed := func() []string {
		msgs, _ := f.RDB.XRange(ctx, streamkit.KeysFor(f.Prefix, pipeline.Render).Stream(), "-", "+").Result()
		var docs []string
		for _, m := range msgs {
			docs = append(docs, m.Values[pipeline.FieldDocID].(string))
		}
		slices.Sort(docs)
		return docs
	}
	// The ledger row is committed before the stage's messages go out:
	// wait for both, so the messages are there to be judged.
	f.waitFor("three pages cleaned and their messages sent", func(ctx context.Context) bool {
		return f.ledgerRows(ctx) == 3 && len(routed()) >= 2 && len(f.extractDocs()) >= 2
	})
	if got := routed(); !slices.Equal(got, []string{"listed", "shell"}) {
		t.Fatalf("sent to the renderer: %v, want the shell and the listed host's page", got)
	}
	if got := f.extractDocs(); !slices.Contains(got, "story") || !slices.Contains(got, "listed") || slices.Contains(got, "shell") {
		t.Fatalf("sent to extraction: %v, want the two stories now (the shell waits for its render)", got)
	}

	// The renderer's DOM of the shell comes back: cleaned into the row,
	// forwarded, and not sent to the renderer again.
	dom := articlePage("Harbour barrier report", story)
	domHash := pipeline.BodyHash([]byte(dom))
	if _, err := f.Pool.Exec(ctx, `INSERT INTO rendered (doc_id, body_hash, rendered_hash, body) VALUES ('shell', $1, $2, $3)`,
		pipeline.BodyHash([]byte(shell)), domHash, []byte(dom)); err != nil {
		t.Fatal(err)
	}
	if err := f.RDB.XAdd(ctx, &redis.XAddArgs{Stream: streamkit.KeysFor(f.Prefix, pipeline.Clean).Stream(), Values: map[string]any{
		pipeline.FieldDocID: "shell", pipeline.FieldBodyHash: domHash, pipeline.FieldURL: "https://spa.example/story/1", pipeline.FieldRendered: "1"}}).Err(); err != nil {
		t.Fatal(err)
	}
	f.waitFor("the rendered shell cleaned and forwarded", func(ctx context.Context) bool {
		return f.ledgerRows(ctx) == 4 && slices.Contains(f.extractDocs(), "shell")
	})
	var title string
	var isArticle bool
	if err := f.Pool.QueryRow(ctx, `SELECT title, is_article FROM cleaned WHERE doc_id = 'shell'`).Scan(&title, &isArticle); err != nil {
		t.Fatal(err)
	}
	if title != "Harbour barrier report" || !isArticle {
		t.Errorf("the rendered shell cleaned as %q (article %v)", title, isArticle)
	}
	if got := routed(); len(got) != 2 {
		t.Errorf("sent to the renderer: %v — the rendered DOM went back again", got)
	}
	if got := f.extractDocs(); !slices.Contains(got, "shell") {
		t.Errorf("sent to extraction: %v, want the rendered shell", got)
	}
}

func TestParseRenderMode(t *testing.T) {
	for in, want := range map[string]string{"": clean.RenderOff, "off": clean.RenderOff, "AUTO": clean.RenderAuto, " always ": clean.RenderAlways} {
		if got, err := clean.ParseRenderMode(in); err != nil || got != want {
			t.Errorf("ParseRenderMode(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := clean.ParseRenderMode("sometimes"); err == nil {
		t.Error("RENDER=sometimes was accepted")
	}
}
