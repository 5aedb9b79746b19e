package streamkit

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"
)

// dispatch turns entries read from partition p into work. The caller holds one slot per
// entry. Trimmed entries are acked as lost; malformed ones, and ones whose
// key or doc_id could not be stored, are dead-lettered; entries whose key
// is already in the ledger re-emit and ack; the rest go to the workers.
// Every entry is leased from here on.
func (c *Consumer) dispatch(ctx context.Context, p *partition, msgs []redis.XMessage, deliveries map[string]int64) {
	if len(msgs) == 0 {
		return
	}
	now := time.Now()
	fresh := make([]*Message, 0, len(msgs))
	keys := make([]string, 0, len(msgs))
	for _, xm := range msgs {
		fields, ok := fieldsOf(xm.Values)
		if !ok {
			c.ackLost(p, xm.ID)
			c.inflight.release(1)
			continue
		}
		if !p.leases.add(xm.ID, now) {
			// Already held here (a reclaim of our own entry).
			c.inflight.release(1)
			continue
		}
		m := &Message{ID: xm.ID, Stage: c.cfg.Stage, Fields: fields, Attempt: attemptOf(fields),
			Deferred: counterOf(fields, FieldDeferred), Deliveries: deliveries[xm.ID], read: now, part: p}
		key, err := c.cfg.Key(c.cfg.Stage, c.cfg.Version, m)
		if err == nil {
			err = storable("idempotency key", key)
		}
		if err == nil {
			err = storable("field "+FieldDocID, fields[FieldDocID])
		}
		if err != nil {
			c.deadLetter(m, ErrorTypeBadMessage, err)
			continue
		}
		m.Key = key
		fresh = append(fresh, m)
		keys = append(keys, key)
	}
	done, err := c.ledger.Lookup(ctx, keys)
	if err != nil {
		// The commit will find out again; redoing work is safe, losing it is
		// not. A read cut short by shutdown is no failure: the entries are
		// ours, and the workers drain them within the grace period.
		if ctx.Err() == nil {
			c.log.failed("ledger pre-check failed; processing anyway", err)
		}
		done = nil
	}
	for _, m := range fresh {
		if emits, ok := done[m.Key]; ok {
			c.finished(m, emits)
			continue
		}
		c.work <- m
	}
}

// finished hands an entry whose key is already in the ledger to the
// committers, which re-emit its messages and ack it.
func (c *Consumer) finished(m *Message, emits []Emit) {
	c.metrics.duplicates.Inc()
	c.commits <- &ledgerEntry{key: m.Key, stage: c.cfg.Stage, result: Result{Emit: emits}, msg: m, finished: true}
}

func (c *Consumer) ackLost(p *partition, id string) {
	if err := c.bookkeep(func(ctx context.Context) error { return p.ops.ack(ctx, id) }); err != nil {
		c.log.failed("ack trimmed entry", err, "id", id)
		return
	}
	c.metrics.lost.Inc()
	c.log.Warn("pending entry was trimmed before it was processed; acked as lost", "id", id)
}
