package streamkit

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// A reclaimer takes over entries idle longer than the visibility (their
// consumer died or is stalled) and dead-letters those delivered too often.
// It does nothing while a dependency is away: a paused consumer takes no
// work from others.
type reclaimer struct {
	c    *Consumer
	part *partition
}

func newReclaimer(c *Consumer, p *partition) *reclaimer { return &reclaimer{c: c, part: p} }

// loop runs exec every half visibility until ctx is cancelled.
func (r *reclaimer) loop(ctx context.Context) {
	t := time.NewTicker(max(r.c.cfg.Visibility/2, 10*time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			r.exec(ctx)
		}
	}
}

// exec claims idle entries while slots are free; it logs its errors.
func (r *reclaimer) exec(ctx context.Context) {
	c, o := r.c, r.part.ops
	cursor := "0-0"
	for ctx.Err() == nil && c.deps.Err() == nil {
		n := c.tryAcquire(c.cfg.BatchSize)
		if n == 0 {
			return
		}
		msgs, next, deleted, err := o.claimIdle(ctx, c.cfg.Visibility, cursor, n)
		if err != nil {
			c.release(n)
			if ctx.Err() == nil && !isNoGroup(err) && !c.deps.Down(err) {
				c.log.failed("claim idle entries", err)
			}
			return
		}
		c.release(n - len(msgs))
		for _, id := range deleted {
			c.metrics.lost.Inc()
			c.log.Warn("reclaimed entry was trimmed before it was processed; counted as lost", "id", id)
		}
		if len(deleted) > 0 {
			if err := c.bookkeep(func(ctx context.Context) error { return o.ack(ctx, deleted...) }); err != nil {
				c.log.failed("ack trimmed entries", err, "n", len(deleted))
			}
		}
		if len(msgs) > 0 {
			c.log.Info("reclaimed idle entries", "n", len(msgs))
			ids := make([]string, len(msgs))
			for i, m := range msgs {
				ids[i] = m.ID
			}
			deliveries, err := o.deliveries(ctx, ids)
			if err != nil {
				c.log.failed("read delivery counts", err)
			}
			msgs = r.dropPoison(msgs, deliveries)
			c.dispatch(ctx, r.part, msgs, deliveries)
		}
		if next == "0-0" || next == "" {
			return
		}
		cursor = next
	}
}

// dropPoison dead-letters entries delivered more than MaxDeliveries times
// and returns the others. The caller's slots for dropped entries are freed.
func (r *reclaimer) dropPoison(msgs []redis.XMessage, deliveries map[string]int64) []redis.XMessage {
	c := r.c
	keep := msgs[:0]
	for _, xm := range msgs {
		n := deliveries[xm.ID]
		if n <= c.cfg.MaxDeliveries {
			keep = append(keep, xm)
			continue
		}
		fields, ok := fieldsOf(xm.Values)
		if !ok || !r.part.leases.add(xm.ID, time.Now()) {
			keep = append(keep, xm) // trimmed (dispatch acks it as lost), or still running here
			continue
		}
		m := &Message{ID: xm.ID, Stage: c.cfg.Stage, Fields: fields, Attempt: attemptOf(fields), Deliveries: n, part: r.part}
		c.deadLetter(m, ErrorTypePoison, fmt.Errorf("delivered %d times (ceiling %d): the handler crashes or hangs on it", n, c.cfg.MaxDeliveries))
	}
	return keep
}
