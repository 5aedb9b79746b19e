package streamkit_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/newscrawl/newscrawl/pkg/streamkit"
)

// deliverToDeadConsumer reads n entries as a consumer that then dies: they
// stay pending under its name, never acked.
func (e *env) deliverToDeadConsumer(stage, group string, n int) []redis.XMessage {
	e.T.Helper()
	ctx := context.Background()
	if err := streamkit.EnsureGroup(ctx, e.RDB, e.keys(stage).Stream(), group); err != nil {
		e.T.Fatal(err)
	}
	res, err := e.RDB.XReadGroup(ctx, &redis.XReadGroupArgs{Group: group, Consumer: "dead",
		Streams: []string{e.keys(stage).Stream(), ">"}, Count: int64(n)}).Result()
	if err != nil {
		e.T.Fatal(err)
	}
	if got := len(res[0].Messages); got != n {
		e.T.Fatalf("dead consumer read %d, want %d", got, n)
	}
	return res[0].Messages
}

func TestConsumer_ReclaimsFromStoppedConsumer(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.resultTable()
	e.publish("s", 10)
	e.deliverToDeadConsumer("s", "s-group", 10)

	e.start(e.config("s"), streamkit.HandlerFunc(writeResult))
	e.eventually("reclaimed entries processed", 10*time.Second, func() bool { return e.ledgerCount("s") == 10 })
	e.eventually("PEL empty", 5*time.Second, func() bool { return e.pending("s", "s-group") == 0 })
	if rows, sum := e.resultRows(); rows != 10 || sum != 10 {
		t.Fatalf("results: %d rows, %d writes; want 10, 10 (no duplicates)", rows, sum)
	}
}

// commitAsIfCrashed writes what a consumer that died after its commit left
// behind: the result rows and ledger rows (with the emitted messages).
func (e *env) commitAsIfCrashed(stage string, msgs []redis.XMessage) {
	e.T.Helper()
	ctx := context.Background()
	for _, m := range msgs {
		doc := m.Values["doc_id"].(string)
		emit, _ := json.Marshal([]streamkit.Emit{{Stage: "next", Fields: map[string]string{"doc_id": doc, "content_hash": "h2"}}})
		if _, err := e.Pool.Exec(ctx, `INSERT INTO results (doc_id) VALUES ($1)`, doc); err != nil {
			e.T.Fatal(err)
		}
		if _, err := e.Pool.Exec(ctx, `INSERT INTO stage_results (key, stage, doc_id, emitted) VALUES ($1, $2, $3, $4)`,
			stage+":"+doc+":h", stage, doc, emit); err != nil {
			e.T.Fatal(err)
		}
	}
}

func TestConsumer_CrashBetweenCommitAndAck(t *testing.T) {
	tests := []struct {
		name            string
		emittedBefore   bool  // the dead consumer got its XADD out before dying
		wantNextEntries int64 // entries on the next stream after recovery
	}{
		{name: "after downstream XADD, before XACK", emittedBefore: true, wantNextEntries: 10},
		{name: "after commit, before downstream XADD", emittedBefore: false, wantNextEntries: 5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			e.resultTable()
			e.publish("s", 5)
			msgs := e.deliverToDeadConsumer("s", "s-group", 5)
			e.commitAsIfCrashed("s", msgs)
			if tc.emittedBefore {
				e.publishHash("next", 5, "h2") // what the dead consumer forwarded
			}
			var calls atomic.Int64
			e.start(e.config("s"), streamkit.HandlerFunc(func(ctx context.Context, m *streamkit.Message) (streamkit.Result, error) {
				calls.Add(1)
				return writeResult(ctx, m)
			}))
			e.eventually("PEL empty", 10*time.Second, func() bool { return e.pending("s", "s-group") == 0 })
			if n := calls.Load(); n != 0 {
				t.Errorf("handler ran %d times; finished work must not be redone", n)
			}
			if rows, sum := e.resultRows(); rows != 5 || sum != 5 {
				t.Errorf("results: %d rows, %d writes; want 5, 5", rows, sum)
			}
			if n := e.xlen(e.keys("next").Stream()); n != tc.wantNextEntries {
				t.Errorf("next stream has %d entries, want %d", n, tc.wantNextEntries)
			}

			// Downstream, the ledger absorbs any duplicate: each doc once.
			e.start(e.config("next"), streamkit.HandlerFunc(func(ctx context.Context, m *streamkit.Message) (streamkit.Result, error) {
				return streamkit.Result{DocID: m.Get("doc_id")}, nil
			}))
			e.eventually("downstream drained", 10*time.Second, func() bool {
				return e.pending("next", "next-group") == 0 && e.ledgerCount("next") == 5
			})
		})
	}
}

func TestConsumer_KeepsLeaseOfSlowHandler(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.resultTable()
	e.publish("s", 1)
	cfg := e.config("s")
	var calls atomic.Int64
	slow := streamkit.HandlerFunc(func(ctx context.Context, m *streamkit.Message) (streamkit.Result, error) {
		calls.Add(1)
		select {
		case <-time.After(3 * cfg.Visibility):
		case <-ctx.Done():
			return streamkit.Result{}, ctx.Err()
		}
		return writeResult(ctx, m)
	})
	// Two consumers: the idle one would steal the entry if the lease lapsed.
	e.start(cfg, slow)
	e.start(cfg, slow)
	e.eventually("processed", 10*time.Second, func() bool { return e.ledgerCount("s") == 1 })
	time.Sleep(cfg.Visibility) // a late steal would show up as a second call
	if n := calls.Load(); n != 1 {
		t.Fatalf("slow handler ran %d times, want 1", n)
	}
	if rows, sum := e.resultRows(); rows != 1 || sum != 1 {
		t.Fatalf("results: %d rows, %d writes; want 1, 1", rows, sum)
	}
}

func TestConsumer_PoisonGoesToDLQ(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.resultTable()
	e.publish("s", 20)
	cfg := e.config("s")
	cfg.MaxDeliveries = 3
	var poisonCalls atomic.Int64
	e.start(cfg, streamkit.HandlerFunc(func(ctx context.Context, m *streamkit.Message) (streamkit.Result, error) {
		if m.Get("doc_id") == "doc-7" {
			poisonCalls.Add(1)
			panic("boom")
		}
		return writeResult(ctx, m)
	}))
	e.eventually("19 good entries processed", 10*time.Second, func() bool { return e.ledgerCount("s") == 19 })
	e.eventually("poison dead-lettered", 15*time.Second, func() bool { return e.xlen(e.keys("s").DLQ()) == 1 })
	e.eventually("PEL empty", 5*time.Second, func() bool { return e.pending("s", "s-group") == 0 })

	admin := &streamkit.Admin{RDB: e.RDB, Prefix: e.Prefix}
	dl, err := admin.DLQList(context.Background(), "s", streamkit.DLQFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if dl[0].ErrorType != streamkit.ErrorTypePoison || dl[0].Fields["doc_id"] != "doc-7" || dl[0].Stage != "s" {
		t.Fatalf("dead letter = %+v, want poison of doc-7", dl[0])
	}
	if n := poisonCalls.Load(); n < 1 || n > cfg.MaxDeliveries {
		t.Fatalf("poison handler ran %d times, want 1..%d", n, cfg.MaxDeliveries)
	}
}

func TestConsumer_RetriesThenDeadLettersThenReplays(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.resultTable()
	e.publish("s", 3) // doc-0 transient twice, doc-1 permanent, doc-2 fine
	cfg := e.config("s")
	var mu sync.Mutex
	seen := map[string][]time.Time{}
	fixed := atomic.Bool{}
	h := streamkit.HandlerFunc(func(ctx context.Context, m *streamkit.Message) (streamkit.Result, error) {
		doc := m.Get("doc_id")
		mu.Lock()
		seen[doc] = append(seen[doc], time.Now())
		n := len(seen[doc])
		mu.Unlock()
		switch {
		case doc == "doc-0" && n <= 2:
			return streamkit.Result{}, errors.New("upstream flaked")
		case doc == "doc-1" && !fixed.Load():
			return streamkit.Result{}, streamkit.Permanent("not_found", errors.New("HTTP 404"))
		}
		return writeResult(ctx, m)
	})
	e.start(cfg, h)
	e.eventually("doc-0 and doc-2 done, doc-1 dead", 10*time.Second, func() bool {
		return e.ledgerCount("s") == 2 && e.xlen(e.keys("s").DLQ()) == 1
	})
	mu.Lock()
	t0 := seen["doc-0"]
	mu.Unlock()
	if len(t0) != 3 {
		t.Fatalf("doc-0 handled %d times, want 3", len(t0))
	}
	if d1, d2 := t0[1].Sub(t0[0]), t0[2].Sub(t0[1]); d1 < 35*time.Millisecond || d2 < 70*time.Millisecond {
		t.Errorf("retry delays %s, %s: want about 50ms then 100ms (±20%%)", d1, d2)
	}
	admin := &streamkit.Admin{RDB: e.RDB, Prefix: e.Prefix}
	ctx := context.Background()
	dl, err := admin.DLQList(ctx, "s", streamkit.DLQFilter{ErrorType: "not_found"})
	if err != nil || len(dl) != 1 {
		t.Fatalf("DLQList = %v, %v; want one not_found letter", dl, err)
	}
	if d := dl[0]; d.Fields["doc_id"] != "doc-1" || d.Error != "HTTP 404" || d.Attempts != 1 || d.FailedAt == "" || d.Consumer == "" {
		t.Fatalf("dead letter lacks context: %+v", d)
	}
	counts, _ := admin.DLQCounts(ctx, "s")
	if counts["not_found"] != 1 {
		t.Fatalf("DLQCounts = %v", counts)
	}

	fixed.Store(true)
	n, err := admin.DLQReplay(ctx, "s", streamkit.DLQFilter{ErrorType: "not_found"})
	if err != nil || n != 1 {
		t.Fatalf("replay = %d, %v", n, err)
	}
	e.eventually("replayed entry processed", 10*time.Second, func() bool { return e.ledgerCount("s") == 3 })
	if got := e.xlen(e.keys("s").DLQ()); got != 0 {
		t.Fatalf("DLQ still has %d entries after replay", got)
	}
	e.eventually("retry set and PEL empty", 5*time.Second, func() bool {
		return e.zcard(e.keys("s").Retry()) == 0 && e.pending("s", "s-group") == 0
	})
}

func TestConsumer_LastAttemptDeadLetters(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.publish("s", 1)
	cfg := e.config("s")
	cfg.MaxAttempts = 3
	var calls atomic.Int64
	e.start(cfg, streamkit.HandlerFunc(func(ctx context.Context, m *streamkit.Message) (streamkit.Result, error) {
		calls.Add(1)
		return streamkit.Result{}, streamkit.Retryable("model_timeout", errors.New("slow model"))
	}))
	e.eventually("dead-lettered after 3 attempts", 10*time.Second, func() bool { return e.xlen(e.keys("s").DLQ()) == 1 })
	admin := &streamkit.Admin{RDB: e.RDB, Prefix: e.Prefix}
	dl, _ := admin.DLQList(context.Background(), "s", streamkit.DLQFilter{})
	if dl[0].ErrorType != "model_timeout" || dl[0].Attempts != 3 || calls.Load() != 3 {
		t.Fatalf("dead letter %+v after %d calls; want model_timeout after 3", dl[0], calls.Load())
	}
}

func TestConsumer_BadInputDeadLettered(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	e.RDB.XAdd(ctx, &redis.XAddArgs{Stream: e.keys("s").Stream(), Values: []string{"garbage", "\x00\xff"}})
	e.publish("s", 1)
	e.start(e.config("s"), streamkit.HandlerFunc(func(ctx context.Context, m *streamkit.Message) (streamkit.Result, error) {
		return streamkit.Result{}, nil
	}))
	e.eventually("good one processed, bad one dead", 10*time.Second, func() bool {
		return e.ledgerCount("s") == 1 && e.xlen(e.keys("s").DLQ()) == 1
	})
	admin := &streamkit.Admin{RDB: e.RDB, Prefix: e.Prefix}
	dl, _ := admin.DLQList(ctx, "s", streamkit.DLQFilter{})
	if dl[0].ErrorType != streamkit.ErrorTypeBadMessage || dl[0].Fields["garbage"] != "\x00\xff" {
		t.Fatalf("dead letter = %+v, want bad_message with the original fields", dl[0])
	}
}

func TestConsumer_TrimmedPendingEntryCountedLost(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.publish("s", 3)
	msgs := e.deliverToDeadConsumer("s", "s-group", 3)
	e.RDB.XDel(context.Background(), e.keys("s").Stream(), msgs[1].ID)
	e.start(e.config("s"), streamkit.HandlerFunc(func(ctx context.Context, m *streamkit.Message) (streamkit.Result, error) {
		return streamkit.Result{}, nil
	}))
	e.eventually("PEL empty, two processed", 10*time.Second, func() bool {
		return e.pending("s", "s-group") == 0 && e.ledgerCount("s") == 2
	})
}

func TestPromote_ConcurrentPromotersMoveEachRetryOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	k := e.keys("s")
	const n = 2000
	for i := range n {
		member := fmt.Sprintf(`{"id":"0-%d","f":{"doc_id":"doc-%d","attempt":"1"}}`, i, i)
		e.RDB.ZAdd(ctx, k.Retry(), redis.Z{Score: 1, Member: member})
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				moved, _, err := streamkit.Promote(ctx, e.RDB, k, 50)
				if err != nil {
					t.Error(err)
					return
				}
				if moved == 0 {
					return
				}
			}
		}()
	}
	wg.Wait()
	msgs, err := e.RDB.XRange(ctx, k.Stream(), "-", "+").Result()
	if err != nil {
		t.Fatal(err)
	}
	docs := map[string]int{}
	for _, m := range msgs {
		docs[m.Values["doc_id"].(string)]++
	}
	if len(msgs) != n || len(docs) != n {
		t.Fatalf("stream has %d entries for %d docs, want %d each once", len(msgs), len(docs), n)
	}
	if left := e.zcard(k.Retry()); left != 0 {
		t.Fatalf("retry set still has %d", left)
	}
}

func TestProducer_BackpressureHoldsBurst(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	if err := streamkit.EnsureGroup(ctx, e.RDB, e.keys("s").Stream(), "s-group"); err != nil {
		t.Fatal(err)
	}
	p := streamkit.NewProducer(e.RDB, e.Prefix, 100)
	burst, cancel := context.WithTimeout(ctx, 700*time.Millisecond)
	defer cancel()
	published := 0
	var err error
	for range 1000 {
		if _, err = p.Publish(burst, "s", map[string]string{"doc_id": "d", "content_hash": "h"}); err != nil {
			break
		}
		published++
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("producer was not held: published %d, err %v", published, err)
	}
	if n := e.xlen(e.keys("s").Stream()); n > 101 || n < 100 {
		t.Fatalf("stream grew to %d entries under a high-water mark of 100", n)
	}

	// Once a consumer drains the stage, the producer moves again.
	e.start(e.config("s"), streamkit.HandlerFunc(func(ctx context.Context, m *streamkit.Message) (streamkit.Result, error) {
		return streamkit.Result{}, nil
	}))
	later, cancel2 := context.WithTimeout(ctx, 10*time.Second)
	defer cancel2()
	if _, err := p.Publish(later, "s", map[string]string{"doc_id": "d2", "content_hash": "h"}); err != nil {
		t.Fatalf("producer still held after the consumer drained: %v", err)
	}
}

func TestConsumer_PausesWhileDownstreamSaturated(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	if err := streamkit.EnsureGroup(ctx, e.RDB, e.keys("next").Stream(), "next-group"); err != nil {
		t.Fatal(err)
	}
	e.publish("next", 50) // downstream already over its mark
	e.publish("s", 10)
	cfg := e.config("s")
	cfg.Downstream, cfg.HighWater = "next", 20
	e.resultTable()
	e.start(cfg, streamkit.HandlerFunc(writeResult))
	time.Sleep(500 * time.Millisecond)
	if n := e.ledgerCount("s"); n != 0 {
		t.Fatalf("consumer processed %d entries while downstream was saturated", n)
	}
	e.RDB.XTrimMaxLen(ctx, e.keys("next").Stream(), 0)
	e.RDB.XGroupSetID(ctx, e.keys("next").Stream(), "next-group", "$")
	e.eventually("resumed after downstream drained", 10*time.Second, func() bool { return e.ledgerCount("s") == 10 })
}

func TestTrim_NeverPastWhatAGroupNeeds(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	stream := e.keys("s").Stream()
	e.publish("s", 100)
	all, _ := e.RDB.XRange(ctx, stream, "-", "+").Result()
	for _, g := range []string{"fast", "lagging"} {
		if err := streamkit.EnsureGroup(ctx, e.RDB, stream, g); err != nil {
			t.Fatal(err)
		}
	}
	// fast read and acked everything; lagging read 60, acked all but #30.
	fast, _ := e.RDB.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "fast", Consumer: "c", Streams: []string{stream, ">"}, Count: 100}).Result()
	for _, m := range fast[0].Messages {
		e.RDB.XAck(ctx, stream, "fast", m.ID)
	}
	lag, _ := e.RDB.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "lagging", Consumer: "c", Streams: []string{stream, ">"}, Count: 60}).Result()
	for i, m := range lag[0].Messages {
		if i != 30 {
			e.RDB.XAck(ctx, stream, "lagging", m.ID)
		}
	}

	removed, err := streamkit.Trim(ctx, e.RDB, stream, 0)
	if err != nil {
		t.Fatal(err)
	}
	if removed != 30 {
		t.Fatalf("trimmed %d entries, want exactly the 30 before the lagging group's oldest pending", removed)
	}
	left, _ := e.RDB.XRange(ctx, stream, "-", "+").Result()
	if len(left) != 70 || left[0].ID != all[30].ID {
		t.Fatalf("stream starts at %s with %d entries; want %s with 70", left[0].ID, len(left), all[30].ID)
	}

	// Acking #30 lets the trim reach the lagging group's undelivered entries, not past them.
	e.RDB.XAck(ctx, stream, "lagging", all[30].ID)
	if removed, _ = streamkit.Trim(ctx, e.RDB, stream, 10); removed != 20 {
		t.Fatalf("trim with retain 10 removed %d, want 20 (60 finished, keep 10 of them... first 30 gone)", removed)
	}
	left, _ = e.RDB.XRange(ctx, stream, "-", "+").Result()
	if len(left) != 50 || left[0].ID != all[50].ID {
		t.Fatalf("stream starts at %s with %d entries; want %s with 50", left[0].ID, len(left), all[50].ID)
	}
}

// Not parallel: it loads both cores, and runs before the parallel tests.
func TestConsumer_ManyConsumersRandomFailures(t *testing.T) {
	e := newEnv(t)
	e.resultTable()
	const n = 10000
	e.publish("s", n)
	cfg := e.config("s")
	cfg.BatchSize, cfg.Concurrency, cfg.MaxAttempts = 100, 8, 20
	cfg.RetryBase, cfg.RetryMax = 10*time.Millisecond, 50*time.Millisecond
	// Reclaiming is other tests' subject: a longer visibility and a high
	// delivery ceiling keep a stalled machine from making poison here.
	cfg.Visibility, cfg.MaxDeliveries = 2*time.Second, 20
	var calls atomic.Int64
	h := streamkit.HandlerFunc(func(ctx context.Context, m *streamkit.Message) (streamkit.Result, error) {
		calls.Add(1)
		if rand.IntN(10) == 0 {
			return streamkit.Result{}, errors.New("random failure")
		}
		return writeResult(ctx, m)
	})
	for range 4 {
		e.start(cfg, h)
	}
	// A dead letter would keep the ledger short for good: stop at once.
	e.eventually("all 10,000 keys in the ledger", 90*time.Second, func() bool {
		return e.ledgerCount("s") == n || e.xlen(e.keys("s").DLQ()) > 0
	})
	e.eventually("PEL and retry set empty", 10*time.Second, func() bool {
		return e.pending("s", "s-group") == 0 && e.zcard(e.keys("s").Retry()) == 0
	})
	// Every message's writes committed (the upsert counts re-runs, which
	// at-least-once allows), none dead-lettered.
	rows, writes := e.resultRows()
	if rows != n || e.xlen(e.keys("s").DLQ()) != 0 {
		t.Fatalf("%d of %d documents written, %d dead letters\n%s", rows, n, e.xlen(e.keys("s").DLQ()), e.report())
	}
	t.Logf("%d handler calls, %d committed writes for %d messages", calls.Load(), writes, n)
}

func TestConsumer_GracefulShutdownLetsInFlightFinish(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.resultTable()
	e.publish("s", 1)
	started := make(chan struct{})
	stop := e.start(e.config("s"), streamkit.HandlerFunc(func(ctx context.Context, m *streamkit.Message) (streamkit.Result, error) {
		close(started)
		time.Sleep(300 * time.Millisecond)
		return writeResult(ctx, m)
	}))
	<-started
	stop() // returns once Run has returned
	if n := e.ledgerCount("s"); n != 1 {
		t.Fatalf("in-flight work was not finished on shutdown: %d ledger rows", n)
	}
	if p := e.pending("s", "s-group"); p != 0 {
		t.Fatalf("PEL = %d after graceful shutdown", p)
	}
}

func TestConsumer_EndlessRateLimitEnds(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.publish("s", 1)
	cfg := e.config("s")
	cfg.MaxDeferrals, cfg.MaxAttempts = 3, 2
	var calls atomic.Int64
	e.start(cfg, streamkit.HandlerFunc(func(ctx context.Context, m *streamkit.Message) (streamkit.Result, error) {
		calls.Add(1)
		return streamkit.Result{}, streamkit.RetryAfter(10*time.Millisecond, errors.New("429 Too Many Requests"))
	}))
	e.eventually("dead-lettered", 10*time.Second, func() bool { return e.xlen(e.keys("s").DLQ()) == 1 })
	admin := &streamkit.Admin{RDB: e.RDB, Prefix: e.Prefix}
	dl, _ := admin.DLQList(context.Background(), "s", streamkit.DLQFilter{})
	// 3 deferrals are free, the 4th call counts attempt 1, the 5th attempt 2.
	if n := calls.Load(); n != 5 || dl[0].ErrorType != "rate_limited" {
		t.Fatalf("%d calls, dead letter %+v; want 5 calls then rate_limited", n, dl[0])
	}
}

// Later sends a message back without failing it: no attempt is counted,
// the failure metrics stay at zero, and the work is done once it returns.
func TestConsumer_LaterIsNoFailure(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.resultTable()
	e.publish("s", 1)
	cfg := e.config("s")
	cfg.MaxAttempts = 2 // two failures would dead-letter it
	reg := prometheus.NewRegistry()
	cfg.Metrics = streamkit.NewMetrics("", reg)
	var calls atomic.Int64
	e.start(cfg, streamkit.HandlerFunc(func(ctx context.Context, m *streamkit.Message) (streamkit.Result, error) {
		if calls.Add(1) <= 3 {
			return streamkit.Result{}, streamkit.Later(10*time.Millisecond, "host slot ahead")
		}
		return writeResult(ctx, m)
	}))
	e.eventually("processed after three deferrals", 10*time.Second, func() bool { return e.ledgerCount("s") == 1 })
	if n := e.xlen(e.keys("s").DLQ()); n != 0 {
		t.Fatalf("%d dead letters", n)
	}
	count := func(name string) float64 { return counter(t, reg, name) }
	if d, f, r := count("streamkit_stage_deferred_total"), count("streamkit_stage_failed_total"), count("streamkit_stage_retried_total"); d != 3 || f != 0 || r != 0 {
		t.Fatalf("deferred_total %v, failed_total %v, retried_total %v; want 3, 0, 0", d, f, r)
	}
}

// A guard's expiry is not the message's fault: tries that ran away come
// back with no attempt spent, and the run after them succeeds; a message
// that runs away MaxRunaways times in a row is dead-lettered "runaway" with
// how long each try took, and an ordinary failure between runaways starts
// the count again.
func TestConsumer_RunawayIsNoAttemptUntilItRepeats(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		outcomes  string // per call: r = runaway, f = ordinary failure, L = Later, ok = done
		wantDLQ   bool
		wantCalls int64
	}{
		{name: "two runaways then done", outcomes: "rrok", wantCalls: 3},
		{name: "three in a row", outcomes: "rrr", wantDLQ: true, wantCalls: 3},
		{name: "a failure between restarts the count", outcomes: "rrfrrok", wantCalls: 6},
		{name: "a deferral between does not", outcomes: "rLrr", wantDLQ: true, wantCalls: 4},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			e.resultTable()
			e.publish("s", 1)
			cfg := e.config("s")
			cfg.MaxAttempts, cfg.MaxRunaways = 2, 3 // two ordinary failures would dead-letter it
			steps := []string{}
			for i := 0; i < len(tc.outcomes); i++ {
				if tc.outcomes[i:] == "ok" {
					steps = append(steps, "ok")
					break
				}
				steps = append(steps, tc.outcomes[i:i+1])
			}
			var calls atomic.Int64
			e.start(cfg, streamkit.HandlerFunc(func(ctx context.Context, m *streamkit.Message) (streamkit.Result, error) {
				n := int(calls.Add(1))
				switch steps[min(n, len(steps))-1] {
				case "r":
					return streamkit.Result{}, streamkit.Runaway(time.Duration(n)*time.Second, errors.New("extraction guard ran out"))
				case "f":
					return streamkit.Result{}, errors.New("transient")
				case "L":
					return streamkit.Result{}, streamkit.Later(10*time.Millisecond, "host slot ahead")
				}
				if got := m.Attempt; got != strings.Count(tc.outcomes, "f") {
					return streamkit.Result{}, streamkit.Permanent("wrong_attempt", fmt.Errorf("attempt %d", got))
				}
				return writeResult(ctx, m)
			}))
			if tc.wantDLQ {
				e.eventually("dead-lettered", 10*time.Second, func() bool { return e.xlen(e.keys("s").DLQ()) == 1 })
				admin := &streamkit.Admin{RDB: e.RDB, Prefix: e.Prefix}
				dl, _ := admin.DLQList(context.Background(), "s", streamkit.DLQFilter{})
				if dl[0].ErrorType != streamkit.ErrorTypeRunaway || !strings.Contains(dl[0].Error, "3 times in a row") {
					t.Fatalf("dead letter %+v; want runaway with the three times", dl[0])
				}
			} else {
				e.eventually("processed", 10*time.Second, func() bool { return e.ledgerCount("s") == 1 })
				if n := e.xlen(e.keys("s").DLQ()); n != 0 {
					t.Fatalf("%d dead letters", n)
				}
			}
			if n := calls.Load(); n != tc.wantCalls {
				t.Fatalf("%d calls, want %d", n, tc.wantCalls)
			}
		})
	}
}

// Dead letters stay until an operator removes them; --older-than selects by
// the time each was written (its stream id).
func TestAdmin_DLQSelectsByAge(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	for _, id := range []string{"1000-0", "2000-0", "2000-1", "3000-0"} {
		if err := e.RDB.XAdd(ctx, &redis.XAddArgs{Stream: e.keys("s").DLQ(), ID: id, Values: []string{
			streamkit.DLQFieldStage, "s", streamkit.DLQFieldErrorType, "not_found"}}).Err(); err != nil {
			t.Fatal(err)
		}
	}
	admin := &streamkit.Admin{RDB: e.RDB, Prefix: e.Prefix}
	ids := func(f streamkit.DLQFilter) []string {
		dl, err := admin.DLQList(ctx, "s", f)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, d := range dl {
			out = append(out, d.ID)
		}
		return out
	}
	if got := ids(streamkit.DLQFilter{Before: time.UnixMilli(2000)}); fmt.Sprint(got) != "[1000-0]" {
		t.Fatalf("before 2000 ms: %v", got)
	}
	if got := ids(streamkit.DLQFilter{Before: time.UnixMilli(2001)}); fmt.Sprint(got) != "[1000-0 2000-0 2000-1]" {
		t.Fatalf("before 2001 ms: %v", got)
	}
	n, err := admin.DLQPurge(ctx, "s", streamkit.DLQFilter{Before: time.UnixMilli(2500)})
	if err != nil || n != 3 {
		t.Fatalf("purged %d (%v), want 3", n, err)
	}
	if got := ids(streamkit.DLQFilter{}); fmt.Sprint(got) != "[3000-0]" {
		t.Fatalf("left: %v", got)
	}
}

// A handler that ignores cancellation outlives the consumer's shutdown; when
// it finally returns a result, nothing may panic (the commits channel was
// once closed under it) and the entry stays pending for another consumer.
func TestConsumer_HandlerReturningAfterShutdownLeavesEntryPending(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.resultTable()
	e.publish("s", 1)
	cfg := e.config("s")
	cfg.GracePeriod = 100 * time.Millisecond
	started, release, returned := make(chan struct{}), make(chan struct{}), make(chan struct{})
	stop := e.start(cfg, streamkit.HandlerFunc(func(ctx context.Context, m *streamkit.Message) (streamkit.Result, error) {
		defer close(returned)
		close(started)
		<-release // deaf to ctx
		return writeResult(context.Background(), m)
	}))
	<-started
	stop() // gives up on the handler after the grace period and 5 s more
	close(release)
	<-returned
	time.Sleep(100 * time.Millisecond) // a panic in the consumer's goroutines would end the test binary here
	if n := e.ledgerCount("s"); n != 0 {
		t.Fatalf("%d ledger rows: a result after shutdown was committed", n)
	}
	if p := e.pending("s", "s-group"); p != 1 {
		t.Fatalf("PEL = %d, want the abandoned entry still pending", p)
	}
}

// The gate counts what this consumer holds, not only what it reads: with
// nobody consuming downstream, the next stream stops at the high-water
// mark instead of overshooting by the read-ahead window.
func TestConsumer_DownstreamStopsAtItsHighWaterMark(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	if err := streamkit.EnsureGroup(ctx, e.RDB, e.keys("next").Stream(), "next-group"); err != nil {
		t.Fatal(err)
	}
	e.publish("s", 200)
	cfg := e.config("s")
	cfg.Downstream, cfg.HighWater = "next", 30
	e.resultTable()
	e.start(cfg, streamkit.HandlerFunc(writeResult))
	e.eventually("the downstream stream filled", 10*time.Second, func() bool { return e.xlen(e.keys("next").Stream()) >= 25 })
	time.Sleep(time.Second) // an overshoot would have landed by now
	if n := e.xlen(e.keys("next").Stream()); n > cfg.HighWater {
		t.Fatalf("downstream holds %d entries, over its high-water mark of %d", n, cfg.HighWater)
	}
}
