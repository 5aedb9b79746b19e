package store

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// FirstAnalyze is the rows a Growth counts before its first ANALYZE.
const FirstAnalyze = 1000

// A Growth analyzes the tables a process fills, first at FirstAnalyze rows
// added and then each time its count doubles. A fresh database's
// statistics call every table empty, and the plans PostgreSQL caches for
// prepared statements keep the scans that suit an empty table until
// something analyzes it: one lookup per page then read a whole table
// (at 20,000 archived pages, 200 million rows of urls read). Autovacuum
// analyzes too, but only after its nap, and never where it is turned off;
// a bulk load analyzes as it grows, as PostgreSQL's docs advise.
type Growth struct {
	pool    *pgxpool.Pool
	tables  []string
	log     *slog.Logger
	added   atomic.Int64
	next    atomic.Int64
	running atomic.Bool
	wg      sync.WaitGroup
}

// NewGrowth analyzes tables (trusted names) as rows are added to them.
func NewGrowth(pool *pgxpool.Pool, log *slog.Logger, tables ...string) *Growth {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	g := &Growth{pool: pool, tables: tables, log: log}
	g.next.Store(FirstAnalyze)
	return g
}

// Added counts n rows added. When the count reaches the next doubling it
// analyzes the tables in the background, so no caller waits for it; a
// failure costs only speed and is logged.
func (g *Growth) Added(n int) {
	total := g.added.Add(int64(n))
	next := g.next.Load()
	if total < next || !g.next.CompareAndSwap(next, 2*total) || !g.running.CompareAndSwap(false, true) {
		return
	}
	g.wg.Go(func() {
		defer g.running.Store(false)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if _, err := g.pool.Exec(ctx, "ANALYZE "+strings.Join(g.tables, ", ")); err != nil {
			g.log.Warn("could not analyze the tables this process fills; lookups may scan them until autovacuum does",
				"tables", g.tables, "err", err)
		}
	})
}

// Wait returns once no ANALYZE of g's is running: before the pool closes.
func (g *Growth) Wait() { g.wg.Wait() }
