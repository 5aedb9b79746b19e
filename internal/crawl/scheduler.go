package crawl

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// A Scheduler owes a fetch to every hub (feed, sitemap, seed page) whose
// recrawl time has come: it gives the hub's frontier row a pending nonce,
// and the Feeder publishes it through the window like any other request.
// Several crawler processes may run one each: rows are claimed with SKIP
// LOCKED, and owing and moving the recrawl time on are one statement. The
// nonce is the due time, so a hub owed twice for one due time is one
// request to the ledger.
type Scheduler struct {
	pool   *pgxpool.Pool
	log    *slog.Logger
	period time.Duration
	batch  int
}

// NewScheduler returns a scheduler using the crawler's Config (SchedulePeriod,
// ScheduleBatch, Logger).
func NewScheduler(pool *pgxpool.Pool, cfg Config) *Scheduler {
	cfg.setDefaults()
	return &Scheduler{pool: pool, log: cfg.Logger.With("component", "crawl-scheduler"),
		period: cfg.SchedulePeriod, batch: cfg.ScheduleBatch}
}

// Run calls Exec every period until ctx ends; errors are logged.
func (s *Scheduler) Run(ctx context.Context) {
	t := time.NewTicker(s.period)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if n, err := s.Exec(ctx); err != nil {
				s.log.Error("owe due hubs a fetch", "err", err)
			} else if n > 0 {
				s.log.Info("due hubs owed a fetch", "n", n)
			}
		}
	}
}

// Exec runs one pass: every due hub not owed a fetch already (up to the
// batch) is owed one, with its hint from what it turned out to be, and its
// next_crawl_at moves one interval on. A hub whose request was published
// longer ago than onStreamFor (dead-lettered, say) is owed a new one. It
// returns how many it owed.
func (s *Scheduler) Exec(ctx context.Context) (int, error) {
	tag, err := s.pool.Exec(ctx, `
		UPDATE urls SET pending_nonce = 'r' || (extract(epoch FROM next_crawl_at) * 1000)::bigint, published_at = NULL,
			hint = CASE WHEN kind IN ('feed', 'sitemap') THEN kind ELSE hint END,
			next_crawl_at = now() + recrawl_interval
		WHERE url IN (
			SELECT url FROM urls
			WHERE is_hub AND next_crawl_at IS NOT NULL AND next_crawl_at <= now() AND recrawl_interval > interval '0'
			  AND (pending_nonce IS NULL OR published_at < now() - $2::interval)
			ORDER BY next_crawl_at
			LIMIT $1
			FOR UPDATE SKIP LOCKED)`, s.batch, onStreamFor.String())
	if err != nil {
		return 0, fmt.Errorf("owe due hubs a fetch: %w", err)
	}
	return int(tag.RowsAffected()), nil
}
