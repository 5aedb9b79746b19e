package crawl

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
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
// published while the stage's window has room and waits in the table
// otherwise. Every request goes onto the stream the same way: seeds,
// discovered links, due hubs and requests reconcile found lost are owed in
// the frontier, and the Feeder publishes them through streamkit's Window —
// one window for every crawler process, checked and added in Redis in one
// step.

// StatusWindow is the crawler's status setting holding its CRAWL_WINDOW.
const StatusWindow = "window"

// Window is the crawl stage's window as the running crawlers set it (their
// status records), else DefaultWindow: newsctl and the web page replay crawl
// dead letters through it.
func Window(ctx context.Context, admin *streamkit.Admin) *streamkit.Window {
	size := int64(DefaultWindow)
	if sts, err := admin.Consumers(ctx, pipeline.Crawl); err == nil && len(sts) > 0 {
		if n, err := strconv.ParseInt(sts[0].Settings[StatusWindow], 10, 64); err == nil && n > 0 {
			size = n
		}
	}
	return streamkit.NewWindow(admin.RDB, admin.Prefix, pipeline.Crawl, pipeline.CrawlerGroup, size).WithPartitions(admin.Partitions)
}

// newWindow is the crawl stage's window: CRAWL_WINDOW requests waiting,
// pending, scheduled for a retry or stepped aside, over all partitions.
func newWindow(rdb redis.UniversalClient, cfg Config) *streamkit.Window {
	return streamkit.NewWindow(rdb, cfg.Prefix, pipeline.Crawl, pipeline.CrawlerGroup, cfg.Window).
		WithPartitions(cfg.Partitions).WithRetain(cfg.Retain)
}

// A Feeder publishes owed requests from the frontier onto the crawl stream
// while the window has room: seeds, discovered links, due hubs, and
// requests a crash or a lost stream left unpublished. Lower depth first,
// then discovery order, and per host no more than keep it busy until the
// next feed (perHost). Each is due at its host's turn: the first of a host
// at once, the next one host delay later for each request of the host
// already out, a little early (streamkit's deferred set holds it until
// then), so a request is read when its slot is near instead of being
// read, refused its slot and stepped aside first (in bench-crawler at
// 20 ms, a third of a polite page's Redis commands). A host slower than
// the crawler's delay (robots.txt's Crawl-delay, its own answers) still
// steps its requests aside when they come early. Several crawler
// processes may run one each: rows are taken with SKIP LOCKED, and a request published twice (a crash
// between publish and commit) has one idempotency key, which the ledger
// absorbs.
type Feeder struct {
	pool        *pgxpool.Pool
	win         *streamkit.Window
	partitioned bool
	log         *slog.Logger
	period      time.Duration
	batch       int
	perHost     int
	delay       time.Duration // between two turns of a host
	early       time.Duration // how long before its turn a request is due
	wake        chan struct{}
}

// NewFeeder returns the feeder of the crawler c (its window is c's).
func NewFeeder(pool *pgxpool.Pool, c *Crawler) *Feeder {
	return &Feeder{pool: pool, win: c.win, partitioned: c.cfg.Partitions.Of(pipeline.Crawl) > 1,
		log: c.cfg.Logger.With("component", "crawl-feeder"), period: c.cfg.FeedInterval,
		batch: 500, perHost: perHost(c.cfg), delay: c.cfg.HostDelay, early: c.cfg.DeferAfter / 2, wake: c.feed}
}

// onStreamFor is how long a published request counts against its host's
// share: far longer than a request waits on the stream, since the feeder
// gives a host only the turns of a few feeds.
const onStreamFor = 10 * time.Minute

// perHost is how many requests of one host the stream holds at most: twice
// the host's turns until the next feed and the wait a handler takes for a
// turn (CRAWL_DEFER_AFTER) — fewer left a 20 ms host idle between feeds
// (261 against 345 pages/s in bench-crawler), more could only step aside
// and come back — at least 2, at most the window.
func perHost(cfg Config) int {
	if cfg.HostDelay <= 0 {
		return int(cfg.Window)
	}
	return int(min(max(int64(2*(cfg.DeferAfter+cfg.FeedInterval)/cfg.HostDelay), 2), cfg.Window))
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
// requests the window has room for, at most perHost on the stream for any
// host, and marks them published, in one transaction. It returns how many
// it published.
func (f *Feeder) Exec(ctx context.Context) (int, error) {
	room, err := f.win.Room(ctx)
	if err != nil || room <= 0 {
		return 0, err
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
	// Requests published longer ago than onStreamFor no longer count: one
	// that was dead-lettered keeps its row's published_at, and must not hold
	// its host's share for ever.
	onStream := map[string]int{}
	rows, err := tx.Query(ctx, `SELECT host, count(*) FROM urls
		WHERE pending_nonce IS NOT NULL AND published_at IS NOT NULL AND published_at > now() - $1::interval GROUP BY host`, onStreamFor.String())
	if err != nil {
		return 0, fmt.Errorf("count requests on the stream per host: %w", err)
	}
	full := []string{} // not nil: host <> ALL(NULL) is never true
	for rows.Next() {
		var h string
		var n int
		if err := rows.Scan(&h, &n); err != nil {
			rows.Close()
			return 0, fmt.Errorf("count requests on the stream per host: %w", err)
		}
		if onStream[h] = n; n >= f.perHost {
			full = append(full, h)
		}
	}
	rows.Close()
	// Each host's next requests, over every host that has room: the hosts
	// are walked on the (host, depth, first_seen_at) index one probe each,
	// so a host with a long queue costs its share, not its queue. With
	// several partitions a batch is taken whatever the room, since Add
	// fills each partition to its own.
	limit := min(int(room), f.batch)
	if f.partitioned {
		limit = f.batch
	}
	rows, err = tx.Query(ctx, `
		WITH RECURSIVE hosts(host) AS (
			(SELECT host FROM urls WHERE pending_nonce IS NOT NULL AND published_at IS NULL ORDER BY host LIMIT 1)
			UNION ALL
			SELECT (SELECT u.host FROM urls u WHERE u.pending_nonce IS NOT NULL AND u.published_at IS NULL AND u.host > h.host
			        ORDER BY u.host LIMIT 1)
			FROM hosts h WHERE h.host IS NOT NULL)
		SELECT r.* FROM hosts h CROSS JOIN LATERAL (
			SELECT `+owedColumns+`, u.host, u.depth AS d, u.first_seen_at AS seen FROM urls u
			WHERE u.host = h.host AND u.pending_nonce IS NOT NULL AND u.published_at IS NULL
			ORDER BY u.depth, u.first_seen_at LIMIT $3
			FOR UPDATE SKIP LOCKED) r
		WHERE h.host IS NOT NULL AND h.host <> ALL($2)
		ORDER BY r.d, r.seen
		LIMIT $1`, limit, full, f.perHost)
	if err != nil {
		return 0, fmt.Errorf("select owed requests: %w", err)
	}
	owed, err := pgx.CollectRows(rows, owedRequestOfHost)
	if err != nil {
		return 0, fmt.Errorf("read owed requests: %w", err)
	}
	var reqs []streamkit.Due
	for _, o := range owed {
		if ahead := onStream[o.host]; ahead < f.perHost {
			onStream[o.host]++
			// Within DeferAfter of its slot a request waits for it; half
			// of that early leaves room for the promoter's period.
			reqs = append(reqs, streamkit.Due{Fields: o.fields, After: time.Duration(ahead)*f.delay - f.early})
		}
	}
	if len(reqs) == 0 {
		return 0, nil
	}
	added, err := f.win.AddDue(ctx, reqs)
	urls := make([]string, 0, len(reqs))
	for i, ok := range added {
		if ok {
			urls = append(urls, reqs[i].Fields[FieldURL])
		}
	}
	if len(urls) == 0 {
		return 0, err
	}
	if err != nil { // some partitions took theirs: record those, and say what failed
		f.log.Warn("publish owed requests: some partitions failed; their requests stay owed", "published", len(urls), "err", err)
	}
	if _, err := tx.Exec(ctx, `UPDATE urls SET published_at = now() WHERE url = ANY($1)`, urls); err != nil {
		return 0, fmt.Errorf("mark %d requests published: %w", len(urls), err)
	}
	if err := tx.Commit(ctx); err != nil {
		return 0, fmt.Errorf("commit feeder pass: %w", err)
	}
	return len(urls), nil
}

// owedOfHost is an owed request and its host.
type owedOfHost struct {
	fields map[string]string
	host   string
}

func owedRequestOfHost(row pgx.CollectableRow) (owedOfHost, error) {
	var o owedOfHost
	var depth int
	var seen time.Time
	fields, err := scanOwed(row, &o.host, &depth, &seen)
	o.fields = fields
	return o, err
}

// owedColumns are the urls columns owedRequest reads.
const owedColumns = `url, depth, max_depth, hosts, (extract(epoch FROM recrawl_interval) * 1000)::bigint,
	is_seed, hint, hubs, pending_nonce, discovered_from`

// owedRequest is the crawl request a frontier row is owed. A negative
// max_depth (a seed given none) leaves the crawler's default.
func owedRequest(row pgx.CollectableRow) (map[string]string, error) { return scanOwed(row) }

// scanOwed reads owedColumns, and extra columns after them into extra.
func scanOwed(row pgx.CollectableRow, extra ...any) (map[string]string, error) {
	var u, hint, nonce, from string
	var depth, maxDepth, hubs int
	var hosts []string
	var recrawlMS *int64
	var seed bool
	if err := row.Scan(append([]any{&u, &depth, &maxDepth, &hosts, &recrawlMS, &seed, &hint, &hubs, &nonce, &from}, extra...)...); err != nil {
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

// Unpublish hands requests back to the feeder: the frontier rows of urls
// that are owed a fetch are marked not on the stream, so the feeder
// publishes them again through the window (newsctl reconcile, for requests
// a lost stream dropped). It returns how many it handed back.
func Unpublish(ctx context.Context, pool *pgxpool.Pool, urls []string) (int, error) {
	tag, err := pool.Exec(ctx, `UPDATE urls SET published_at = NULL WHERE url = ANY($1) AND pending_nonce IS NOT NULL AND published_at IS NOT NULL`, urls)
	if err != nil {
		return 0, fmt.Errorf("hand %d requests back to the feeder: %w", len(urls), err)
	}
	return int(tag.RowsAffected()), nil
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
