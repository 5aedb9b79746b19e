package streamkit_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newscrawl/newscrawl/pkg/streamkit"
	"github.com/newscrawl/newscrawl/pkg/streamkit/streamkittest"
)

// env is one test's Redis prefix and a Postgres schema with streamkit's table only.
type env struct{ *streamkittest.Env }

// newEnv is the test's slice of the real services: the machine's Redis, or
// the cluster of TestFailureMatrixOnRedisCluster for its subtests.
func newEnv(t *testing.T) *env {
	if c := onCluster(t); c != nil {
		return &env{streamkittest.NewWith(t, c)}
	}
	return &env{streamkittest.New(t)}
}

func (e *env) keys(stage string) streamkit.Keys { return e.Keys(stage) }

// publish adds n messages doc-<i> (content hash "h") to stage's stream.
func (e *env) publish(stage string, n int) { e.T.Helper(); e.publishHash(stage, n, "h") }

func (e *env) publishHash(stage string, n int, hash string) {
	e.T.Helper()
	ctx := context.Background()
	pipe := e.RDB.Pipeline()
	for i := range n {
		pipe.XAdd(ctx, &redis.XAddArgs{Stream: e.keys(stage).Stream(), Values: map[string]interface{}{
			"doc_id": fmt.Sprintf("doc-%d", i), "content_hash": hash, "url": fmt.Sprintf("https://example.com/%d", i),
		}})
	}
	if _, err := pipe.Exec(ctx); err != nil {
		e.T.Fatal(err)
	}
}

// config returns a fast test configuration for stage.
func (e *env) config(stage string) streamkit.Config {
	return streamkit.Config{
		Prefix: e.Prefix, Stage: stage, Group: stage + "-group",
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

// start runs a consumer until the test ends; stop cancels it and waits.
func (e *env) start(cfg streamkit.Config, h streamkit.Handler) (stop func()) {
	e.T.Helper()
	return e.Run(cfg, h)
}

// eventually polls cond; the timeout is tripled for a loaded 2-core machine.
func (e *env) eventually(what string, timeout time.Duration, cond func() bool) {
	e.T.Helper()
	e.Eventually(what, 3*timeout, cond)
}

func (e *env) ledgerCount(stage string) int {
	e.T.Helper()
	var n int
	if err := e.Pool.QueryRow(context.Background(), `SELECT count(*) FROM stage_results WHERE stage = $1`, stage).Scan(&n); err != nil {
		e.T.Fatal(err)
	}
	return n
}

func (e *env) pending(stage, group string) int64 {
	e.T.Helper()
	p, err := e.RDB.XPending(context.Background(), e.keys(stage).Stream(), group).Result()
	if err != nil {
		return -1 // no group yet
	}
	return p.Count
}

func (e *env) xlen(key string) int64 {
	e.T.Helper()
	n, err := e.RDB.XLen(context.Background(), key).Result()
	if err != nil {
		e.T.Fatal(err)
	}
	return n
}

func (e *env) zcard(key string) int64 {
	e.T.Helper()
	n, err := e.RDB.ZCard(context.Background(), key).Result()
	if err != nil {
		e.T.Fatal(err)
	}
	return n
}

// resultTable creates a table the test handlers write to, to count side effects.
func (e *env) resultTable() {
	e.T.Helper()
	if _, err := e.Pool.Exec(context.Background(), `CREATE TABLE results (doc_id text PRIMARY KEY, n int NOT NULL DEFAULT 1)`); err != nil {
		e.T.Fatal(err)
	}
}

func (e *env) resultRows() (rows, sum int) {
	e.T.Helper()
	if err := e.Pool.QueryRow(context.Background(), `SELECT count(*), coalesce(sum(n),0) FROM results`).Scan(&rows, &sum); err != nil {
		e.T.Fatal(err)
	}
	return rows, sum
}
