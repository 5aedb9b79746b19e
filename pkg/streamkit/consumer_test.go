package streamkit_test

import (
	"context"
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
