// Package embedtest holds helpers shared by the embed, search and web tests
// and the serve benchmark: writing cleaned articles and embedding them
// through the stage.
package embedtest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/newscrawl/newscrawl/internal/embed"
	"github.com/newscrawl/newscrawl/internal/pipeline"
	"github.com/newscrawl/newscrawl/pkg/streamkit"
)

// An Article is a cleaned row to insert.
type Article struct {
	DocID     string
	Title     string
	Text      string
	Host      string
	Language  string
	Published time.Time // zero: NULL
}

// BodyHash is the body hash the helper stores for a (as if its page were
// its title and text); the stage stamps a's chunks with it.
func (a Article) BodyHash() string { return pipeline.BodyHash([]byte(a.Title + "\x00" + a.Text)) }

// TextHash is a's text hash, as the cleaner computes it; the embed
// messages of the helper carry it, as the extractor's do.
func (a Article) TextHash() string { return pipeline.TextHash(a.Text) }

// URL is the article's URL.
func (a Article) URL() string { return "https://" + a.Host + "/" + a.DocID }

// Insert upserts articles into cleaned.
func Insert(t testing.TB, pool *pgxpool.Pool, articles ...Article) {
	t.Helper()
	if err := InsertAll(context.Background(), pool, articles...); err != nil {
		t.Fatal(err)
	}
}

// Embed runs the stage's handler for each article and commits its result,
// as streamkit would, failing the test on any error.
func Embed(t testing.TB, pool *pgxpool.Pool, st *embed.Stage, articles ...Article) {
	t.Helper()
	if err := EmbedAll(context.Background(), pool, st, articles...); err != nil {
		t.Fatal(err)
	}
}

// InsertAll is Insert for a program (a benchmark's corpus).
func InsertAll(ctx context.Context, pool *pgxpool.Pool, articles ...Article) error {
	for _, a := range articles {
		var pub *time.Time
		if !a.Published.IsZero() {
			pub = &a.Published
		}
		_, err := pool.Exec(ctx, `
			INSERT INTO cleaned (doc_id, body_hash, text_hash, url, host, title, text, language, published_at, is_article)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, true)
			ON CONFLICT (doc_id) DO UPDATE SET body_hash = EXCLUDED.body_hash, text_hash = EXCLUDED.text_hash,
				title = EXCLUDED.title, text = EXCLUDED.text, host = EXCLUDED.host, language = EXCLUDED.language,
				published_at = EXCLUDED.published_at`,
			a.DocID, a.BodyHash(), a.TextHash(), a.URL(), a.Host, a.Title, a.Text, a.Language, pub)
		if err != nil {
			return fmt.Errorf("insert cleaned %s: %w", a.DocID, err)
		}
	}
	return nil
}

// EmbedAll is Embed for a program.
func EmbedAll(ctx context.Context, pool *pgxpool.Pool, st *embed.Stage, articles ...Article) error {
	for _, a := range articles {
		res, err := st.Handle(ctx, &streamkit.Message{ID: "0-1", Stage: pipeline.Embed, Fields: map[string]string{
			pipeline.FieldDocID: a.DocID, pipeline.FieldTextHash: a.TextHash(), pipeline.FieldURL: a.URL()}})
		if err != nil {
			return fmt.Errorf("embed %s: %w", a.DocID, err)
		}
		if res.Commit == nil {
			continue
		}
		err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error { return res.Commit(ctx, tx) })
		if err != nil {
			return fmt.Errorf("commit %s: %w", a.DocID, err)
		}
	}
	return nil
}
