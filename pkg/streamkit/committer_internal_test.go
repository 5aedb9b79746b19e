package streamkit

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/redis/go-redis/v9"
)

// ledgerFor returns a pool on a fresh schema of DATABASE_URL holding
// streamkit's table alone, dropped when the test ends.
func ledgerFor(t *testing.T) *pgxpool.Pool {
	t.Helper()
	url := os.Getenv("DATABASE_URL")
	if url == "" {
		url = "postgres://postgres@127.0.0.1:5432/newscrawl_test?sslmode=disable"
	}
	ctx := context.Background()
	schema := "t_" + randomName()
	admin, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatalf("postgres at %s: %v", url, err)
	}
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatal(err)
	}
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	cfg.ConnConfig.RuntimeParams["search_path"] = schema
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		pool.Close()
		if c, err := pgx.Connect(context.Background(), url); err == nil {
			c.Exec(context.Background(), "DROP SCHEMA "+schema+" CASCADE")
			c.Close(context.Background())
		}
	})
	if err := Migrate(ctx, pool); err != nil {
		t.Fatal(err)
	}
	if err := Migrate(ctx, pool); err != nil { // idempotent: every worker runs it at start
		t.Fatalf("second Migrate: %v", err)
	}
	return pool
}

// The committer alone: a batch of handler results and one already in the
// ledger; the failing Commit's entry goes to fail, the others are written
// once, emitted downstream and acked, and every entry is finished.
func TestCommitter_CommitsEmitsAcksAndIsolatesAFailure(t *testing.T) {
	o, rdb := opsFor(t, "me")
	pool := ledgerFor(t)
	ctx := context.Background()
	ids := add(t, rdb, o.keys.Stream(), 4)
	if _, err := o.readNew(ctx, 4); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `CREATE TABLE out (doc text PRIMARY KEY)`); err != nil {
		t.Fatal(err)
	}
	part := &partition{ops: o, leases: newLeaseTable()}
	write := func(doc string) func(context.Context, pgx.Tx) error {
		return func(ctx context.Context, tx pgx.Tx) error {
			_, err := tx.Exec(ctx, `INSERT INTO out VALUES ($1)`, doc)
			return err
		}
	}
	broken := func(context.Context, pgx.Tx) error { return errors.New("disk full") }
	entry := func(i int, commit func(context.Context, pgx.Tx) error, finished bool) *ledgerEntry {
		doc := string(rune('a' + i))
		return &ledgerEntry{key: "s:" + doc, stage: "s", msg: &Message{ID: ids[i], part: part}, finished: finished,
			result: Result{Commit: commit, Emit: []Emit{{Stage: "next", Fields: map[string]string{"doc_id": doc}}}}}
	}
	in := make(chan *ledgerEntry, 4)
	in <- entry(0, write("a"), false)
	in <- entry(1, broken, false)
	in <- entry(2, write("c"), false)
	in <- entry(3, nil, true) // its key was in the ledger: only re-emit and ack
	close(in)

	var mu sync.Mutex
	var failed, finished []string
	processed := prometheus.NewCounter(prometheus.CounterOpts{Name: "processed"})
	c := newCommitter(committerParams{
		ledger: newLedger(pool), deps: NewDependencies(nil), log: quietLogger(), in: in, abandoned: make(chan struct{}),
		hard: ctx, committers: 2, batch: 10, linger: 50 * time.Millisecond, processed: processed,
		emit:     o.emit,
		ack:      func(ctx context.Context, p *partition, ids []string) error { return p.ops.ack(ctx, ids...) },
		bookkeep: func(op func(ctx context.Context) error) error { return op(ctx) },
		fail:     func(m *Message, err error) { mu.Lock(); failed = append(failed, m.ID); mu.Unlock() },
		finish:   func(m *Message) { mu.Lock(); finished = append(finished, m.ID); mu.Unlock() },
	})
	c.run() // returns once the closed input is drained

	var rows, written int
	pool.QueryRow(ctx, `SELECT count(*) FROM stage_results`).Scan(&rows)
	pool.QueryRow(ctx, `SELECT count(*) FROM out`).Scan(&written)
	if rows != 2 || written != 2 {
		t.Fatalf("%d ledger rows, %d result rows; want 2 and 2 (the broken entry's rolled back alone)", rows, written)
	}
	if len(failed) != 1 || failed[0] != ids[1] {
		t.Fatalf("failed %v, want the broken entry %s", failed, ids[1])
	}
	if len(finished) != 3 {
		t.Fatalf("finished %v, want the three committed or re-emitted (fail finishes its own)", finished)
	}
	if n := rdb.XLen(ctx, KeysFor(o.prefix, "next").Stream()).Val(); n != 3 {
		t.Fatalf("%d messages downstream, want 3", n)
	}
	p, _ := rdb.XPendingExt(ctx, &redis.XPendingExtArgs{Stream: o.keys.Stream(), Group: "g", Start: "-", End: "+", Count: 10}).Result()
	if len(p) != 1 || p[0].ID != ids[1] {
		t.Fatalf("pending after the commit: %+v; want only the broken entry, left for its retry", p)
	}
	var m dto.Metric
	if err := processed.Write(&m); err != nil {
		t.Fatal(err)
	}
	if got := m.GetCounter().GetValue(); got != 2 {
		t.Fatalf("processed %v, want 2 (a re-emit is no new work)", got)
	}
}

// Two batches whose entries take the same advisory locks in opposite
// orders (each Commit its own, as the cleaner's dedupe does) deadlocked;
// with the keys in Result.Locks streamkit takes a batch's all at once, in
// order, and the second batch waits for the first instead.
func TestLedger_BatchLocksPreventCrossedDeadlocks(t *testing.T) {
	t.Parallel()
	pool := ledgerFor(t)
	l := newLedger(pool)
	arrived := make(chan struct{}, 2)
	entry := func(key string, lock int64, first bool) *ledgerEntry {
		return &ledgerEntry{key: key, stage: "locks", result: Result{Locks: []int64{lock}, Commit: func(ctx context.Context, tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, lock); err != nil {
				return err
			}
			if first { // hold this lock until the other batch holds its first, or give up waiting
				arrived <- struct{}{}
				time.Sleep(300 * time.Millisecond)
			}
			return nil
		}}, msg: &Message{ID: key}}
	}
	batches := [][]*ledgerEntry{
		{entry("a1", 71, true), entry("a2", 72, false)},
		{entry("b1", 72, true), entry("b2", 71, false)},
	}
	errs := make([]error, len(batches))
	var wg sync.WaitGroup
	for i, b := range batches {
		wg.Go(func() { errs[i] = l.commitTx(context.Background(), b, false) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("batch %d: %v", i, err)
		}
	}
	var n int
	if err := pool.QueryRow(context.Background(), `SELECT count(*) FROM stage_results WHERE stage = 'locks'`).Scan(&n); err != nil || n != 4 {
		t.Fatalf("ledger rows: %d (%v), want 4", n, err)
	}
}

// A batch too slow for one transaction's deadline while PostgreSQL answers
// (an index kept up as rows arrive, a busy machine) spends no attempt: it
// is committed in halves until each fits, and the one entry that overruns
// alone is handed to fail as a runaway.
func TestCommitter_BatchOverDeadlineIsCommittedInHalves(t *testing.T) {
	t.Parallel()
	pool := ledgerFor(t)
	ctx := context.Background()
	const n = 8
	slowCommit := func(d time.Duration) func(context.Context, pgx.Tx) error {
		return func(ctx context.Context, tx pgx.Tx) error {
			_, err := tx.Exec(ctx, `SELECT pg_sleep($1)`, d.Seconds())
			return err
		}
	}
	in := make(chan *ledgerEntry, n)
	for i := range n {
		commit := slowCommit(100 * time.Millisecond) // 8 of them: 0.8 s, far past the deadline
		if i == 5 {
			commit = slowCommit(time.Second) // past it even alone
		}
		in <- &ledgerEntry{key: fmt.Sprintf("s:%d", i), stage: "s", msg: &Message{ID: fmt.Sprint(i)}, result: Result{Commit: commit}}
	}
	close(in)
	var mu sync.Mutex
	failed := map[string]error{}
	deps := NewDependencies(nil) // PostgreSQL answers throughout: the overruns are not an outage
	deps.Add(DependencyPostgres, pool.Ping, nil)
	defer deps.Close()
	c := newCommitter(committerParams{
		ledger: newLedger(pool), deps: deps,
		log: quietLogger(), in: in, abandoned: make(chan struct{}), hard: ctx, committers: 1, batch: n,
		linger: time.Second, deadline: 350 * time.Millisecond, processed: prometheus.NewCounter(prometheus.CounterOpts{Name: "p"}),
		emit:     func(context.Context, []Emit) error { return nil },
		ack:      func(context.Context, *partition, []string) error { return nil },
		bookkeep: func(op func(ctx context.Context) error) error { return op(ctx) },
		fail:     func(m *Message, err error) { mu.Lock(); failed[m.ID] = err; mu.Unlock() },
		finish:   func(*Message) {},
	})
	c.run()

	var rows int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM stage_results`).Scan(&rows); err != nil {
		t.Fatal(err)
	}
	if rows != n-1 {
		t.Fatalf("%d ledger rows, want %d: every entry but the one too slow alone", rows, n-1)
	}
	if len(failed) != 1 {
		t.Fatalf("failed %v, want entry 5 alone", failed)
	}
	if _, ok := runawayOf(failed["5"]); !ok {
		t.Fatalf("entry 5 failed with %v, want a runaway (no attempt spent)", failed["5"])
	}
}

// A large batch's ledger rows go in by COPY, which has no ON CONFLICT: a
// batch holding a key another consumer finished meanwhile, or a key twice,
// still lands whole — with and without Commit functions — and the row
// already there keeps what it emitted.
func TestLedger_KeysFinishedMeanwhileOrRepeatedStillLand(t *testing.T) {
	t.Parallel()
	pool := ledgerFor(t)
	l := newLedger(pool)
	ctx := context.Background()
	if _, err := pool.Exec(ctx, `INSERT INTO stage_results (key, stage, emitted) VALUES ('k-1', 'dup', '[{"stage":"first"}]'), ('w-1', 'dup', '[{"stage":"first"}]')`); err != nil {
		t.Fatal(err)
	}
	var wrote atomic.Int64
	batch := func(prefix string, withCommit bool, keys ...int) []*ledgerEntry {
		var b []*ledgerEntry
		for _, k := range keys {
			key := fmt.Sprintf("%s-%d", prefix, k)
			r := Result{Emit: []Emit{{Stage: "second", Fields: map[string]string{"doc_id": key}}}}
			if withCommit {
				r.Commit = func(ctx context.Context, tx pgx.Tx) error {
					wrote.Add(1)
					_, err := tx.Exec(ctx, `SELECT 1`)
					return err
				}
			}
			b = append(b, &ledgerEntry{key: key, stage: "dup", result: r, msg: &Message{ID: key}})
		}
		return b
	}
	keys := func(n int, extra ...int) []int {
		var ks []int
		for i := range n {
			ks = append(ks, i)
		}
		return append(ks, extra...)
	}
	for _, b := range [][]*ledgerEntry{
		batch("k", false, keys(copyMinRows)...),    // k-1 finished meanwhile
		batch("r", false, keys(copyMinRows, 5)...), // r-5 twice
		batch("w", true, keys(copyMinRows)...),     // with writes; w-1 finished meanwhile
	} {
		if err := l.commit(ctx, b); err != nil {
			t.Fatalf("commit %s…: %v", b[0].key, err)
		}
		for _, e := range b {
			if e.err != nil {
				t.Fatalf("entry %s failed: %v", e.key, e.err)
			}
		}
	}
	var n int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM stage_results WHERE stage = 'dup'`).Scan(&n); err != nil || n != 3*copyMinRows {
		t.Fatalf("ledger rows: %d (%v), want %d", n, err, 3*copyMinRows)
	}
	done, err := l.Lookup(ctx, []string{"k-1", "w-1", "k-2"})
	if err != nil {
		t.Fatal(err)
	}
	if done["k-1"][0].Stage != "first" || done["w-1"][0].Stage != "first" || done["k-2"][0].Stage != "second" {
		t.Fatalf("emitted: %+v; the rows already there keep theirs", done)
	}
	if wrote.Load() < copyMinRows {
		t.Fatalf("%d Commit calls for the batch with writes, want every entry's", wrote.Load())
	}
}

// copyIn takes COPY from copyMinRows distinct keys on, and the insert below
// that or when keys repeat: told apart by a key already in the ledger,
// which fails a COPY with a duplicate key and which the insert skips.
func TestLedger_CopyFromCopyMinRowsOn(t *testing.T) {
	t.Parallel()
	pool := ledgerFor(t)
	ctx := context.Background()
	if _, err := pool.Exec(ctx, `INSERT INTO stage_results (key, stage) VALUES ('c-0', 'copy')`); err != nil {
		t.Fatal(err)
	}
	rows := func(prefix string, n int, extra ...string) rowSet {
		var r rowSet
		for i := range n {
			r.keys = append(r.keys, fmt.Sprintf("%s-%d", prefix, i))
		}
		r.keys = append(r.keys, extra...)
		for range r.keys {
			r.stages, r.docs, r.emitted = append(r.stages, "copy"), append(r.docs, ""), append(r.emitted, nil)
		}
		return r
	}
	if err := rows("c", copyMinRows).copyIn(ctx, pool); !duplicateKey(err) {
		t.Fatalf("%d rows with a key already there: %v, want COPY's duplicate key", copyMinRows, err)
	}
	if err := rows("c", copyMinRows-1).copyIn(ctx, pool); err != nil {
		t.Fatalf("%d rows with a key already there: %v, want the insert skipping it", copyMinRows-1, err)
	}
	if err := rows("d", copyMinRows, "c-0", "d-1").copyIn(ctx, pool); err != nil {
		t.Fatalf("%d rows, one repeated: %v, want the insert", copyMinRows+2, err)
	}
	var n int
	want := copyMinRows - 1 + copyMinRows // c-0 to c-46, d-0 to d-47
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM stage_results WHERE stage = 'copy'`).Scan(&n); err != nil || n != want {
		t.Fatalf("ledger rows: %d (%v), want %d", n, err, want)
	}
}
