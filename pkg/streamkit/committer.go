package streamkit

import (
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// commitLoop group-commits finished entries: up to a batch, gathered for
// at most the linger after the first, goes into one ledger transaction;
// then one pipeline emits downstream and acks. It returns when the commits
// channel closes.
func (c *Consumer) commitLoop() {
	batch := make([]*ledgerEntry, 0, c.cfg.BatchSize)
	linger := time.NewTimer(0)
	<-linger.C
	for first := range c.commits {
		batch = append(batch[:0], first)
		linger.Reset(c.cfg.CommitLinger)
	fill:
		for len(batch) < c.cfg.BatchSize {
			select {
			case e, ok := <-c.commits:
				if !ok {
					break fill
				}
				batch = append(batch, e)
			case <-linger.C:
				break fill
			}
		}
		if !linger.Stop() {
			select {
			case <-linger.C:
			default:
			}
		}
		c.commitBatch(batch)
	}
}

func (c *Consumer) commitBatch(batch []*ledgerEntry) {
	var todo []*ledgerEntry
	for _, e := range batch {
		if !e.finished {
			todo = append(todo, e)
		}
	}
	if len(todo) > 0 {
		ctx, cancel := bookkeeping()
		err := c.ledger.commit(ctx, todo)
		cancel()
		if err != nil {
			c.log.Error("ledger commit failed; scheduling the batch for retry", "n", len(todo), "err", err)
			for _, e := range todo {
				e.err = Retryable("ledger", err)
			}
		}
	}
	ok := batch[:0:0]
	for _, e := range batch {
		if e.err != nil {
			c.fail(e.msg, e.err)
			continue
		}
		ok = append(ok, e)
	}
	if len(ok) == 0 {
		return
	}
	if err := c.emitAndAck(ok); err != nil {
		// Committed but not acked: redelivery finds the ledger row and re-emits.
		c.log.Error("emit and ack", "n", len(ok), "err", err)
	}
	for _, e := range ok {
		if !e.finished {
			c.metrics.processed.Inc()
		}
		c.finish(e.msg)
	}
}

// emitAndAck sends every emitted message downstream, then acks the batch,
// in one pipeline: XADDs first, so a crash in between duplicates (absorbed
// downstream) rather than loses.
func (c *Consumer) emitAndAck(batch []*ledgerEntry) error {
	ctx, cancel := bookkeeping()
	defer cancel()
	pipe := c.rdb.Pipeline()
	ids := make([]string, 0, len(batch))
	for _, e := range batch {
		for _, em := range e.result.Emit {
			values := make([]interface{}, 0, 2*len(em.Fields))
			for k, v := range em.Fields {
				values = append(values, k, v)
			}
			if len(values) == 0 {
				continue
			}
			pipe.XAdd(ctx, &redis.XAddArgs{Stream: KeysFor(c.cfg.Prefix, em.Stage).Stream(), Values: values})
		}
		ids = append(ids, e.msg.ID)
	}
	pipe.XAck(ctx, c.keys.Stream(), c.cfg.Group, ids...)
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("pipeline emit+ack: %w", err)
	}
	return nil
}
