package streamkit

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"
)

// ledgerRecheck is how long an entry may wait between its read-time ledger
// check and its handler's start before the ledger is asked again (another
// consumer may have finished the same key meanwhile).
const ledgerRecheck = time.Second

// A reader feeds the workers from one partition of the stage: first the
// consumer's own pending entries, then idle entries of others, then new
// entries, never more than the free in-flight slots, none while a
// dependency is away, and no more than the downstream stage has room for
// below its high-water mark.
type reader struct {
	c         *Consumer
	part      *partition
	reclaimer *reclaimer
	budget    int64 // entries that may still be read before the next pressure check
}

func newReader(c *Consumer, p *partition) *reader {
	return &reader{c: c, part: p, reclaimer: newReclaimer(c, p)}
}

// run reads until ctx is cancelled. The reclaimer runs on its own ticker
// once the start-up sequence is done; run returns only after it stopped,
// so nothing is dispatched once the consumer starts draining.
func (r *reader) run(ctx context.Context) {
	c := r.c
	r.readOwnPending(ctx)
	r.reclaimer.exec(ctx)
	reclaiming := make(chan struct{})
	go func() { defer close(reclaiming); r.reclaimer.loop(ctx) }()
	defer func() { <-reclaiming }()
	for ctx.Err() == nil {
		if c.deps.Wait(ctx) != nil {
			return
		}
		want := r.room(ctx, c.cfg.BatchSize)
		if want == 0 {
			continue
		}
		n := c.acquire(ctx, want)
		if n == 0 {
			return
		}
		msgs, err := r.part.ops.readNew(ctx, n)
		if err != nil {
			c.release(n)
			if ctx.Err() != nil {
				continue
			}
			if isNoGroup(err) {
				if err := r.part.ops.ensureGroup(ctx); err != nil && !c.deps.Down(err) {
					c.log.failed("recreate group", err)
				}
			} else if !c.deps.Down(err) {
				c.log.failed("read new entries", err)
				sleep(ctx, time.Second)
			}
			continue
		}
		r.budget -= int64(len(msgs))
		c.release(n - len(msgs))
		c.dispatch(ctx, r.part, msgs, nil)
	}
}

// room is how many entries (at most want) may be read now: without a
// downstream stage, want; with one, its high-water mark minus what waits
// there minus what this consumer already holds (each of which may still
// emit). It waits while there is no room, and returns 0 when ctx ends or a
// dependency went away.
func (r *reader) room(ctx context.Context, want int) int {
	c := r.c
	if c.downstream == nil {
		return want
	}
	for ctx.Err() == nil {
		if r.budget >= int64(want) {
			return want
		}
		waiting, err := c.downstream.Pressure(ctx, c.cfg.Downstream)
		if err != nil {
			if ctx.Err() != nil || c.deps.Down(err) {
				return 0
			}
			// Read on rather than stall the stage on a failed check.
			c.log.Warn("read downstream pressure", "err", err)
			return want
		}
		r.budget = c.cfg.HighWater - waiting - int64(len(c.slots))
		if r.budget > 0 {
			return int(min(int64(want), r.budget))
		}
		sleep(ctx, 100*time.Millisecond)
	}
	return 0
}

// readOwnPending re-reads entries delivered to this consumer name before
// (a restart with a stable CONSUMER name), oldest first.
func (r *reader) readOwnPending(ctx context.Context) {
	c := r.c
	start := "0"
	for ctx.Err() == nil {
		if c.deps.Wait(ctx) != nil {
			return
		}
		n := c.acquire(ctx, c.cfg.BatchSize)
		if n == 0 {
			return
		}
		msgs, err := r.part.ops.readOwn(ctx, start, n)
		if err != nil {
			c.release(n)
			if ctx.Err() == nil && c.deps.Down(err) {
				continue
			}
			if ctx.Err() == nil {
				c.log.failed("read own pending entries", err)
			}
			return
		}
		c.release(n - len(msgs))
		if len(msgs) == 0 {
			return
		}
		start = msgs[len(msgs)-1].ID
		c.dispatch(ctx, r.part, msgs, nil)
	}
}

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
			c.release(1)
			continue
		}
		if !p.leases.add(xm.ID, now) {
			// Already held here (a reclaim of our own entry).
			c.release(1)
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
		// The commit will find out again; redoing work is safe, losing it is not.
		c.log.failed("ledger pre-check failed; processing anyway", err)
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

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
