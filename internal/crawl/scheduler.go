package crawl

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/newscrawl/newscrawl/internal/pipeline"
)

// A Scheduler re-enqueues hubs (feeds, sitemaps, seed pages) whose recrawl
// time has come. Several crawler processes may run one each: rows are
// claimed with SKIP LOCKED, and the request nonce is the due time, so a
// crash between publishing and committing republishes the same key, which
// the ledger absorbs.
type Scheduler struct {
	pool   *pgxpool.Pool
	pub    pipeline.Publisher
	log    *slog.Logger
	period time.Duration
	batch  int
}

// NewScheduler returns a scheduler using the crawler's Config (SchedulePeriod,
// ScheduleBatch, Logger).
func NewScheduler(pool *pgxpool.Pool, pub pipeline.Publisher, cfg Config) *Scheduler {
	cfg.setDefaults()
	return &Scheduler{pool: pool, pub: pub, log: cfg.Logger.With("component", "crawl-scheduler"),
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
				s.log.Error("re-enqueue due hubs", "err", err)
			} else if n > 0 {
				s.log.Info("re-enqueued due hubs", "n", n)
			}
		}
	}
}

// Exec runs one pass: it publishes a crawl request for each due hub (up to
// the batch) and moves its next_crawl_at one interval on, in one
// transaction. It returns how many it published.
func (s *Scheduler) Exec(ctx context.Context) (int, error) {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return 0, fmt.Errorf("begin scheduler transaction: %w", err)
	}
	defer tx.Rollback(ctx)
	rows, err := tx.Query(ctx, `
		SELECT url, depth, max_depth, hosts, (extract(epoch FROM recrawl_interval) * 1000)::bigint,
		       is_seed, kind, next_crawl_at
		FROM urls
		WHERE is_hub AND next_crawl_at IS NOT NULL AND next_crawl_at <= now() AND recrawl_interval > interval '0'
		ORDER BY next_crawl_at
		LIMIT $1
		FOR UPDATE SKIP LOCKED`, s.batch)
	if err != nil {
		return 0, fmt.Errorf("select due hubs: %w", err)
	}
	hubs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (dueHub, error) {
		var h dueHub
		var ms int64
		err := row.Scan(&h.URL, &h.Depth, &h.MaxDepth, &h.Hosts, &ms, &h.Seed, &h.Kind, &h.DueAt)
		h.Recrawl = time.Duration(ms) * time.Millisecond
		return h, err
	})
	if err != nil {
		return 0, fmt.Errorf("read due hubs: %w", err)
	}
	urls := make([]string, 0, len(hubs))
	for _, h := range hubs {
		hint := ""
		if h.Kind == "feed" || h.Kind == "sitemap" {
			hint = h.Kind
		}
		recrawl := h.Recrawl
		nonce := "r" + strconv.FormatInt(h.DueAt.UnixMilli(), 10)
		f := RequestFields(h.URL, h.Depth, h.MaxDepth, h.Hosts, &recrawl, h.Seed, hint, nonce, "")
		if _, err := s.pub.Publish(ctx, pipeline.Crawl, f); err != nil {
			break // commit what was published
		}
		urls = append(urls, h.URL)
	}
	if len(urls) == 0 {
		return 0, nil
	}
	_, err = tx.Exec(ctx, `UPDATE urls SET next_crawl_at = now() + recrawl_interval WHERE url = ANY($1)`, urls)
	if err != nil {
		return 0, fmt.Errorf("move next_crawl_at of %d hubs: %w", len(urls), err)
	}
	if err := tx.Commit(ctx); err != nil {
		return 0, fmt.Errorf("commit scheduler pass: %w", err)
	}
	return len(urls), nil
}
