package store_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/newscrawl/newscrawl/internal/store"
	"github.com/newscrawl/newscrawl/pkg/streamkit/streamkittest"
)

// Every migration's Down runs, one step at a time from the newest to none,
// on a schema holding rows, and every Up runs again after it: the way back
// that newsctl migrate --to takes is tested for each step.
func TestMigrations_EveryStepGoesDownAndUpAgain(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := streamkittest.PostgresOn(t, streamkittest.DatabaseURL(), func(context.Context, *pgxpool.Pool) error { return nil })
	if _, err := store.Migrate(ctx, pool); err != nil {
		t.Fatal(err)
	}
	latest := store.Latest()
	if v, err := store.Version(ctx, pool); err != nil || v != latest {
		t.Fatalf("version %d (%v), want %d", v, err, latest)
	}
	if _, err := pool.Exec(ctx, `INSERT INTO urls (url, doc_id, host, state, depth) VALUES ('https://example.com/a', 'd1', 'example.com', 'queued', 0);
		INSERT INTO crawl_hosts (host, urls) VALUES ('example.com', 1)`); err != nil {
		t.Fatal(err)
	}
	for v := latest - 1; v >= 0; v-- {
		done, err := store.MigrateTo(ctx, pool, v)
		if err != nil {
			t.Fatalf("down to %d: %v", v, err)
		}
		if got, _ := store.Version(ctx, pool); got != v || len(done) != 1 {
			t.Fatalf("down to %d: at %d after %v", v, got, done)
		}
	}
	done, err := store.MigrateTo(ctx, pool, latest)
	if err != nil || int64(len(done)) != latest {
		t.Fatalf("up again: %v (%d steps)", err, len(done))
	}
	steps, err := store.Steps(ctx, pool)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range steps {
		if !st.Applied || st.Irreversible != "" {
			t.Fatalf("step %+v: want applied and reversible (or a test of the refusal)", st)
		}
	}
}

// The big columns are compressed with lz4 where the server has it (the
// machine's and compose's PostgreSQL do), and the way back restores pglz.
func TestMigrations_BigColumnsUseLz4(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := streamkittest.PostgresOn(t, streamkittest.DatabaseURL(), func(context.Context, *pgxpool.Pool) error { return nil })
	if _, err := store.Migrate(ctx, pool); err != nil {
		t.Fatal(err)
	}
	methods := func() string {
		var got string
		err := pool.QueryRow(ctx, `SELECT string_agg(attrelid::regclass || '.' || attname || '=' || coalesce(nullif(attcompression::text, ''), '-'), ' ' ORDER BY attrelid::regclass::text, attname)
			FROM pg_attribute WHERE (attrelid, attname) IN (('documents'::regclass, 'body'), ('cleaned'::regclass, 'text'), ('chunks'::regclass, 'tsv'))`).Scan(&got)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	if got, want := methods(), "chunks.tsv=l cleaned.text=l documents.body=l"; got != want {
		t.Fatalf("compression %q, want %q", got, want)
	}
	if _, err := store.MigrateTo(ctx, pool, 21); err != nil {
		t.Fatal(err)
	}
	if got, want := methods(), "chunks.tsv=- cleaned.text=l documents.body=l"; got != want {
		t.Fatalf("after going down to 21: compression %q, want %q", got, want)
	}
}
