package streamkit_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newscrawl/newscrawl/pkg/streamkit"
	"github.com/newscrawl/newscrawl/pkg/streamkit/streamkittest"
)

// env is one test's Redis prefix and a Postgres schema with streamkit's
// table only, with its consumers' warnings kept for a timeout's report.
type env struct {
	*streamkittest.Env
	logs   *warnings
	stages map[string]string // stage → group, of every config made
}

// newEnv is the test's slice of the real services: the machine's Redis, or
// the cluster of TestFailureMatrixOnRedisCluster for its subtests.
func newEnv(t *testing.T) *env {
	e := &env{logs: &warnings{}, stages: map[string]string{}}
	if c := onCluster(t); c != nil {
		e.Env = streamkittest.NewWith(t, c)
	} else {
		e.Env = streamkittest.New(t)
	}
	e.Report = e.report
	return e
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
	e.stages[stage] = stage + "-group"
	return streamkit.Config{
		Prefix: e.Prefix, Stage: stage, Group: stage + "-group",
		Visibility: 400 * time.Millisecond, Block: 100 * time.Millisecond,
		RetryBase: 50 * time.Millisecond, RetryMax: 400 * time.Millisecond,
		PromoteInterval: 20 * time.Millisecond, GracePeriod: 5 * time.Second,
		Concurrency: 4, BatchSize: 20, JanitorInterval: -1,
		Logger: e.logger(),
	}
}

// logger keeps warnings and errors for the report of a timeout, and logs
// everything to stderr too when STREAMKIT_TEST_LOG is set (testLogger).
func (e *env) logger() *slog.Logger {
	kept := slog.NewTextHandler(e.logs, &slog.HandlerOptions{Level: slog.LevelWarn})
	if l := testLogger(); l != nil {
		return slog.New(slog.NewMultiHandler(kept, l.Handler()))
	}
	return slog.New(kept)
}

// testLogger logs to stderr when STREAMKIT_TEST_LOG is set.
func testLogger() *slog.Logger {
	if os.Getenv("STREAMKIT_TEST_LOG") == "" {
		return nil
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// warnings keeps the last lines its consumers logged at warning or above.
type warnings struct {
	mu    sync.Mutex
	lines []string
}

const keptWarnings = 40

func (w *warnings) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.lines = append(w.lines, strings.TrimRight(string(p), "\n"))
	if len(w.lines) > 2*keptWarnings {
		w.lines = append(w.lines[:0], w.lines[len(w.lines)-keptWarnings:]...)
	}
	return len(p), nil
}

func (w *warnings) last() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.lines[max(0, len(w.lines)-keptWarnings):])
}

// start runs a consumer until the test ends; stop cancels it and waits.
func (e *env) start(cfg streamkit.Config, h streamkit.Handler) (stop func()) {
	e.T.Helper()
	return e.Run(cfg, h)
}

// eventually polls cond; the timeout is tripled for a loaded 2-core machine.
// On a timeout the message carries report: a stall seen once in CI is
// diagnosed from it.
func (e *env) eventually(what string, timeout time.Duration, cond func() bool) {
	e.T.Helper()
	e.Eventually(what, 3*timeout, cond)
}

// report describes each configured stage: ledger rows, stream figures,
// dead letters by type, consumers' states; then the last warnings.
func (e *env) report() string {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var b strings.Builder
	admin := &streamkit.Admin{RDB: e.RDB, Prefix: e.Prefix}
	for stage, group := range e.stages {
		var ledger int
		_ = e.Pool.QueryRow(ctx, `SELECT count(*) FROM stage_results WHERE stage = $1`, stage).Scan(&ledger)
		fmt.Fprintf(&b, "stage %s: %d ledger rows", stage, ledger)
		if st, err := admin.Stats(ctx, []streamkit.StageRef{{Stage: stage, Group: group}}); err != nil {
			fmt.Fprintf(&b, "; stats: %v", err)
		} else {
			s := st[0]
			fmt.Fprintf(&b, "; stream %d, lag %d, pending %d (oldest %.1fs), retry %d, deferred %d, dlq %d",
				s.Length, s.Lag, s.Pending, s.OldestPendingAgeS, s.Retry, s.Deferred, s.DLQ)
			for _, w := range s.Workers {
				fmt.Fprintf(&b, "\n  consumer %s: %s %s held %d outages %v", w.Consumer, w.State, w.Reason, w.Held, w.Outages)
			}
		}
		if counts, err := admin.DLQCounts(ctx, stage); err == nil && len(counts) > 0 {
			fmt.Fprintf(&b, "\n  dead letters by type: %v", counts)
		}
		b.WriteString("\n")
	}
	if lines := e.logs.last(); len(lines) > 0 {
		b.WriteString("last warnings:\n  " + strings.Join(lines, "\n  "))
	}
	return b.String()
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
