package streamkit_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/newscrawl/newscrawl/pkg/streamkit"
)

// writeResult is a handler whose side effect is an upsert into results and
// which forwards each message to the "next" stage.
func writeResult(ctx context.Context, m *streamkit.Message) (streamkit.Result, error) {
	doc := m.Get("doc_id")
	return streamkit.Result{
		DocID: doc,
		Commit: func(ctx context.Context, tx pgx.Tx) error {
			_, err := tx.Exec(ctx, `INSERT INTO results (doc_id) VALUES ($1) ON CONFLICT (doc_id) DO UPDATE SET n = results.n + 1`, doc)
			return err
		},
		Emit: []streamkit.Emit{{Stage: "next", Fields: map[string]string{"doc_id": doc, "content_hash": "h2"}}},
	}, nil
}

func TestConsumer_ProcessesCommitsForwardsAndAcks(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.resultTable()
	e.publish("s", 50)
	e.start(e.config("s"), streamkit.HandlerFunc(writeResult))

	e.eventually("50 ledger rows", 10*time.Second, func() bool { return e.ledgerCount("s") == 50 })
	e.eventually("PEL empty", 5*time.Second, func() bool { return e.pending("s", "s-group") == 0 })
	if rows, sum := e.resultRows(); rows != 50 || sum != 50 {
		t.Fatalf("results: %d rows, %d writes; want 50, 50", rows, sum)
	}
	if n := e.xlen(e.keys("next").Stream()); n != 50 {
		t.Fatalf("next stream has %d entries, want 50", n)
	}
}

// One entry's failing Commit must not cost the rest of its batch: the
// batch is rolled back and rerun with each Commit in its own savepoint, so
// the others land exactly once and the failing one alone goes its way
// (here: a permanent error, to the dead-letter stream) with nothing written.
func TestConsumer_FailingCommitIsRolledBackAlone(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.resultTable()
	e.publish("s", 50)
	e.start(e.config("s"), streamkit.HandlerFunc(func(ctx context.Context, m *streamkit.Message) (streamkit.Result, error) {
		res, err := writeResult(ctx, m)
		if m.Get("doc_id") == "doc-7" {
			write := res.Commit
			res.Commit = func(ctx context.Context, tx pgx.Tx) error {
				if err := write(ctx, tx); err != nil {
					return err
				}
				return streamkit.Permanent("bad_row", errors.New("doc-7 cannot be stored"))
			}
		}
		return res, err
	}))

	e.eventually("49 ledger rows and a dead letter", 10*time.Second, func() bool {
		return e.ledgerCount("s") == 49 && e.xlen(e.keys("s").DLQ()) == 1
	})
	e.eventually("PEL empty", 5*time.Second, func() bool { return e.pending("s", "s-group") == 0 })
	if rows, sum := e.resultRows(); rows != 49 || sum != 49 {
		t.Fatalf("results: %d rows, %d writes; want 49, 49 (each once, none of doc-7)", rows, sum)
	}
	if n := e.xlen(e.keys("next").Stream()); n != 49 {
		t.Fatalf("next stream has %d entries, want 49", n)
	}
}
