package streamkit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// A ledgerStore records finished work in the Postgres table stage_results
// (schema, created by Migrate), keyed on content, never on the Redis entry
// id.
type ledgerStore struct {
	pool *pgxpool.Pool
}

// newLedger returns a ledger over pool.
func newLedger(pool *pgxpool.Pool) *ledgerStore { return &ledgerStore{pool: pool} }

// Lookup returns, for each key already finished, the messages it emitted.
// Keys not in the result are not done. One round trip for all keys.
func (l *ledgerStore) Lookup(ctx context.Context, keys []string) (map[string][]Emit, error) {
	done := make(map[string][]Emit)
	if len(keys) == 0 {
		return done, nil
	}
	// QueryExecModeExec plans with the actual keys every time: a cached
	// generic plan made while the table was small would seq-scan it forever.
	rows, err := l.pool.Query(ctx, `SELECT key, emitted FROM stage_results WHERE key = ANY($1)`, pgx.QueryExecModeExec, keys)
	if err != nil {
		return nil, fmt.Errorf("look up ledger keys: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var key string
		var raw []byte
		if err := rows.Scan(&key, &raw); err != nil {
			return nil, fmt.Errorf("scan ledger row: %w", err)
		}
		var emits []Emit
		if len(raw) > 0 {
			if err := json.Unmarshal(raw, &emits); err != nil {
				return nil, fmt.Errorf("decode emitted messages of %s: %w", key, err)
			}
		}
		done[key] = emits
	}
	return done, rows.Err()
}

// ledgerEntry is one message's finished work, ready to commit.
type ledgerEntry struct {
	key      string
	stage    string
	result   Result
	msg      *Message
	finished bool  // already in the ledger: only re-emit and ack
	err      error // set by commit when this entry's own writes failed
}

// commit writes a batch in one transaction: the entries' Commit functions,
// then one COPY of the ledger rows. When that fails because of one entry —
// its Commit, or its row (a key another consumer finished meanwhile) — it
// rolls back and runs the batch again with each entry (Commit and row) in
// its own savepoint, so the failing entry is rolled back alone and
// reported in its err while the others land. (The fast path saves a
// SAVEPOINT and a RELEASE round trip per entry; failures are rare.) A
// batch without Commit functions is the COPY alone, or an insert that
// skips the keys already there. Errors that are no entry's fault (a
// conflict, a lost connection) are returned as they are, and a returned
// error means nothing was written.
func (l *ledgerStore) commit(ctx context.Context, entries []*ledgerEntry) error {
	writes := false
	for _, e := range entries {
		writes = writes || e.result.Commit != nil
	}
	var err error
	if writes {
		err = l.commitTx(ctx, entries, false)
	} else {
		rows := ledgerRows(entries) // once: it runs the entries' EmitFuncs
		if err = rows.copyIn(ctx, l.pool); duplicateKey(err) {
			err = rows.insert(ctx, l.pool) // finished meanwhile by another consumer
		}
	}
	if err == nil || ctx.Err() != nil || retryNow(err) || suspect(err) {
		return err
	}
	return l.commitTx(ctx, entries, true)
}

// commitTx runs the entries' Commit functions and the ledger insert in one
// transaction. isolated runs each entry's Commit and row in a savepoint and
// records its failure in the entry; otherwise the first failure aborts the
// transaction.
func (l *ledgerStore) commitTx(ctx context.Context, entries []*ledgerEntry, isolated bool) error {
	tx, err := l.pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("begin ledger transaction: %w", err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, txLimits); err != nil {
		return fmt.Errorf("limit ledger transaction: %w", err)
	}
	if keys := batchLocks(entries); len(keys) > 0 {
		// Volatile, so evaluated after the sort: the locks are taken in order.
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(k) FROM unnest($1::bigint[]) AS k ORDER BY k`, keys); err != nil {
			return fmt.Errorf("take the batch's advisory locks: %w", err)
		}
	}
	if isolated {
		for _, e := range entries {
			if err := commitOne(ctx, tx, e); err != nil {
				e.err = err
			}
		}
	} else {
		for _, e := range entries {
			if e.result.Commit == nil {
				continue
			}
			if err := e.result.Commit(ctx, tx); err != nil {
				return fmt.Errorf("an entry's commit failed: %w", err)
			}
		}
		if err := ledgerRows(entries).copyIn(ctx, tx); err != nil {
			return err // a key finished meanwhile too: the isolated run skips it
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("commit ledger transaction: %w", err)
	}
	return nil
}

// batchLocks is the sorted union of the entries' Result.Locks.
func batchLocks(entries []*ledgerEntry) []int64 {
	var keys []int64
	for _, e := range entries {
		keys = append(keys, e.result.Locks...)
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}

// txLimits bounds what one ledger transaction can hold, so that a process
// stalled in the middle of one (SIGSTOP, a long pause, a network cut that
// leaves its socket open) cannot keep its row and advisory locks for long:
// the server ends its session after 5 s idle in the transaction; a commit
// waiting more than 5 s for a lock gives up (and streamkit runs it again at
// once, as for a deadlock); no statement runs longer than the bookkeeping
// deadline. SET LOCAL: migrations, index builds and backfills are unbounded.
const txLimits = `SELECT set_config('idle_in_transaction_session_timeout', '5s', true),
	set_config('lock_timeout', '5s', true), set_config('statement_timeout', '10s', true)`

// rowSet holds ledger rows as column arrays for one unnest insert.
type rowSet struct {
	keys, stages, docs []string
	emitted            []*string
}

// ledgerRows collects the rows of entries that have not failed, deciding
// their emitted messages (EmitFunc runs here, after the entry's Commit).
func ledgerRows(entries []*ledgerEntry) rowSet {
	var r rowSet
	for _, e := range entries {
		if e.err != nil {
			continue
		}
		if e.result.EmitFunc != nil {
			e.result.Emit = e.result.EmitFunc()
		}
		var js *string
		if len(e.result.Emit) > 0 {
			s := string(appendEmits(make([]byte, 0, 256), e.result.Emit))
			js = &s
		}
		r.keys = append(r.keys, e.key)
		r.stages = append(r.stages, e.stage)
		r.docs = append(r.docs, e.result.DocID)
		r.emitted = append(r.emitted, js)
	}
	return r
}

// ledgerDB is a pool, a transaction or a savepoint.
type ledgerDB interface {
	Exec(context.Context, string, ...any) (pgconn.CommandTag, error)
	CopyFrom(context.Context, pgx.Identifier, []string, pgx.CopyFromSource) (int64, error)
}

// copyIn writes a large batch's rows by COPY, which PostgreSQL takes for
// less of its time than the unnest insert. COPY costs a second round trip,
// so a small batch goes by insert: four writers inserted 6-35% more rows a
// second than they copied in batches of 2 to 16 rows, 5-11% fewer in
// batches of 48 to 64 (copyMinRows; docs/STREAMKIT.md has the runs).
// COPY has no ON CONFLICT: a key already in the ledger fails it with a
// duplicate-key error, which the caller answers with insert. Rows whose
// keys repeat in the batch go by insert at once.
func (r rowSet) copyIn(ctx context.Context, db ledgerDB) error {
	if len(r.keys) < copyMinRows || !distinct(r.keys) {
		return r.insert(ctx, db)
	}
	_, err := db.CopyFrom(ctx, pgx.Identifier{"stage_results"}, []string{"key", "stage", "doc_id", "emitted"},
		pgx.CopyFromSlice(len(r.keys), func(i int) ([]any, error) {
			return []any{r.keys[i], r.stages[i], r.docs[i], r.emitted[i]}, nil
		}))
	if err != nil {
		return fmt.Errorf("copy ledger rows: %w", err)
	}
	return nil
}

// copyMinRows is the smallest batch whose ledger rows go by COPY.
const copyMinRows = 48

func distinct(keys []string) bool {
	seen := make(map[string]struct{}, len(keys))
	for _, k := range keys {
		if _, dup := seen[k]; dup {
			return false
		}
		seen[k] = struct{}{}
	}
	return true
}

// duplicateKey reports a unique violation: a ledger key already written.
func duplicateKey(err error) bool {
	var pg *pgconn.PgError
	return errors.As(err, &pg) && pg.Code == "23505"
}

// insert writes the rows, skipping keys already in the ledger.
func (r rowSet) insert(ctx context.Context, db ledgerDB) error {
	if len(r.keys) == 0 {
		return nil
	}
	_, err := db.Exec(ctx, `
		INSERT INTO stage_results (key, stage, doc_id, emitted)
		SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::json[])
		ON CONFLICT (key) DO NOTHING`, r.keys, r.stages, r.docs, r.emitted)
	if err != nil {
		return fmt.Errorf("insert ledger rows: %w", err)
	}
	return nil
}

// commitOne runs one entry's Commit and ledger row in a savepoint of tx.
func commitOne(ctx context.Context, tx pgx.Tx, e *ledgerEntry) error {
	sp, err := tx.Begin(ctx)
	if err != nil {
		return fmt.Errorf("open savepoint: %w", err)
	}
	if e.result.Commit != nil {
		if err := e.result.Commit(ctx, sp); err != nil {
			_ = sp.Rollback(ctx)
			return err
		}
	}
	if err := ledgerRows([]*ledgerEntry{e}).insert(ctx, sp); err != nil {
		_ = sp.Rollback(ctx)
		return err
	}
	if err := sp.Commit(ctx); err != nil {
		return fmt.Errorf("release savepoint: %w", err)
	}
	return nil
}
