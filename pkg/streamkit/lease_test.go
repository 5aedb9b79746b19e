package streamkit_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/newscrawl/newscrawl/pkg/streamkit"
	"github.com/newscrawl/newscrawl/pkg/streamkit/streamkittest"
)

// starts counts handler starts per doc_id, and how many run at once.
type starts struct {
	mu      sync.Mutex
	n       map[string]int
	running map[string]int
	overlap int // times a start found the same doc already running
}

func newStarts() *starts { return &starts{n: map[string]int{}, running: map[string]int{}} }

func (s *starts) begin(doc string) (end func()) {
	s.mu.Lock()
	s.n[doc]++
	if s.running[doc] > 0 {
		s.overlap++
	}
	s.running[doc]++
	s.mu.Unlock()
	return func() { s.mu.Lock(); s.running[doc]--; s.mu.Unlock() }
}

// twice lists the docs started more than once.
func (s *starts) twice() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for doc, n := range s.n {
		if n > 1 {
			out = append(out, doc)
		}
	}
	return out
}

// holdAll waits until consumer name of group holds all n entries of stage.
func (e *env) holdAll(stage, group string, n int64) {
	e.T.Helper()
	e.eventually(fmt.Sprintf("%d entries held by the first consumer", n), 5*time.Second, func() bool {
		return e.pending(stage, group) == n
	})
}

// counter sums a counter's children in reg.
func counter(t *testing.T, reg *prometheus.Registry, name string) (n float64) {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == name {
			for _, m := range mf.GetMetric() {
				n += m.GetCounter().GetValue()
			}
		}
	}
	return n
}

// Entries read ahead wait in the local queue for a worker, longer than the
// visibility; their lease covers that wait, so a second consumer never
// reclaims them and nothing runs twice.
func TestConsumer_QueuedEntriesKeepTheirLease(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.resultTable()
	e.publish("s", 24)
	cfg := e.config("s")
	cfg.Concurrency = 1
	cfg.BatchSize = 30
	cfg.HandlerTimeout = cfg.Visibility // short: the queue wait must not count against it
	st := newStarts()
	h := streamkit.HandlerFunc(func(ctx context.Context, m *streamkit.Message) (streamkit.Result, error) {
		defer st.begin(m.Get("doc_id"))()
		time.Sleep(cfg.Visibility / 3)
		return writeResult(ctx, m)
	})
	e.start(cfg, h)
	e.holdAll("s", "s-group", 24) // the last waits 8 × visibility/3 for the single worker
	e.start(cfg, h)               // would reclaim any entry whose lease lapsed
	e.eventually("all processed", 20*time.Second, func() bool { return e.ledgerCount("s") == 24 })
	if twice := st.twice(); len(twice) > 0 {
		t.Fatalf("started more than once: %v", twice)
	}
	if rows, sum := e.resultRows(); rows != 24 || sum != 24 {
		t.Fatalf("results: %d rows, %d writes; want 24, 24", rows, sum)
	}
}

// Time a handler spends in streamkit.Wait (a rate limiter) counts neither
// against its deadline nor against its lease.
func TestConsumer_WaitIsOutsideTheDeadlineAndLeased(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.resultTable()
	e.publish("s", 3)
	cfg := e.config("s")
	cfg.HandlerTimeout = 200 * time.Millisecond
	cfg.MaxAttempts = 1 // a timeout would dead-letter at once
	st := newStarts()
	h := streamkit.HandlerFunc(func(ctx context.Context, m *streamkit.Message) (streamkit.Result, error) {
		defer st.begin(m.Get("doc_id"))()
		err := streamkit.Wait(ctx, func(ctx context.Context) error {
			select { // a limiter holding the handler past the visibility and the deadline
			case <-time.After(3 * cfg.Visibility):
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
		if err != nil {
			return streamkit.Result{}, err
		}
		time.Sleep(50 * time.Millisecond) // its own work, inside the deadline
		return writeResult(ctx, m)
	})
	e.start(cfg, h)
	e.holdAll("s", "s-group", 3)
	e.start(cfg, h)
	e.eventually("all processed", 10*time.Second, func() bool { return e.ledgerCount("s") == 3 })
	if n := e.xlen(e.keys("s").DLQ()); n != 0 {
		t.Fatalf("%d dead letters: the wait counted against the deadline", n)
	}
	if twice := st.twice(); len(twice) > 0 {
		t.Fatalf("started more than once (reclaimed while waiting): %v", twice)
	}
}

// A handler past its deadline is cancelled, and only after it returned is
// the entry retried: never two runs of it at once, here or elsewhere.
func TestConsumer_HandlerPastDeadlineCancelledBeforeRedelivery(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.publish("s", 1)
	cfg := e.config("s")
	cfg.HandlerTimeout = 150 * time.Millisecond
	cfg.MaxRunaways = 3
	st := newStarts()
	var cancelled atomic.Int64
	h := streamkit.HandlerFunc(func(ctx context.Context, m *streamkit.Message) (streamkit.Result, error) {
		defer st.begin(m.Get("doc_id"))()
		<-ctx.Done()
		cancelled.Add(1)
		time.Sleep(3 * cfg.Visibility / 2) // slow to give up: a redelivery now would overlap
		return streamkit.Result{}, ctx.Err()
	})
	e.start(cfg, h)
	e.start(cfg, h)
	e.eventually("dead-lettered after 3 runaways", 15*time.Second, func() bool { return e.xlen(e.keys("s").DLQ()) == 1 })
	admin := &streamkit.Admin{RDB: e.RDB, Prefix: e.Prefix}
	dl, err := admin.DLQList(context.Background(), "s", streamkit.DLQFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if dl[0].ErrorType != streamkit.ErrorTypeRunaway || dl[0].Attempts != 1 {
		t.Fatalf("dead letter %+v, want error type runaway with no attempt spent", dl[0])
	}
	if n := cancelled.Load(); n != 3 {
		t.Fatalf("handler cancelled %d times, want 3", n)
	}
	if st.overlap != 0 {
		t.Fatalf("%d starts while a previous run was still going", st.overlap)
	}
}

// Two consumers fail the same entry (one of them had it taken over while
// it ran): only its owner schedules the retry, so no second copy appears.
func TestConsumer_TwoConsumersFailingOneEntryRetryOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.publish("s", 1)
	ctx := context.Background()
	stream := e.keys("s").Stream()
	cfgA := e.config("s")
	cfgA.Consumer = "A"
	var succeeded atomic.Int64
	claimed, bSucceeded := make(chan struct{}), make(chan struct{}) // bSucceeded: the retry succeeded
	var once sync.Once
	e.start(cfgA, streamkit.HandlerFunc(func(ctx context.Context, m *streamkit.Message) (streamkit.Result, error) {
		if m.Attempt > 0 {
			defer once.Do(func() { close(bSucceeded) })
			succeeded.Add(1)
			return streamkit.Result{DocID: m.Get("doc_id")}, nil
		}
		// B takes the entry over while A works on it (A looked stalled).
		if err := e.RDB.XClaim(context.Background(), &redis.XClaimArgs{Stream: stream, Group: "s-group", Consumer: "B",
			Messages: []string{m.ID}}).Err(); err != nil {
			t.Error(err)
		}
		close(claimed)
		<-bSucceeded // A fails only after B failed it and its retry went through
		return streamkit.Result{}, errors.New("A failed")
	}))
	<-claimed
	cfgB := e.config("s")
	cfgB.Consumer = "B"
	e.start(cfgB, streamkit.HandlerFunc(func(ctx context.Context, m *streamkit.Message) (streamkit.Result, error) {
		if m.Attempt > 0 {
			defer once.Do(func() { close(bSucceeded) })
			succeeded.Add(1)
			return streamkit.Result{DocID: m.Get("doc_id")}, nil
		}
		return streamkit.Result{}, errors.New("B failed")
	}))
	e.eventually("the retry processed", 10*time.Second, func() bool { return e.ledgerCount("s") == 1 && succeeded.Load() >= 1 })
	time.Sleep(5 * cfgA.PromoteInterval) // a second retry copy would be promoted by now
	e.eventually("PEL and retry set empty", 5*time.Second, func() bool {
		return e.pending("s", "s-group") == 0 && e.zcard(e.keys("s").Retry()) == 0
	})
	if n, _ := e.RDB.XLen(ctx, stream).Result(); n != 2 {
		t.Fatalf("stream has %d entries, want 2 (the original and one retry)", n)
	}
}

// Bad keys in a batch of good entries: only the bad entries are dead
// letters, as bad_message, and no good one is retried.
func TestConsumer_BadKeysDeadLetteredAlone(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.resultTable()
	e.publish("s", 40)
	long := make([]byte, 8200)
	for i := range long {
		long[i] = 'x'
	}
	for _, doc := range []string{"nul\x00doc", string(long), "bad\xffutf8"} {
		if err := e.RDB.XAdd(context.Background(), &redis.XAddArgs{Stream: e.keys("s").Stream(),
			Values: map[string]interface{}{"doc_id": doc, "content_hash": "h"}}).Err(); err != nil {
			t.Fatal(err)
		}
	}
	cfg := e.config("s")
	cfg.BatchSize = 50
	reg := prometheus.NewRegistry()
	cfg.Metrics = streamkit.NewMetrics("", reg)
	e.start(cfg, streamkit.HandlerFunc(writeResult))
	e.eventually("good entries processed", 10*time.Second, func() bool { return e.ledgerCount("s") == 40 })
	e.eventually("bad entries dead-lettered", 5*time.Second, func() bool { return e.xlen(e.keys("s").DLQ()) == 3 })
	admin := &streamkit.Admin{RDB: e.RDB, Prefix: e.Prefix}
	counts, err := admin.DLQCounts(context.Background(), "s")
	if err != nil {
		t.Fatal(err)
	}
	if counts[streamkit.ErrorTypeBadMessage] != 3 {
		t.Fatalf("dead letters by type %v, want 3 bad_message", counts)
	}
	if r, f := counter(t, reg, "streamkit_stage_retried_total"), counter(t, reg, "streamkit_stage_failed_total"); r != 0 || f != 0 {
		t.Fatalf("retried_total %v, failed_total %v; want 0, 0", r, f)
	}
	if rows, sum := e.resultRows(); rows != 40 || sum != 40 {
		t.Fatalf("results: %d rows, %d writes; want 40, 40", rows, sum)
	}
}

// A consumer that was stalled (SIGSTOP) past its visibility finds, when it
// resumes, that another consumer took its entries over: it drops them
// instead of running them again. Only an entry its handler was already in
// when it stopped can run twice.
func TestConsumer_ResumedStalledConsumerRunsNothingTwice(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	if _, err := e.Pool.Exec(context.Background(), `CREATE TABLE starts (doc_id text, consumer text)`); err != nil {
		t.Fatal(err)
	}
	e.resultTable()
	e.publish("s", 30)
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperStalledConsumer$")
	cmd.Env = append(os.Environ(), "STREAMKIT_HELPER=1", "HELPER_PREFIX="+e.Prefix,
		"HELPER_SCHEMA="+streamkittest.SchemaOf(e.Pool), "DATABASE_URL="+streamkittest.DatabaseURL())
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	e.holdAll("s", "s-group", 30)
	e.eventually("the helper's first start", 5*time.Second, func() bool { return e.count(`SELECT count(*) FROM starts`) > 0 })
	if err := cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	cfg := helperConfig(e.Prefix)
	e.start(cfg, startsHandler(e.Pool, "B"))
	e.eventually("B took over and finished everything", 20*time.Second, func() bool { return e.ledgerCount("s") == 30 })
	if err := cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	time.Sleep(4 * cfg.Visibility) // the helper's lease keeper and workers get their turn
	_ = cmd.Process.Signal(syscall.SIGTERM)
	_ = cmd.Wait()

	twice := e.count(`SELECT count(*) FROM (SELECT doc_id FROM starts GROUP BY doc_id HAVING count(*) > 1) d`)
	if twice > int64(cfg.Concurrency) {
		t.Fatalf("%d documents started twice; at most %d (the helper's handlers at the stop) may be", twice, cfg.Concurrency)
	}
	if p := e.pending("s", "s-group"); p != 0 {
		t.Fatalf("PEL = %d after the run", p)
	}
	if n := e.xlen(e.keys("s").DLQ()); n != 0 {
		t.Fatalf("%d dead letters", n)
	}
}

func (e *env) count(sql string) int64 {
	e.T.Helper()
	var n int64
	if err := e.Pool.QueryRow(context.Background(), sql).Scan(&n); err != nil {
		e.T.Fatal(err)
	}
	return n
}

func helperConfig(prefix string) streamkit.Config {
	return streamkit.Config{Prefix: prefix, Stage: "s", Group: "s-group", Visibility: 400 * time.Millisecond,
		Block: 100 * time.Millisecond, Concurrency: 1, BatchSize: 40, JanitorInterval: -1, Logger: testLogger()}
}

// startsHandler records each start in the starts table, then works 50 ms.
func startsHandler(pool *pgxpool.Pool, consumer string) streamkit.Handler {
	return streamkit.HandlerFunc(func(ctx context.Context, m *streamkit.Message) (streamkit.Result, error) {
		if _, err := pool.Exec(ctx, `INSERT INTO starts VALUES ($1, $2)`, m.Get("doc_id"), consumer); err != nil {
			return streamkit.Result{}, err
		}
		time.Sleep(50 * time.Millisecond)
		return writeResult(ctx, m)
	})
}

// TestHelperStalledConsumer is the consumer process that the stall test
// stops and resumes; it does nothing in a normal run.
func TestHelperStalledConsumer(t *testing.T) {
	if os.Getenv("STREAMKIT_HELPER") == "" {
		t.Skip("helper process of TestConsumer_ResumedStalledConsumerRunsNothingTwice")
	}
	rdb, _ := streamkittest.Redis(t)
	cfg, err := pgxpool.ParseConfig(os.Getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.ConnConfig.RuntimeParams["search_path"] = os.Getenv("HELPER_SCHEMA") + ",public"
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	ccfg := helperConfig(os.Getenv("HELPER_PREFIX"))
	ccfg.Consumer = "A"
	h := startsHandler(pool, "A")
	if os.Getenv("STREAMKIT_HELPER") == "stall-in-commit" {
		h = hotRowHandler(pool, func(ctx context.Context) {
			_, _ = pool.Exec(ctx, `INSERT INTO in_commit VALUES (1)`)
			time.Sleep(time.Minute) // the test stops this process here, inside the transaction
		})
	}
	c, err := streamkit.NewConsumer(rdb, pool, ccfg, h)
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := signalContext()
	defer stop()
	if err := c.Run(ctx); err != nil {
		t.Fatal(err)
	}
}

// signalContext is cancelled by SIGTERM.
func signalContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), syscall.SIGTERM)
}

// hotRowHandler's Commit updates the one row every entry shares, then
// calls inCommit (still inside the transaction, holding the row).
func hotRowHandler(pool *pgxpool.Pool, inCommit func(ctx context.Context)) streamkit.Handler {
	return streamkit.HandlerFunc(func(ctx context.Context, m *streamkit.Message) (streamkit.Result, error) {
		return streamkit.Result{DocID: m.Get("doc_id"), Commit: func(ctx context.Context, tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, `UPDATE hot SET n = n + 1`); err != nil {
				return err
			}
			if inCommit != nil {
				inCommit(ctx)
			}
			return nil
		}}, nil
	})
}

// A process stopped in the middle of a ledger transaction holds its row
// locks; the server ends that transaction after a few seconds (streamkit's
// transaction limits), so the other consumer's commits on the same row go
// through instead of queueing behind it for as long as it is stopped.
func TestConsumer_StalledTransactionDoesNotBlockOthers(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	if _, err := e.Pool.Exec(ctx, `CREATE TABLE hot (n int); INSERT INTO hot VALUES (0); CREATE TABLE in_commit (x int)`); err != nil {
		t.Fatal(err)
	}
	e.publish("s", 1)
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperStalledConsumer$")
	cmd.Env = append(os.Environ(), "STREAMKIT_HELPER=stall-in-commit", "HELPER_PREFIX="+e.Prefix,
		"HELPER_SCHEMA="+streamkittest.SchemaOf(e.Pool), "DATABASE_URL="+streamkittest.DatabaseURL())
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	e.eventually("the helper inside its commit", 10*time.Second, func() bool { return e.count(`SELECT count(*) FROM in_commit`) == 1 })
	if err := cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	e.publish("p", 10)
	cfg := e.config("p")
	e.start(cfg, hotRowHandler(e.Pool, nil))
	// The helper stays stopped throughout: only the server can free the row.
	e.eventually("the other consumer committed through the stalled one's row", 20*time.Second, func() bool { return e.ledgerCount("p") == 10 })
	if n := e.count(`SELECT n FROM hot`); n < 10 {
		t.Fatalf("hot row counted %d commits, want at least 10", n)
	}
}
