package streamkit

import (
	"context"
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"
)

// A reclaimer takes over entries of one partition idle longer than the
// visibility (their consumer died or is stalled) and dead-letters those
// delivered too often. It does nothing while a dependency is away: a paused
// consumer takes no work from others. It runs every half visibility.
type reclaimer struct {
	*loop
	p reclaimerParams
}

type reclaimerParams struct {
	stage         string
	part          *partition // its operations, and the leases of what it claims
	inflight      *inflight
	deps          *Dependencies
	log           logger
	visibility    time.Duration
	batch         int
	maxDeliveries int64
	lost          prometheus.Counter // entries trimmed before they were processed
	// dispatch hands claimed entries (one slot held for each) to the consumer.
	dispatch func(ctx context.Context, msgs []redis.XMessage, deliveries map[string]int64)
	// deadLetter ends an entry leased here in the DLQ; bookkeep runs a
	// bookkeeping operation, waiting out an outage.
	deadLetter func(m *Message, errType string, cause error)
	bookkeep   func(op func(ctx context.Context) error) error
}

func newReclaimer(p reclaimerParams) *reclaimer {
	r := &reclaimer{p: p}
	r.loop = newLoop(max(p.visibility/2, 10*time.Millisecond), r.exec)
	return r
}

// exec claims idle entries, taking slots for them as they free up; it logs
// its errors.
func (r *reclaimer) exec(ctx context.Context) {
	o := r.p.part.ops
	cursor := "0-0"
	for ctx.Err() == nil && r.p.deps.Err() == nil {
		// Waits for a slot like the readers do (they hold theirs while a
		// read blocks); 0 only at shutdown.
		n := r.p.inflight.acquire(ctx, r.p.batch)
		if n == 0 {
			return
		}
		msgs, next, deleted, err := o.claimIdle(ctx, r.p.visibility, cursor, n)
		if err != nil {
			r.p.inflight.release(n)
			if ctx.Err() == nil && !isNoGroup(err) && !r.p.deps.Down(err) {
				r.p.log.failed("claim idle entries", err)
			}
			return
		}
		r.p.inflight.release(n - len(msgs))
		for _, id := range deleted {
			r.p.lost.Inc()
			r.p.log.Warn("reclaimed entry was trimmed before it was processed; counted as lost", "id", id)
		}
		if len(deleted) > 0 {
			if err := r.p.bookkeep(func(ctx context.Context) error { return o.ack(ctx, deleted...) }); err != nil {
				r.p.log.failed("ack trimmed entries", err, "n", len(deleted))
			}
		}
		if len(msgs) > 0 {
			r.p.log.Info("reclaimed idle entries", "n", len(msgs))
			ids := make([]string, len(msgs))
			for i, m := range msgs {
				ids[i] = m.ID
			}
			deliveries, err := o.deliveries(ctx, ids)
			if err != nil {
				r.p.log.failed("read delivery counts", err)
			}
			msgs = r.dropPoison(msgs, deliveries)
			r.p.dispatch(ctx, msgs, deliveries)
		}
		if next == "0-0" || next == "" {
			return
		}
		cursor = next
	}
}

// dropPoison dead-letters entries delivered more than maxDeliveries times
// and returns the others. The caller's slots for dropped entries are freed.
func (r *reclaimer) dropPoison(msgs []redis.XMessage, deliveries map[string]int64) []redis.XMessage {
	keep := msgs[:0]
	for _, xm := range msgs {
		n := deliveries[xm.ID]
		if n <= r.p.maxDeliveries {
			keep = append(keep, xm)
			continue
		}
		fields, ok := fieldsOf(xm.Values)
		if !ok || !r.p.part.leases.add(xm.ID, time.Now()) {
			keep = append(keep, xm) // trimmed (dispatch acks it as lost), or still running here
			continue
		}
		m := &Message{ID: xm.ID, Stage: r.p.stage, Fields: fields, Attempt: attemptOf(fields), Deliveries: n, part: r.p.part}
		r.p.deadLetter(m, ErrorTypePoison, fmt.Errorf("delivered %d times (ceiling %d): the handler crashes or hangs on it", n, r.p.maxDeliveries))
	}
	return keep
}
