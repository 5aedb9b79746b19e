package streamkit_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/newscrawl/newscrawl/pkg/streamkit"
	"github.com/newscrawl/newscrawl/pkg/streamkit/streamkittest"
)

// outageEnv is an env whose Redis or PostgreSQL is a server of the test's
// own, which the test stops.
func outageEnv(t *testing.T, rdb *redis.Client, pool *pgxpool.Pool) *env {
	e := newEnv(t)
	if rdb != nil {
		e.RDB = rdb
	}
	if pool != nil {
		e.Pool = pool
	}
	return e
}

// paused waits until a status record of stage says paused because of dep.
func (e *env) paused(stage, dep string) {
	e.T.Helper()
	admin := &streamkit.Admin{RDB: e.RDB, Prefix: e.Prefix}
	e.eventually("status paused on "+dep, 10*time.Second, func() bool {
		sts, err := admin.Consumers(context.Background(), stage)
		if err != nil {
			return false
		}
		for _, st := range sts {
			if st.State == streamkit.StatePaused && strings.Contains(st.Reason, dep) {
				return true
			}
		}
		return false
	})
}

// assertNothingSpent checks the end state after an outage: every entry
// processed once, no attempt spent, nothing dead-lettered or pending.
func (e *env) assertNothingSpent(reg *prometheus.Registry, n int) {
	e.T.Helper()
	t := e.T.(*testing.T)
	e.eventually("PEL and retry set empty", 10*time.Second, func() bool {
		return e.pending("s", "s-group") == 0 && e.zcard(e.keys("s").Retry()) == 0
	})
	if d := e.xlen(e.keys("s").DLQ()); d != 0 {
		t.Fatalf("%d dead letters", d)
	}
	if f, r := counter(t, reg, "streamkit_stage_failed_total"), counter(t, reg, "streamkit_stage_retried_total"); f != 0 || r != 0 {
		t.Fatalf("failed_total %v, retried_total %v: the outage spent attempts", f, r)
	}
	if rows, _ := e.resultRows(); rows != n {
		t.Fatalf("%d result rows, want %d", rows, n)
	}
}

// PostgreSQL stopped for longer than all retry backoffs together: the
// consumer pauses, spends no attempt, dead-letters nothing, says so in its
// status record, and drains once the database is back.
func TestConsumer_PostgresOutagePausesWithoutSpendingAttempts(t *testing.T) {
	t.Parallel()
	pg := streamkittest.StartPostgres(t)
	e := outageEnv(t, nil, pg.Pool(t))
	e.resultTable()
	e.publish("s", 60)
	cfg := e.config("s")
	cfg.StatusInterval = 100 * time.Millisecond
	reg := prometheus.NewRegistry()
	cfg.Metrics = streamkit.NewMetrics("", reg)
	// Past the first ten, handlers wait for the outage: on a busy machine a
	// slow stop let every entry through before PostgreSQL went away.
	var started atomic.Int32
	stopped := make(chan struct{})
	e.start(cfg, streamkit.HandlerFunc(func(ctx context.Context, m *streamkit.Message) (streamkit.Result, error) {
		if started.Add(1) > 10 {
			select {
			case <-stopped:
			case <-ctx.Done():
				return streamkit.Result{}, ctx.Err()
			}
		}
		var one int // the handler reads the database too
		if err := e.Pool.QueryRow(ctx, `SELECT 1`).Scan(&one); err != nil {
			return streamkit.Result{}, err
		}
		time.Sleep(20 * time.Millisecond)
		return writeResult(ctx, m)
	}))
	e.eventually("some processed", 10*time.Second, func() bool { return e.ledgerCount("s") >= 10 })
	pg.Stop()
	close(stopped)
	e.paused("s", "postgres")
	time.Sleep(3 * time.Second) // all backoffs together: 50+100+200+400 ms
	pg.Start()
	e.eventually("all processed", 30*time.Second, func() bool { return e.ledgerCount("s") == 60 })
	e.assertNothingSpent(reg, 60)
}

// Redis killed and restarted (from its AOF): the consumer pauses, spends
// nothing, and drains after.
func TestConsumer_RedisOutagePausesWithoutSpendingAttempts(t *testing.T) {
	t.Parallel()
	srv := streamkittest.StartRedis(t)
	e := outageEnv(t, srv.Client(t), nil)
	e.resultTable()
	e.publish("s", 60)
	cfg := e.config("s")
	reg := prometheus.NewRegistry()
	cfg.Metrics = streamkit.NewMetrics("", reg)
	e.start(cfg, streamkit.HandlerFunc(func(ctx context.Context, m *streamkit.Message) (streamkit.Result, error) {
		time.Sleep(20 * time.Millisecond)
		return writeResult(ctx, m)
	}))
	e.eventually("some processed", 10*time.Second, func() bool { return e.ledgerCount("s") >= 10 })
	srv.Kill()
	time.Sleep(3 * time.Second)
	srv.Start()
	e.eventually("all processed", 30*time.Second, func() bool { return e.ledgerCount("s") == 60 })
	e.assertNothingSpent(reg, 60)
}

// A stage's own dependency (a model server) that goes away: the handler
// returns Unavailable, the consumer pauses on that breaker until its probe
// answers, and no message is failed or dead-lettered meanwhile.
func TestConsumer_UnavailableDependencyPauses(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.resultTable()
	e.publish("s", 20)
	var up atomic.Bool
	deps := streamkit.StandardDependencies(e.RDB, e.Pool, testLogger())
	t.Cleanup(deps.Close)
	deps.Add("model", func(ctx context.Context) error {
		if !up.Load() {
			return errors.New("connection refused")
		}
		return nil
	}, nil)
	cfg := e.config("s")
	cfg.Dependencies = deps
	cfg.StatusInterval = 100 * time.Millisecond
	reg := prometheus.NewRegistry()
	cfg.Metrics = streamkit.NewMetrics("", reg)
	var calls atomic.Int64
	e.start(cfg, streamkit.HandlerFunc(func(ctx context.Context, m *streamkit.Message) (streamkit.Result, error) {
		calls.Add(1)
		if !up.Load() {
			return streamkit.Result{}, streamkit.Unavailable("model", errors.New("model server: connection refused"))
		}
		return writeResult(ctx, m)
	}))
	e.paused("s", "model")
	time.Sleep(time.Second)
	if n := calls.Load(); n > int64(cfg.Concurrency) {
		t.Fatalf("%d handler calls while the model was away; a paused stage starts no new work", n)
	}
	if err := deps.Err(); err == nil || !strings.Contains(err.Error(), "model") {
		t.Fatalf("dependencies report %v, want the model outage", err)
	}
	up.Store(true)
	e.eventually("all processed", 10*time.Second, func() bool { return e.ledgerCount("s") == 20 })
	e.assertNothingSpent(reg, 20)
}

// Entries, retry members and dead letters written by the previous release
// are still processed and replayed.
func TestConsumer_HandlesPreviousReleaseFormats(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.resultTable()
	ctx := context.Background()
	k := e.keys("s")
	// A retry member as the previous release scheduled it, due now.
	member, _ := json.Marshal(map[string]any{"id": "1-0", "f": map[string]string{"doc_id": "doc-r", "content_hash": "h", "attempt": "1"}})
	if err := e.RDB.ZAdd(ctx, k.Retry(), redis.Z{Score: 0, Member: string(member)}).Err(); err != nil {
		t.Fatal(err)
	}
	// A dead letter in the previous release's layout.
	if err := e.RDB.XAdd(ctx, &redis.XAddArgs{Stream: k.DLQ(), Values: []string{
		"doc_id", "doc-d", "content_hash", "h", "stage", "s", "attempts", "5", "error_type", "transient",
		"error", "boom", "failed_at", "2026-11-01T00:00:00Z", "consumer", "old-1", "source_id", "2-0",
		"original_fields", `["content_hash","doc_id"]`}}).Err(); err != nil {
		t.Fatal(err)
	}
	e.start(e.config("s"), streamkit.HandlerFunc(writeResult))
	admin := &streamkit.Admin{RDB: e.RDB, Prefix: e.Prefix}
	if n, err := admin.DLQReplay(ctx, "s", streamkit.DLQFilter{}); err != nil || n != 1 {
		t.Fatalf("replayed %d (%v), want 1", n, err)
	}
	e.eventually("both processed", 10*time.Second, func() bool { return e.ledgerCount("s") == 2 })
	if rows, sum := e.resultRows(); rows != 2 || sum != 2 {
		t.Fatalf("results: %d rows, %d writes; want 2, 2", rows, sum)
	}
}

// A dependency that answered a moment ago and is gone now is down: an
// answer is never reused for the errors that follow it, or an outage's
// first quarter second would spend the attempts of every entry that fails
// in it.
func TestDependencies_AnAnswerDoesNotVouchForTheNextError(t *testing.T) {
	t.Parallel()
	srv := streamkittest.StartRedis(t)
	rdb := srv.Client(t)
	deps := streamkit.NewDependencies(nil)
	defer deps.Close()
	deps.Add(streamkit.DependencyRedis, func(ctx context.Context) error { return rdb.Ping(ctx).Err() }, nil)
	if err := deps.Check(context.Background()); err != nil {
		t.Fatalf("Redis is up, Check says %v", err)
	}
	srv.Kill()
	_, err := net.Dial("tcp", srv.Addr()) // what a client meets at once
	if err == nil {
		t.Fatal("a killed Redis took a connection")
	}
	if !deps.Down(err) {
		t.Fatalf("Redis killed right after an answering probe: Down(%v) is false, so the error would spend an attempt", err)
	}
}
