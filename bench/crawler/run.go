package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"

	"github.com/newscrawl/newscrawl/internal/crawl"
	"github.com/newscrawl/newscrawl/internal/pipeline"
	"github.com/newscrawl/newscrawl/internal/store"
	"github.com/newscrawl/newscrawl/pkg/streamkit"
)

// Timing of the crawl-completion watch.
const (
	pollEvery   = 20 * time.Millisecond
	quietPolls  = 5 // consecutive idle polls that mean "done"
	startupWait = 60 * time.Second
	stopWait    = 30 * time.Second
)

// A result is one measured crawl.
type result struct {
	who   string
	n     int
	delay time.Duration
	site  counters
	wall  time.Duration // seed to idle (ours) or first visit to Wait (colly)
	cpu   time.Duration // user+system CPU of the crawler process during the crawl
	// serverCPU is that of the bench's own Redis and PostgreSQL (every
	// backend) during the crawl; the bench's own polling is in it too.
	serverCPU time.Duration
	// calls are the Redis commands and PostgreSQL statements of the crawl,
	// seed to the crawler's exit (its start-up and the bench's own commands
	// excluded; its shutdown in), with the bench's own servers.
	calls   calls
	rssKB   int64 // peak resident set of the crawler process
	docs    int64 // documents rows (ours)
	cleaned int64 // messages on the clean stream (ours)
	dlq     int64 // dead letters (ours)
	errors  int64 // colly's OnError count
	// rssSeries (-for): the crawler's resident set every 30 s, in kB
	rssSeries []int64
}

// ours runs the real crawler binary (Redis Streams + Postgres, as in
// production) against the site with a scratch schema and key prefix, seeds
// it, waits until the crawl stream is idle, and stops it with SIGTERM.
func ours(ctx context.Context, o *options, rdb *redis.Client, s *site, delay time.Duration) (result, error) {
	r := result{who: "newscrawl", n: s.n, delay: delay}
	schema := uniqueName("benchcrawl_")
	prefix := uniqueName("benchcrawl")
	pool, drop, err := scratchSchema(ctx, o.databaseURL, schema)
	if err != nil {
		return r, err
	}
	defer drop()
	defer deleteKeys(context.WithoutCancel(ctx), rdb, prefix)

	dbURL, err := withSearchPath(o.databaseURL, schema)
	if err != nil {
		return r, err
	}
	hostDelay := "0"
	if delay > 0 {
		hostDelay = delay.String()
	}
	var stderr syncBuffer
	cmd := exec.Command(o.crawlerBin)
	cmd.Env = append(os.Environ(),
		"REDIS_URL="+o.redisURL, "DATABASE_URL="+dbURL, "STREAM_PREFIX="+prefix,
		"METRICS_ADDR=0", "LOG_LEVEL="+logLevel(),
		"CRAWL_ALLOW_PRIVATE=1", "CRAWL_HOST_DELAY="+hostDelay, "CRAWL_RECRAWL_INTERVAL=0",
		"CRAWL_CONCURRENCY="+strconv.Itoa(o.concurrency), "CRAWL_MAX_DEPTH="+strconv.Itoa(maxDepth),
		// No cleaner runs here: without a raised high-water mark the clean
		// stream's length would pause the crawler at 10,000 documents.
		"CRAWL_HIGH_WATER=100000000",
	)
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	if os.Getenv("BENCH_DEBUG") != "" {
		logf, err := os.Create(filepath.Join(os.TempDir(), prefix+".log"))
		if err != nil {
			return r, err
		}
		defer logf.Close()
		cmd.Stdout, cmd.Stderr = io.MultiWriter(&stderr, logf), io.MultiWriter(&stderr, logf)
		fmt.Fprintln(os.Stderr, "crawler log:", logf.Name())
	}
	if err := cmd.Start(); err != nil {
		return r, fmt.Errorf("start %s: %w", o.crawlerBin, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stopped := false
	defer func() {
		if !stopped {
			cmd.Process.Kill()
			<-exited
		}
	}()
	fail := func(err error) (result, error) {
		return r, fmt.Errorf("%w\ncrawler output:\n%s", err, tail(stderr.String(), 20))
	}

	keys := streamkit.KeysFor(prefix, pipeline.Crawl)
	if err := waitGroup(ctx, rdb, keys.Stream(), exited); err != nil {
		return fail(err)
	}
	cpu0, err := procCPU(cmd.Process.Pid)
	if err != nil {
		return fail(err)
	}
	servers0 := o.servers.cpu()
	var calls0 calls
	if o.servers != nil {
		if calls0, err = o.servers.calls(ctx); err != nil {
			return fail(err)
		}
	}
	start := time.Now()
	f := crawl.RequestFields(s.seed(), 0, maxDepth, []string{"127.0.0.1"}, new(time.Duration), true, "", crawl.NewNonce(), "")
	if _, err := streamkit.NewProducer(rdb, prefix, 0).Publish(ctx, pipeline.Crawl, f); err != nil {
		return fail(fmt.Errorf("seed: %w", err))
	}
	var end time.Time
	var polls int64 // the bench's own statements: one a poll
	if o.window > 0 && delay > 0 {
		end, r.rssSeries, err = waitWindow(o.window, exited, cmd.Process.Pid)
	} else {
		end, polls, err = waitIdle(ctx, rdb, pool, prefix, o.timeout, exited)
	}
	if err != nil {
		return fail(err)
	}
	cpu1, err := procCPU(cmd.Process.Pid)
	if err != nil {
		return fail(err)
	}
	r.serverCPU = o.servers.cpu() - servers0
	r.rssKB, err = procHWM(cmd.Process.Pid)
	if err != nil {
		return fail(err)
	}
	r.wall, r.cpu, r.site = end.Sub(start), cpu1-cpu0, s.snapshot()

	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-exited:
		stopped = true
		if err != nil {
			return fail(fmt.Errorf("crawler exited after SIGTERM: %w", err))
		}
	case <-time.After(stopWait):
		return fail(errors.New("crawler did not stop within 30s of SIGTERM"))
	}
	if o.servers != nil {
		c, err := o.servers.calls(ctx)
		if err != nil {
			return r, err
		}
		r.calls = calls{redis: c.redis - calls0.redis, pg: c.pg - calls0.pg - polls}
	}
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM documents`).Scan(&r.docs); err != nil {
		return r, fmt.Errorf("count documents: %w", err)
	}
	r.cleaned = rdb.XLen(ctx, streamkit.KeysFor(prefix, pipeline.Clean).Stream()).Val()
	r.dlq = rdb.XLen(ctx, keys.DLQ()).Val()
	return r, nil
}

// waitWindow lets the crawl run for window and returns when it stopped
// measuring, with the crawler's resident memory every 30 s. (Not to an idle
// stream: with many hosts at a long delay most of the frontier waits in
// PostgreSQL, and the stream can look idle between two turns.)
func waitWindow(window time.Duration, exited <-chan error, pid int) (time.Time, []int64, error) {
	var series []int64
	tick := time.NewTicker(30 * time.Second)
	defer tick.Stop()
	stop := time.After(window)
	for {
		select {
		case <-stop:
			return time.Now(), series, nil
		case err := <-exited:
			return time.Time{}, nil, fmt.Errorf("crawler exited mid-crawl: %v", err)
		case <-tick.C:
			if kb, err := procRSS(pid); err == nil {
				series = append(series, kb)
			}
		}
	}
}

// procRSS is a process's resident set now, in kB.
func procRSS(pid int) (int64, error) {
	return procStatus(pid, "VmRSS:")
}

// waitGroup waits until the crawler has created its consumer group (it is
// connected, migrated and about to read).
func waitGroup(ctx context.Context, rdb *redis.Client, stream string, exited <-chan error) error {
	deadline := time.Now().Add(startupWait)
	for time.Now().Before(deadline) {
		select {
		case err := <-exited:
			return fmt.Errorf("crawler exited during startup: %v", err)
		default:
		}
		if g, err := rdb.XInfoGroups(ctx, stream).Result(); err == nil && len(g) > 0 {
			return nil
		}
		time.Sleep(pollEvery)
	}
	return fmt.Errorf("crawler not reading %s after %s", stream, startupWait)
}

// waitIdle returns when the crawl stream has nothing unread, pending or
// scheduled for retry, and the frontier owes nothing, for quietPolls polls
// in a row; the time returned is the first poll of that quiet streak, with
// the polls made (a PostgreSQL statement each).
func waitIdle(ctx context.Context, rdb *redis.Client, pool *pgxpool.Pool, prefix string, timeout time.Duration, exited <-chan error) (time.Time, int64, error) {
	admin := &streamkit.Admin{RDB: rdb, Prefix: prefix}
	ref := []streamkit.StageRef{{Stage: pipeline.Crawl, Group: pipeline.CrawlerGroup}}
	deadline := time.Now().Add(timeout)
	var quietSince time.Time
	var polls int64
	quiet := 0
	for time.Now().Before(deadline) {
		select {
		case err := <-exited:
			return time.Time{}, polls, fmt.Errorf("crawler exited mid-crawl: %v", err)
		default:
		}
		now := time.Now()
		st, err := admin.Stats(ctx, ref)
		if err != nil {
			return time.Time{}, polls, err
		}
		// The frontier too: on a busy machine the stream was once idle
		// between the seed and its links' feeding, and a crawl "ended"
		// after 2 pages.
		owed, err := crawl.FrontierOwed(ctx, pool)
		polls++
		if err != nil {
			return time.Time{}, polls, err
		}
		if s := st[0]; s.Length > 0 && s.Lag == 0 && s.Pending == 0 && s.Retry == 0 && s.Deferred == 0 && owed == 0 {
			if quiet == 0 {
				quietSince = now
			}
			if quiet++; quiet >= quietPolls {
				return quietSince, polls, nil
			}
		} else {
			quiet = 0
		}
		time.Sleep(pollEvery)
	}
	return time.Time{}, polls, fmt.Errorf("crawl not finished after %s", timeout)
}

// scratchSchema makes a migrated schema and returns a pool on it and a
// function that drops it.
func scratchSchema(ctx context.Context, url, schema string) (*pgxpool.Pool, func(), error) {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return nil, nil, fmt.Errorf("connect postgres: %w", err)
	}
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		conn.Close(ctx)
		return nil, nil, fmt.Errorf("create schema %s: %w", schema, err)
	}
	drop := func() {
		c := context.Background()
		conn.Exec(c, "DROP SCHEMA "+schema+" CASCADE")
		conn.Close(c)
	}
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		drop()
		return nil, nil, fmt.Errorf("parse DATABASE_URL: %w", err)
	}
	cfg.ConnConfig.RuntimeParams["search_path"] = schema + ",public"
	pool, err := store.OpenConfig(ctx, cfg)
	if err != nil {
		drop()
		return nil, nil, err
	}
	if _, err := store.Migrate(ctx, pool); err != nil {
		pool.Close()
		drop()
		return nil, nil, err
	}
	return pool, func() { pool.Close(); drop() }, nil
}

// withSearchPath adds search_path=<schema>,public to a postgres URL.
func withSearchPath(dbURL, schema string) (string, error) {
	if !strings.Contains(dbURL, "://") {
		return "", fmt.Errorf("DATABASE_URL must be a URL for the bench, not %q", dbURL)
	}
	sep := "?"
	if strings.Contains(dbURL, "?") {
		sep = "&"
	}
	return dbURL + sep + "search_path=" + schema + "%2Cpublic", nil
}

func deleteKeys(ctx context.Context, rdb *redis.Client, prefix string) {
	iter := rdb.Scan(ctx, 0, prefix+":*", 1000).Iterator()
	for iter.Next(ctx) {
		rdb.Del(ctx, iter.Val())
	}
}

// procCPU is the user+system CPU time of a live process (/proc/pid/stat).
func procCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("read cpu time of %d: %w", pid, err)
	}
	// Fields after the command name (which may hold spaces) start at state.
	rest := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+2:]))
	if len(rest) < 13 {
		return 0, fmt.Errorf("read cpu time of %d: short /proc stat", pid)
	}
	ut, err1 := strconv.ParseInt(rest[11], 10, 64)
	st, err2 := strconv.ParseInt(rest[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("read cpu time of %d: bad /proc stat", pid)
	}
	const ticksPerSecond = 100 // USER_HZ on Linux
	return time.Duration(ut+st) * time.Second / ticksPerSecond, nil
}

// procHWM is the peak resident set (VmHWM) of a live process, in KiB.
func procHWM(pid int) (int64, error) { return procStatus(pid, "VmHWM:") }

// procStatus reads a kB field of /proc/PID/status.
func procStatus(pid int, key string) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, fmt.Errorf("read %s of %d: %w", key, pid, err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, key); ok {
			return strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		}
	}
	return 0, fmt.Errorf("read %s of %d: not there", key, pid)
}

// syncBuffer is a bytes.Buffer safe for a child's output and a reader.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func tail(s string, lines int) string {
	ls := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(ls[max(0, len(ls)-lines):], "\n")
}

func logLevel() string {
	if os.Getenv("BENCH_DEBUG") != "" {
		return "debug"
	}
	return "warn"
}

// uniqueName is prefix and the time in nanoseconds: a schema or key prefix
// no other run uses (a benchmark links no test helpers).
func uniqueName(prefix string) string { return fmt.Sprintf("%s%d", prefix, time.Now().UnixNano()) }
