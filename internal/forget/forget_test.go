package forget_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/newscrawl/newscrawl/internal/embed"
	"github.com/newscrawl/newscrawl/internal/embed/chunk"
	"github.com/newscrawl/newscrawl/internal/embed/embedtest"
	"github.com/newscrawl/newscrawl/internal/embed/local"
	"github.com/newscrawl/newscrawl/internal/forget"
	"github.com/newscrawl/newscrawl/internal/pipeline"
	"github.com/newscrawl/newscrawl/internal/search"
	"github.com/newscrawl/newscrawl/internal/testenv"
	"github.com/newscrawl/newscrawl/pkg/streamkit"
)

var docs = []embedtest.Article{
	{DocID: "a", Host: "taken.example", Language: "en", Published: time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC),
		Title: "Mayor resigns over budget", Text: "The mayor resigned on Friday after the budget vote failed in the council."},
	{DocID: "b", Host: "taken.example", Language: "en", Published: time.Date(2026, 11, 5, 0, 0, 0, 0, time.UTC),
		Title: "River floods the old town", Text: "The river burst its banks after a week of rain and flooded the old town."},
	{DocID: "c", Host: "kept.example", Language: "en", Published: time.Date(2026, 1, 6, 0, 0, 0, 0, time.UTC),
		Title: "Library extends its hours", Text: "The central library stays open until midnight during the exam season."},
}

// tables where a document lives, with the column naming it.
var tables = map[string]string{"documents": "doc_id", "cleaned": "doc_id", "extractions": "doc_id", "chunks": "doc_id",
	"simhash_bands": "doc_id", "stage_results": "doc_id", "urls": "doc_id"}

func setup(t *testing.T) (*pgxpool.Pool, *embed.Stage) {
	t.Helper()
	pool := testenv.Postgres(t)
	st, err := embed.NewStage(pool, embed.Config{Embedder: local.New(local.Config{}), Chunk: chunk.Config{TargetTokens: 60, OverlapTokens: 10}})
	if err != nil {
		t.Fatal(err)
	}
	embedtest.Insert(t, pool, docs...)
	embedtest.Embed(t, pool, st, docs...)
	ctx := context.Background()
	for _, d := range docs {
		for _, row := range []struct {
			sql  string
			args []any
		}{
			{`INSERT INTO documents (doc_id, url, host, body, body_hash) VALUES ($1, $2, $3, 'x', 'h')`, []any{d.DocID, d.URL(), d.Host}},
			{`INSERT INTO urls (url, doc_id, host, state) VALUES ($2, $1, $3, 'fetched')`, []any{d.DocID, d.URL(), d.Host}},
			{`INSERT INTO extractions (doc_id, text_hash, provider, model, prompt_version, schema_version, data)
				VALUES ($1, 'h', 'heuristic', 'v1', 1, 1, '{}')`, []any{d.DocID}},
			{`INSERT INTO extract_answers (key, output) VALUES ('extract:' || $1 || ':h', '{}')`, []any{d.DocID}},
			{`INSERT INTO simhash_bands (band, value, doc_id) VALUES (0, 1, $1)`, []any{d.DocID}},
			{`INSERT INTO stage_results (key, stage, doc_id) VALUES ('crawl:' || $1 || ':h', 'crawl', $1)`, []any{d.DocID}},
		} {
			if _, err := pool.Exec(ctx, row.sql, row.args...); err != nil {
				t.Fatalf("%s: %v", row.sql, err)
			}
		}
	}
	return pool, st
}

func rowsOf(t *testing.T, pool *pgxpool.Pool, doc string) map[string]int {
	t.Helper()
	out := map[string]int{}
	for table, col := range tables {
		var n int
		if err := pool.QueryRow(context.Background(), `SELECT count(*) FROM `+table+` WHERE `+col+` = $1`, doc).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			out[table] = n
		}
	}
	var n int
	_ = pool.QueryRow(context.Background(), `SELECT count(*) FROM extract_answers WHERE key = 'extract:' || $1 || ':h'`, doc).Scan(&n)
	if n > 0 {
		out["extract_answers"] = n
	}
	return out
}

func TestForgetHost(t *testing.T) {
	t.Parallel()
	pool, st := setup(t)
	ctx := context.Background()
	sel := forget.Selector{Host: "taken.example"}

	dry, err := forget.Run(ctx, pool, sel, forget.Options{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if dry.Documents != 2 || dry.Cleaned != 2 || dry.Fetched != 2 || dry.Chunks == 0 {
		t.Fatalf("dry run counts %+v, want 2 documents with their rows", dry)
	}
	if got := rowsOf(t, pool, "a"); len(got) != len(tables)+1 {
		t.Fatalf("a dry run removed rows: a now has %v", got)
	}

	n, err := forget.Run(ctx, pool, sel, forget.Options{Reason: "takedown"})
	if err != nil {
		t.Fatal(err)
	}
	if n != dry {
		t.Errorf("forget removed %+v, the dry run said %+v", n, dry)
	}
	for _, doc := range []string{"a", "b"} {
		left := rowsOf(t, pool, doc)
		delete(left, "urls") // Keep: the URL stays known so it is never crawled again
		if len(left) > 0 {
			t.Errorf("forgotten %s still has rows: %v", doc, left)
		}
		if gone, _ := forget.Was(ctx, pool, doc); !gone {
			t.Errorf("%s has no tombstone", doc)
		}
	}
	if got := rowsOf(t, pool, "c"); len(got) != len(tables)+1 {
		t.Errorf("c of another host lost rows: %v", got)
	}
	s := search.New(pool, local.New(local.Config{}), search.Config{}, nil)
	rs, err := s.Search(ctx, search.Query{Text: "mayor resigns budget"})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		if r.DocID == "a" {
			t.Errorf("search still finds the forgotten document")
		}
	}
	// a message still in flight for a forgotten document is done, not a dead letter
	if _, err := st.Handle(ctx, &streamkit.Message{ID: "1-1", Stage: pipeline.Embed, Fields: map[string]string{
		pipeline.FieldDocID: "a", pipeline.FieldTextHash: "h", pipeline.FieldURL: "https://taken.example/a"}}); err != nil {
		t.Errorf("embedding a forgotten document: %v, want nothing to do", err)
	}

	again, err := forget.Run(ctx, pool, sel, forget.Options{})
	if err != nil || again.Cleaned != 0 || again.Chunks != 0 || again.Documents != 0 {
		t.Errorf("a second forget: %+v %v, want nothing more", again, err)
	}
}

func TestForgetBeforeWithDroppedFrontier(t *testing.T) {
	t.Parallel()
	pool, _ := setup(t)
	ctx := context.Background()
	n, err := forget.Run(ctx, pool, forget.Selector{Before: time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)}, forget.Options{Frontier: forget.Drop})
	if err != nil {
		t.Fatal(err)
	}
	if n.Documents != 2 || n.URLs != 2 {
		t.Fatalf("counts %+v, want a and c (published before June) with their URLs", n)
	}
	for _, doc := range []string{"a", "c"} {
		if left := rowsOf(t, pool, doc); len(left) > 0 {
			t.Errorf("%s still has rows: %v", doc, left)
		}
		if gone, _ := forget.Was(ctx, pool, doc); gone {
			t.Errorf("%s has a tombstone: with the frontier dropped it may be crawled anew", doc)
		}
	}
	if left := rowsOf(t, pool, "b"); len(left) != len(tables)+1 {
		t.Errorf("b (November) lost rows: %v", left)
	}
	if _, err := forget.Run(ctx, pool, forget.Selector{}, forget.Options{}); err == nil {
		t.Error("an empty selector must be refused")
	}
}
