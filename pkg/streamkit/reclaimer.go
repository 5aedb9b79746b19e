package streamkit

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// A reclaimer takes over entries idle longer than the visibility (their
// consumer died or hangs) and dead-letters those delivered too often.
type reclaimer struct {
	c *Consumer
}

func newReclaimer(c *Consumer) *reclaimer { return &reclaimer{c: c} }

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
	c := r.c
	cursor := "0-0"
	for ctx.Err() == nil {
		n := c.tryAcquire(c.cfg.BatchSize)
		if n == 0 {
			return
		}
		msgs, next, deleted, err := c.rdb.XAutoClaimWithDeleted(ctx, &redis.XAutoClaimArgs{
			Stream: c.keys.Stream(), Group: c.cfg.Group, Consumer: c.cfg.Consumer,
			MinIdle: c.cfg.Visibility, Start: cursor, Count: int64(n),
		}).Result()
		if err != nil {
			c.release(n)
			if !errors.Is(err, redis.Nil) && ctx.Err() == nil && !isNoGroup(err) {
				c.log.Error("claim idle entries", "err", err)
			}
			return
		}
		c.release(n - len(msgs))
		for _, id := range deleted {
			c.metrics.lost.Inc()
			c.log.Warn("reclaimed entry was trimmed before it was processed; counted as lost", "id", id)
		}
		if len(deleted) > 0 {
			c.ackIDs(deleted)
		}
		if len(msgs) > 0 {
			c.log.Info("reclaimed idle entries", "n", len(msgs))
			deliveries, err := r.deliveries(ctx, msgs)
			if err != nil {
				c.log.Error("read delivery counts", "err", err)
			}
			msgs = r.dropPoison(msgs, deliveries)
			c.dispatch(ctx, msgs, deliveries)
		}
		if next == "0-0" || next == "" {
			return
		}
		cursor = next
	}
}

// deliveries reads the delivery count of each claimed entry (pipelined).
func (r *reclaimer) deliveries(ctx context.Context, msgs []redis.XMessage) (map[string]int64, error) {
	c := r.c
	pipe := c.rdb.Pipeline()
	cmds := make([]*redis.XPendingExtCmd, len(msgs))
	for i, m := range msgs {
		cmds[i] = pipe.XPendingExt(ctx, &redis.XPendingExtArgs{
			Stream: c.keys.Stream(), Group: c.cfg.Group, Start: m.ID, End: m.ID, Count: 1,
		})
	}
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return nil, fmt.Errorf("read pending entries: %w", err)
	}
	out := make(map[string]int64, len(msgs))
	for i, cmd := range cmds {
		if p := cmd.Val(); len(p) == 1 {
			out[msgs[i].ID] = p[0].RetryCount
		}
	}
	return out, nil
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
		if !ok {
			keep = append(keep, xm) // trimmed: dispatch acks it as lost
			continue
		}
		m := &Message{ID: xm.ID, Stage: c.cfg.Stage, Fields: fields, Attempt: attemptOf(fields), Deliveries: n}
		c.leases.add(m.ID, time.Now().Add(c.cfg.HandlerTimeout))
		c.deadLetter(m, ErrorTypePoison, fmt.Errorf("delivered %d times (ceiling %d): the handler crashes or hangs on it", n, c.cfg.MaxDeliveries))
	}
	return keep
}

func (c *Consumer) ackIDs(ids []string) {
	ctx, cancel := bookkeeping()
	defer cancel()
	if err := c.rdb.XAck(ctx, c.keys.Stream(), c.cfg.Group, ids...).Err(); err != nil {
		c.log.Error("ack entries", "n", len(ids), "err", err)
	}
}
