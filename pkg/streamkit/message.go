package streamkit

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// Reserved message fields.
const (
	FieldAttempt     = "attempt"      // failed attempts so far, set by streamkit
	FieldDeferred    = "deferred"     // RetryAfter deferrals so far, set by streamkit
	FieldRunaways    = "runaways"     // how long each try stopped by a guard took, in a row ("2.1s,2.4s"), set by streamkit
	FieldDocID       = "doc_id"       // keys the default idempotency key and picks the partition
	FieldContentHash = "content_hash" // keys the default idempotency key
)

// A Message is one stream entry handed to a Handler.
type Message struct {
	ID         string            // Redis entry id; changes on retry and replay, never key work on it
	Stage      string            // the consuming stage
	Fields     map[string]string // the entry's fields
	Attempt    int               // failed attempts before this delivery
	Deferred   int               // RetryAfter deferrals before this delivery
	Deliveries int64             // Redis delivery count when known (reclaimed entries), else 0
	Key        string            // idempotency key of the work

	read time.Time  // when this consumer read or claimed it
	part *partition // the stream it was read from
}

// Get returns a field, or "" when it is absent.
func (m *Message) Get(field string) string { return m.Fields[field] }

// Require returns a field or a bad-message error naming it.
func (m *Message) Require(field string) (string, error) {
	v, ok := m.Fields[field]
	if !ok || v == "" {
		return "", Permanent(ErrorTypeBadMessage, fmt.Errorf("message %s: missing field %q", m.ID, field))
	}
	return v, nil
}

// An Emit is a message a stage sends downstream once its work is committed.
type Emit struct {
	Stage  string            `json:"stage"`
	Fields map[string]string `json:"fields"`
}

// A Result is what a handler produced for one message.
type Result struct {
	// Commit writes the stage's output inside the ledger transaction. It must
	// be idempotent (upserts keyed on content), and may be nil when the stage
	// writes nothing. It may run twice: when another Commit of its batch
	// fails, the batch is rolled back and run again with each Commit in its
	// own savepoint, so state it leaves for EmitFunc must be set, not added to.
	Commit func(ctx context.Context, tx pgx.Tx) error
	// Emit is sent downstream after the commit, and again whenever the same
	// key is redelivered, so a crash between commit and XADD loses nothing.
	Emit []Emit
	// EmitFunc, when set, replaces Emit: it is called after Commit succeeded,
	// for stages whose routing depends on what their transaction saw.
	EmitFunc func() []Emit
	// DocID is recorded in the ledger row (optional).
	DocID string
	// Locks are transaction-level advisory lock keys Commit needs to hold
	// (what two concurrent Commits must not both write at once). streamkit
	// takes the keys of every entry of a batch at the start of its
	// transaction, in one statement in key order, so batches sharing keys
	// queue rather than deadlock: each Commit taking its own in turn, in a
	// batch of many, closed cycles across batches.
	Locks []int64
}

// A Handler does one stage's work for one message. It returns a Result, a
// retryable error, or an error marked Permanent. ctx is cancelled when the
// handler exceeds its timeout or when shutdown's grace period runs out.
type Handler interface {
	Handle(ctx context.Context, m *Message) (Result, error)
}

// HandlerFunc adapts a function to Handler.
type HandlerFunc func(ctx context.Context, m *Message) (Result, error)

// Handle calls f.
func (f HandlerFunc) Handle(ctx context.Context, m *Message) (Result, error) { return f(ctx, m) }

// A KeyFunc derives the idempotency key of a message; an error dead-letters
// the message as bad input.
type KeyFunc func(stage, version string, m *Message) (string, error)

// defaultKey keys work on stage:doc_id:content_hash[:version].
func defaultKey(stage, version string, m *Message) (string, error) {
	doc, err := m.Require(FieldDocID)
	if err != nil {
		return "", err
	}
	hash, err := m.Require(FieldContentHash)
	if err != nil {
		return "", err
	}
	k := stage + ":" + doc + ":" + hash
	if version != "" {
		k += ":" + version
	}
	return k, nil
}

// fieldsOf converts go-redis values to strings; ok is false for an entry
// whose body was trimmed away (nil values).
func fieldsOf(values map[string]interface{}) (map[string]string, bool) {
	if values == nil {
		return nil, false
	}
	f := make(map[string]string, len(values))
	for k, v := range values {
		switch s := v.(type) {
		case string:
			f[k] = s
		case nil:
			f[k] = ""
		default:
			f[k] = fmt.Sprint(s)
		}
	}
	return f, true
}

func attemptOf(f map[string]string) int { return counterOf(f, FieldAttempt) }

// runawaysOf lists the times of the tries in a row that a guard stopped.
func runawaysOf(f map[string]string) []string {
	if f[FieldRunaways] == "" {
		return nil
	}
	return strings.Split(f[FieldRunaways], ",")
}

func counterOf(f map[string]string, field string) int {
	n, err := strconv.Atoi(f[field])
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// idTime is the creation time encoded in a stream entry id.
func idTime(id string) time.Time {
	for i := 0; i < len(id); i++ {
		if id[i] == '-' {
			ms, err := strconv.ParseInt(id[:i], 10, 64)
			if err != nil {
				return time.Time{}
			}
			return time.UnixMilli(ms)
		}
	}
	return time.Time{}
}
