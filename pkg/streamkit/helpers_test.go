package streamkit_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"

	"github.com/newscrawl/newscrawl/internal/testenv"
	"github.com/newscrawl/newscrawl/pkg/streamkit"
)

// env is one test's Redis prefix and Postgres schema.
type env struct {
	t      *testing.T
	rdb    *redis.Client
	pool   *pgxpool.Pool
	prefix string
}

func newEnv(t *testing.T) *env {
	t.Helper()
	rdb, prefix := testenv.Redis(t)
	return &env{t: t, rdb: rdb, pool: testenv.Postgres(t), prefix: prefix}
}

func (e *env) keys(stage string) streamkit.Keys { return streamkit.KeysFor(e.prefix, stage) }

// publish adds n messages doc-<i> (content hash "h") to stage's stream.
func (e *env) publish(stage string, n int) { e.t.Helper(); e.publishHash(stage, n, "h") }

func (e *env) publishHash(stage string, n int, hash string) {
	e.t.Helper()
	ctx := context.Background()
	pipe := e.rdb.Pipeline()
	for i := range n {
		pipe.XAdd(ctx, &redis.XAddArgs{Stream: e.keys(stage).Stream(), Values: map[string]interface{}{
			"doc_id": fmt.Sprintf("doc-%d", i), "content_hash": hash, "url": fmt.Sprintf("https://example.com/%d", i),
		}})
	}
	if _, err := pipe.Exec(ctx); err != nil {
		e.t.Fatal(err)
	}
}

// config returns a fast test configuration for stage.
func (e *env) config(stage string) streamkit.Config {
	return streamkit.Config{
		Prefix: e.prefix, Stage: stage, Group: stage + "-group",
		Visibility: 400 * time.Millisecond, Block: 100 * time.Millisecond,
		RetryBase: 50 * time.Millisecond, RetryMax: 400 * time.Millisecond,
		PromoteInterval: 20 * time.Millisecond, GracePeriod: 5 * time.Second,
		Concurrency: 4, BatchSize: 20, JanitorInterval: -1,
		Logger: testLogger(),
	}
}

// testLogger logs to stderr when STREAMKIT_TEST_LOG is set.
func testLogger() *slog.Logger {
	if os.Getenv("STREAMKIT_TEST_LOG") == "" {
		return nil
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// start runs a consumer in the background; the returned stop cancels it and
// waits for Run to return.
func (e *env) start(cfg streamkit.Config, h streamkit.Handler) (stop func()) {
	e.t.Helper()
	c, err := streamkit.NewConsumer(e.rdb, e.pool, cfg, h)
	if err != nil {
		e.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := c.Run(ctx); err != nil {
			e.t.Errorf("consumer run: %v", err)
		}
	}()
	var once sync.Once
	stop = func() { once.Do(func() { cancel(); wg.Wait() }) }
	e.t.Cleanup(stop)
	return stop
}

// eventually polls cond until it holds or the deadline passes.
func (e *env) eventually(what string, timeout time.Duration, cond func() bool) {
	e.t.Helper()
	timeout *= 3 // an upper bound for a loaded 2-core machine, not a speed claim
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if cond() {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	e.t.Fatalf("timed out after %s waiting for %s", timeout, what)
}

func (e *env) ledgerCount(stage string) int {
	e.t.Helper()
	var n int
	if err := e.pool.QueryRow(context.Background(), `SELECT count(*) FROM stage_results WHERE stage = $1`, stage).Scan(&n); err != nil {
		e.t.Fatal(err)
	}
	return n
}

func (e *env) pending(stage, group string) int64 {
	e.t.Helper()
	p, err := e.rdb.XPending(context.Background(), e.keys(stage).Stream(), group).Result()
	if err != nil {
		return -1 // no group yet
	}
	return p.Count
}

func (e *env) xlen(key string) int64 {
	e.t.Helper()
	n, err := e.rdb.XLen(context.Background(), key).Result()
	if err != nil {
		e.t.Fatal(err)
	}
	return n
}

func (e *env) zcard(key string) int64 {
	e.t.Helper()
	n, err := e.rdb.ZCard(context.Background(), key).Result()
	if err != nil {
		e.t.Fatal(err)
	}
	return n
}

// resultTable creates a table the test handlers write to, to count side effects.
func (e *env) resultTable() {
	e.t.Helper()
	if _, err := e.pool.Exec(context.Background(), `CREATE TABLE results (doc_id text PRIMARY KEY, n int NOT NULL DEFAULT 1)`); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) resultRows() (rows, sum int) {
	e.t.Helper()
	if err := e.pool.QueryRow(context.Background(), `SELECT count(*), coalesce(sum(n),0) FROM results`).Scan(&rows, &sum); err != nil {
		e.t.Fatal(err)
	}
	return rows, sum
}
