package crawl

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"

	"github.com/newscrawl/newscrawl/internal/crawl/urlnorm"
	"github.com/newscrawl/newscrawl/internal/pipeline"
	"github.com/newscrawl/newscrawl/pkg/streamkit"
)

// The frontier (the urls table) is the crawl's buffer; the crawl stream is
// a window onto it. A URL owed a fetch has a pending nonce; its request is
// published while the stream has room (window) and waits in the table
// otherwise. Discovered links go out with their page's commit when there is
// room, the rest and every seed by the Feeder.

// window is the room left on the crawl stream, shared by a process's
// handlers and its feeder. Room is the mark minus the stage's load: the
// stream's pressure (waiting + pending) and the requests waiting for a
// retry, read again at most every refresh; between reads, grants only
// shrink it, so Redis holds at most the mark plus what other processes
// grant in one refresh. Requests holding a host slot further ahead (the
// deferred set) are not load: a slow host's requests park there, bounded
// by CRAWL_MAX_AHEAD, while other hosts' requests keep coming.
type window struct {
	admin   *streamkit.Admin
	mark    int64
	refresh time.Duration

	mu     sync.Mutex
	room   int64
	readAt time.Time
}

func newWindow(rdb redis.UniversalClient, cfg Config) *window {
	return &window{admin: &streamkit.Admin{RDB: rdb, Prefix: cfg.Prefix, Partitions: cfg.Partitions},
		mark: cfg.Window, refresh: 100 * time.Millisecond}
}

// load is the crawl stage's work in Redis that counts against the window,
// over all its partitions.
func (w *window) load(ctx context.Context) (int64, error) {
	load, err := w.admin.Pressure(ctx, pipeline.Crawl)
	if err != nil {
		return 0, err
	}
	keys, err := w.admin.Layout(ctx, pipeline.Crawl)
	if err != nil {
		return 0, err
	}
	for _, k := range keys {
		retry, err := w.admin.RDB.ZCard(ctx, k.Retry()).Result()
		if err != nil {
			return 0, fmt.Errorf("count the crawl stage's retries: %w", err)
		}
		load += retry
	}
	return load, nil
}

// grant takes up to n requests' room and returns how many it took; 0 when
// the stream is full or its pressure cannot be read (Redis away): the
// requests then wait in the frontier.
func (w *window) grant(ctx context.Context, n int) int {
	if n <= 0 {
		return 0
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if time.Since(w.readAt) >= w.refresh {
		load, err := w.load(ctx)
		if err != nil {
			return 0
		}
		w.room, w.readAt = max(w.mark-load, 0), time.Now()
	}
	k := min(int64(n), w.room)
	w.room -= k
	return int(k)
}

// A Feeder publishes owed requests from the frontier onto the crawl stream
// while it has room: seeds, links that found no room when discovered, and
// requests a crash left unpublished. Lower depth first, then discovery
// order. Several crawler processes may run one each: rows are taken with
// SKIP LOCKED, and a request published twice (a crash between publish and
// commit) has one idempotency key, which the ledger absorbs.
type Feeder struct {
	pool   *pgxpool.Pool
	rdb    redis.UniversalClient
	prefix string
	parts  streamkit.Partitions
	win    *window
	log    *slog.Logger
	period time.Duration
	batch  int
	wake   chan struct{}
}

// NewFeeder returns the feeder of the crawler c (its window is c's).
func NewFeeder(pool *pgxpool.Pool, rdb redis.UniversalClient, c *Crawler) *Feeder {
	return &Feeder{pool: pool, rdb: rdb, prefix: c.cfg.Prefix, parts: c.cfg.Partitions, win: c.win,
		log: c.cfg.Logger.With("component", "crawl-feeder"), period: c.cfg.FeedInterval, batch: 500,
		wake: c.feed}
}

// Run feeds every period, or at once when the crawler left links behind,
// until ctx ends. A failure is logged once, and again when feeding resumes
// (an outage is not a line every period).
func (f *Feeder) Run(ctx context.Context) {
	t := time.NewTicker(f.period)
	defer t.Stop()
	failing := false
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-f.wake:
		}
		for {
			n, err := f.Exec(ctx)
			if err != nil {
				if !failing && ctx.Err() == nil {
					f.log.Warn("feed the crawl stream from the frontier; retrying every period", "err", err)
				}
				failing = true
				break
			}
			if failing {
				f.log.Info("feeding the crawl stream from the frontier again")
				failing = false
			}
			if n < f.batch {
				break
			}
		}
	}
}

// Exec runs one pass: it publishes up to a batch of owed, unpublished
// requests the window has room for and marks them published, in one
// transaction. It returns how many it published.
func (f *Feeder) Exec(ctx context.Context) (int, error) {
	n := f.win.grant(ctx, f.batch)
	if n == 0 {
		return 0, nil
	}
	tx, err := f.pool.Begin(ctx)
	if err != nil {
		return 0, fmt.Errorf("begin feeder transaction: %w", err)
	}
	defer tx.Rollback(ctx)
	// A stalled feeder must not hold its rows: the server ends the transaction.
	if _, err := tx.Exec(ctx, `SET LOCAL idle_in_transaction_session_timeout = '5s'`); err != nil {
		return 0, fmt.Errorf("limit feeder transaction: %w", err)
	}
	rows, err := tx.Query(ctx, `SELECT `+owedColumns+` FROM urls
		WHERE pending_nonce IS NOT NULL AND published_at IS NULL
		ORDER BY depth, first_seen_at
		LIMIT $1
		FOR UPDATE SKIP LOCKED`, n)
	if err != nil {
		return 0, fmt.Errorf("select owed requests: %w", err)
	}
	reqs, err := pgx.CollectRows(rows, owedRequest)
	if err != nil {
		return 0, fmt.Errorf("read owed requests: %w", err)
	}
	if len(reqs) == 0 {
		return 0, nil
	}
	pipe := f.rdb.Pipeline()
	for _, r := range reqs {
		pipe.XAdd(ctx, &redis.XAddArgs{Stream: f.parts.Route(f.prefix, pipeline.Crawl, r).Stream(), Values: r})
	}
	cmds, _ := pipe.Exec(ctx)
	urls := make([]string, 0, len(reqs))
	for i, c := range cmds {
		if c.Err() == nil {
			urls = append(urls, reqs[i][FieldURL])
		}
	}
	if len(urls) == 0 {
		return 0, fmt.Errorf("publish %d owed requests: %w", len(reqs), cmds[0].Err())
	}
	if _, err := tx.Exec(ctx, `UPDATE urls SET published_at = now() WHERE url = ANY($1)`, urls); err != nil {
		return 0, fmt.Errorf("mark %d requests published: %w", len(urls), err)
	}
	if err := tx.Commit(ctx); err != nil {
		return 0, fmt.Errorf("commit feeder pass: %w", err)
	}
	return len(urls), nil
}

// owedColumns are the urls columns owedRequest reads.
const owedColumns = `url, depth, max_depth, hosts, (extract(epoch FROM recrawl_interval) * 1000)::bigint,
	is_seed, hint, hubs, pending_nonce, discovered_from`

// owedRequest is the crawl request a frontier row is owed. A negative
// max_depth (a seed given none) leaves the crawler's default.
func owedRequest(row pgx.CollectableRow) (map[string]string, error) {
	var u, hint, nonce, from string
	var depth, maxDepth, hubs int
	var hosts []string
	var recrawlMS *int64
	var seed bool
	if err := row.Scan(&u, &depth, &maxDepth, &hosts, &recrawlMS, &seed, &hint, &hubs, &nonce, &from); err != nil {
		return nil, err
	}
	var recrawl *time.Duration
	if recrawlMS != nil {
		d := time.Duration(*recrawlMS) * time.Millisecond
		recrawl = &d
	}
	fields := RequestFields(u, depth, 0, hosts, recrawl, seed, hint, nonce, from)
	if maxDepth >= 0 {
		fields[FieldMaxDepth] = strconv.Itoa(maxDepth)
	}
	if hubs > 0 {
		fields[FieldHubs] = strconv.Itoa(hubs)
	}
	return fields, nil
}

// PublishedOwed returns the requests the frontier says are on the crawl
// stream but not handled yet (newsctl reconcile republishes those the
// stream lost; the feeder owns the unpublished ones).
func PublishedOwed(ctx context.Context, pool *pgxpool.Pool) ([]map[string]string, error) {
	rows, err := pool.Query(ctx, `SELECT `+owedColumns+` FROM urls WHERE pending_nonce IS NOT NULL AND published_at IS NOT NULL`)
	if err != nil {
		return nil, fmt.Errorf("read the frontier: %w", err)
	}
	reqs, err := pgx.CollectRows(rows, owedRequest)
	if err != nil {
		return nil, fmt.Errorf("read the frontier: %w", err)
	}
	return reqs, nil
}

// A Seed is one URL to crawl from, as newsctl seed gives it.
type Seed struct {
	URL      string // normalized
	MaxDepth int    // negative: the crawler's default
	Hosts    []string
	Recrawl  *time.Duration // nil: the crawler's default
}

// SeedReport says what seeding found: URLs new to the frontier, URLs known
// and fetched before (owed a fetch again), and URLs already owed one.
type SeedReport struct{ New, Again, Owed int }

// SeedFrontier records seeds in the frontier, each owed a fetch with a new
// nonce unless it is owed one already; the feeder publishes them. A seed
// is deduplicated against the frontier like a discovered link, so a link
// to it found meanwhile is not queued a second time.
func SeedFrontier(ctx context.Context, pool *pgxpool.Pool, seeds []Seed) (SeedReport, error) {
	var rep SeedReport
	seen := make(map[string]bool, len(seeds))
	unique := seeds[:0:0]
	for _, s := range seeds { // one statement may not update a row twice
		if n := NormalizedURL(s.URL); !seen[n] {
			seen[n] = true
			unique = append(unique, s)
		} else {
			rep.Owed++
		}
	}
	seeds = unique
	for start := 0; start < len(seeds); start += 1000 {
		part := seeds[start:min(start+1000, len(seeds))]
		urls := make([]string, len(part))
		docs := make([]string, len(part))
		hosts := make([]string, len(part))
		maxDepths := make([]int32, len(part))
		allowed := make([]string, len(part))
		recrawls := make([]*int64, len(part))
		nonces := make([]string, len(part))
		for i, s := range part {
			u, err := urlnorm.Parse(s.URL)
			if err != nil {
				return rep, fmt.Errorf("seed %s: %w", s.URL, err)
			}
			urls[i], hosts[i], maxDepths[i], nonces[i] = u.String(), u.Host, int32(max(s.MaxDepth, -1)), NewNonce()
			docs[i], allowed[i] = pipeline.DocID(urls[i]), strings.Join(s.Hosts, ",")
			if s.Recrawl != nil {
				ms := s.Recrawl.Milliseconds()
				recrawls[i] = &ms
			}
		}
		// xmax = 0: the row was inserted, not updated. An update happens
		// only for a URL owed nothing; one owed a fetch is left as it is.
		rows, err := pool.Query(ctx, `
			INSERT INTO urls AS cur (url, doc_id, host, state, depth, max_depth, hosts, is_seed, is_hub,
			                         recrawl_interval, pending_nonce)
			SELECT u, d, h, 'queued', 0, md, CASE WHEN a = '' THEN '{}'::text[] ELSE string_to_array(a, ',') END,
			       true, true, rc * interval '1 millisecond', n
			FROM unnest($1::text[], $2::text[], $3::text[], $4::int[], $5::text[], $6::bigint[], $7::text[])
			     AS t(u, d, h, md, a, rc, n)
			ORDER BY u
			ON CONFLICT (url) DO UPDATE SET
				pending_nonce = EXCLUDED.pending_nonce, published_at = NULL, is_seed = true,
				max_depth = GREATEST(cur.max_depth, EXCLUDED.max_depth), hosts = EXCLUDED.hosts,
				recrawl_interval = COALESCE(EXCLUDED.recrawl_interval, cur.recrawl_interval)
			WHERE cur.pending_nonce IS NULL
			RETURNING xmax = 0`, urls, docs, hosts, maxDepths, allowed, recrawls, nonces)
		if err != nil {
			return rep, fmt.Errorf("record %d seeds in the frontier: %w", len(part), err)
		}
		inserted, err := pgx.CollectRows(rows, pgx.RowTo[bool])
		if err != nil {
			return rep, fmt.Errorf("record %d seeds in the frontier: %w", len(part), err)
		}
		for _, ins := range inserted {
			if ins {
				rep.New++
			} else {
				rep.Again++
			}
		}
		rep.Owed += len(part) - len(inserted)
	}
	return rep, nil
}

// FrontierOwed counts the requests owed that are not on the crawl stream
// yet (newsctl wait: the pipeline is not idle while the frontier holds any).
func FrontierOwed(ctx context.Context, pool *pgxpool.Pool) (int64, error) {
	var n int64
	err := pool.QueryRow(ctx, `SELECT count(*) FROM urls WHERE pending_nonce IS NOT NULL AND published_at IS NULL`).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count the frontier's unpublished requests: %w", err)
	}
	return n, nil
}

// FrontierCounts says how big the frontier is: URLs known, URLs owed a
// fetch, and of those the ones waiting for room on the crawl stream.
func FrontierCounts(ctx context.Context, pool *pgxpool.Pool) (known, owed, waiting int64, err error) {
	err = pool.QueryRow(ctx, `SELECT count(*), count(pending_nonce), count(pending_nonce) FILTER (WHERE published_at IS NULL) FROM urls`).
		Scan(&known, &owed, &waiting)
	if err != nil {
		return 0, 0, 0, fmt.Errorf("count the frontier: %w", err)
	}
	return known, owed, waiting, nil
}
