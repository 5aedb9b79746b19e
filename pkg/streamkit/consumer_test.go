package streamkit_test

import (
	"context"
	"errors"
	"sync/atomic"
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

// bulkWriter writes results in bulk and refuses one document.
type bulkWriter struct {
	calls atomic.Int64
}

func (b *bulkWriter) Handle(ctx context.Context, m *streamkit.Message) (streamkit.Result, error) {
	return streamkit.Result{DocID: m.Get("doc_id"), Rows: m.Get("doc_id")}, nil
}

func (b *bulkWriter) WriteBatch(ctx context.Context, tx pgx.Tx, rows []any) error {
	b.calls.Add(1)
	docs := make([]string, len(rows))
	for i, r := range rows {
		docs[i] = r.(string)
		if docs[i] == "doc-13" {
			return streamkit.Permanent("rejected", errors.New("doc-13 is refused"))
		}
	}
	_, err := tx.Exec(ctx, `INSERT INTO results (doc_id) SELECT unnest($1::text[])`, docs)
	return err
}

func TestConsumer_BatchWriterWritesInBulkAndIsolatesFailures(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.resultTable()
	e.publish("s", 60)
	w := &bulkWriter{}
	e.start(e.config("s"), w)
	e.eventually("59 written, 1 dead", 10*time.Second, func() bool {
		return e.ledgerCount("s") == 59 && e.xlen(e.keys("s").DLQ()) == 1
	})
	if rows, sum := e.resultRows(); rows != 59 || sum != 59 {
		t.Fatalf("results: %d rows, %d writes; want 59, 59 (doc-13's batch neighbours written once)", rows, sum)
	}
	admin := &streamkit.Admin{RDB: e.RDB, Prefix: e.Prefix}
	dl, _ := admin.DLQList(context.Background(), "s", streamkit.DLQFilter{})
	if dl[0].Fields["doc_id"] != "doc-13" || dl[0].ErrorType != "rejected" {
		t.Fatalf("dead letter %+v, want doc-13 rejected", dl[0])
	}
	// Bulk, not per message: far fewer calls than messages even with the
	// one-by-one retry of doc-13's batch.
	if n := w.calls.Load(); n >= 60 {
		t.Fatalf("WriteBatch called %d times for 60 messages", n)
	}
	t.Logf("WriteBatch calls: %d", w.calls.Load())
}
