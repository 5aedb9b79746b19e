package streamkit

import (
	"context"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"
)

// A reader feeds the workers: first the consumer's own pending entries,
// then idle entries of others, then new entries, never more than the free
// in-flight slots, and no new ones while the downstream stage is saturated.
type reader struct {
	c         *Consumer
	reclaimer *reclaimer
}

func newReader(c *Consumer) *reader { return &reader{c: c, reclaimer: newReclaimer(c)} }

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
		if c.downstream != nil {
			// Pause while the next stage is saturated; a failed check
			// reads on rather than stall the stage.
			if err := c.downstream.WaitN(ctx, c.cfg.Downstream, int64(c.cfg.BatchSize)); err != nil && ctx.Err() == nil {
				c.log.Warn("read downstream pressure", "err", err)
			}
		}
		n := c.acquire(ctx, c.cfg.BatchSize)
		if n == 0 {
			return
		}
		streams, err := c.rdb.XReadGroup(ctx, &redis.XReadGroupArgs{
			Group: c.cfg.Group, Consumer: c.cfg.Consumer,
			Streams: []string{c.keys.Stream(), ">"}, Count: int64(n), Block: c.cfg.Block,
		}).Result()
		if err != nil {
			c.release(n)
			if errors.Is(err, redis.Nil) || ctx.Err() != nil {
				continue
			}
			if isNoGroup(err) {
				if err := c.EnsureGroup(ctx); err != nil {
					c.log.Error("recreate group", "err", err)
				}
			} else {
				c.log.Error("read new entries", "err", err)
			}
			sleep(ctx, time.Second)
			continue
		}
		var msgs []redis.XMessage
		for _, s := range streams {
			msgs = append(msgs, s.Messages...)
		}
		c.release(n - len(msgs))
		c.dispatch(ctx, msgs, nil)
	}
}

// readOwnPending re-reads entries delivered to this consumer name before
// (a restart with a stable CONSUMER name), oldest first.
func (r *reader) readOwnPending(ctx context.Context) {
	c := r.c
	start := "0"
	for ctx.Err() == nil {
		n := c.acquire(ctx, c.cfg.BatchSize)
		if n == 0 {
			return
		}
		streams, err := c.rdb.XReadGroup(ctx, &redis.XReadGroupArgs{
			Group: c.cfg.Group, Consumer: c.cfg.Consumer,
			Streams: []string{c.keys.Stream(), start}, Count: int64(n),
		}).Result()
		if err != nil {
			c.release(n)
			if !errors.Is(err, redis.Nil) && ctx.Err() == nil {
				c.log.Error("read own pending entries", "err", err)
			}
			return
		}
		var msgs []redis.XMessage
		for _, s := range streams {
			msgs = append(msgs, s.Messages...)
		}
		c.release(n - len(msgs))
		if len(msgs) == 0 {
			return
		}
		start = msgs[len(msgs)-1].ID
		c.dispatch(ctx, msgs, nil)
	}
}

// dispatch turns read entries into work. The caller holds one slot per
// entry. Trimmed entries are acked as lost, malformed ones dead-lettered,
// entries whose key is already in the ledger re-emit and ack, and the rest
// go to the workers under a lease.
func (c *Consumer) dispatch(ctx context.Context, msgs []redis.XMessage, deliveries map[string]int64) {
	if len(msgs) == 0 {
		return
	}
	now := time.Now()
	fresh := make([]*Message, 0, len(msgs))
	keys := make([]string, 0, len(msgs))
	for _, xm := range msgs {
		fields, ok := fieldsOf(xm.Values)
		if !ok {
			c.ackLost(xm.ID)
			c.release(1)
			continue
		}
		if c.leases.has(xm.ID) {
			// Already running here (a reclaim of our own slow entry).
			c.release(1)
			continue
		}
		m := &Message{ID: xm.ID, Stage: c.cfg.Stage, Fields: fields, Attempt: attemptOf(fields),
			Deferred: counterOf(fields, FieldDeferred), Deliveries: deliveries[xm.ID]}
		c.leases.add(m.ID, now.Add(c.cfg.HandlerTimeout))
		key, err := c.cfg.Key(c.cfg.Stage, c.cfg.Version, m)
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
		c.log.Warn("ledger pre-check failed; processing anyway", "err", err)
		done = nil
	}
	for _, m := range fresh {
		if emits, ok := done[m.Key]; ok {
			c.metrics.duplicates.Inc()
			c.commits <- &ledgerEntry{key: m.Key, stage: c.cfg.Stage, result: Result{Emit: emits}, msg: m, finished: true}
			continue
		}
		c.work <- m
	}
}

func (c *Consumer) ackLost(id string) {
	ctx, cancel := bookkeeping()
	defer cancel()
	if err := c.rdb.XAck(ctx, c.keys.Stream(), c.cfg.Group, id).Err(); err != nil {
		c.log.Error("ack trimmed entry", "id", id, "err", err)
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
