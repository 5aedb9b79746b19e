package store_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/newscrawl/newscrawl/internal/store"
	"github.com/newscrawl/newscrawl/pkg/streamkit/streamkittest"
)

// A Growth analyzes its tables at FirstAnalyze rows added and then at each
// doubling, never between.
func TestGrowth_AnalyzesAtEachDoubling(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := streamkittest.PostgresOn(t, streamkittest.DatabaseURL(), func(ctx context.Context, p *pgxpool.Pool) error {
		_, err := p.Exec(ctx, `CREATE TABLE grown (n int)`)
		return err
	})
	g := store.NewGrowth(pool, nil, "grown")
	add := func(n int) {
		t.Helper()
		if _, err := pool.Exec(ctx, `INSERT INTO grown SELECT generate_series(1, $1)`, n); err != nil {
			t.Fatal(err)
		}
		g.Added(n)
		g.Wait()
	}
	counted := func() float64 {
		t.Helper()
		var n float64
		if err := pool.QueryRow(ctx, `SELECT reltuples FROM pg_class WHERE oid = 'grown'::regclass`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	add(store.FirstAnalyze - 1)
	if n := counted(); n >= 0 {
		t.Fatalf("analyzed before %d rows: statistics count %v", store.FirstAnalyze, n)
	}
	add(1)
	if n := counted(); n != store.FirstAnalyze {
		t.Fatalf("at %d rows the statistics count %v", store.FirstAnalyze, n)
	}
	add(store.FirstAnalyze - 1) // short of the doubling: the statistics stand
	if n := counted(); n != store.FirstAnalyze {
		t.Fatalf("analyzed again before the doubling: %v", n)
	}
	add(1)
	if n := counted(); n != 2*store.FirstAnalyze {
		t.Fatalf("at the doubling the statistics count %v, want %d", n, 2*store.FirstAnalyze)
	}
}
