package streamkit

import (
	"fmt"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// gather group-commits finished entries: one gatherer collects a batch,
// for at most the linger after its first entry, and hands it to the first
// free of the committers, each of which writes a batch in one ledger
// transaction, then emits downstream and acks in one pipeline. While every
// committer is busy the gatherer keeps filling the waiting batch (up to
// BatchSize), so batches grow with the load. One gatherer rather than
// committers gathering on their own: those split a slow trickle into
// batches of one (at a few hundred messages a second, a transaction per
// message). It returns when the commits channel is closed and drained, or
// once shutdown has abandoned stuck handlers (what is still queued then stays
// pending in Redis).
func (c *Consumer) gather() {
	batches := make(chan []*ledgerEntry)
	var committers sync.WaitGroup
	for range c.cfg.Committers {
		committers.Go(func() {
			for b := range batches {
				c.commitBatch(b)
			}
		})
	}
	defer committers.Wait()
	defer close(batches)

	linger := time.NewTimer(0)
	<-linger.C
	abandoned := c.abandoned
	for {
		var first *ledgerEntry
		select {
		case e, ok := <-c.commits:
			if !ok {
				return
			}
			first = e
		case <-abandoned:
			return
		}
		batch := make([]*ledgerEntry, 1, c.cfg.BatchSize)
		batch[0] = first
		linger.Reset(c.cfg.CommitLinger)
		open, lingering := true, true // more may come; the linger timer runs
		for {
			var in <-chan *ledgerEntry
			if open && len(batch) < c.cfg.BatchSize {
				in = c.commits
			}
			var out chan<- []*ledgerEntry
			if !lingering || in == nil {
				out = batches
			}
			select {
			case e, ok := <-in:
				if !ok {
					open = false
					continue
				}
				batch = append(batch, e)
				continue
			case <-abandoned:
				open, abandoned = false, nil // hand this batch over, then stop
				continue
			case <-linger.C:
				lingering = false
				continue
			case out <- batch:
			}
			break
		}
		if !linger.Stop() {
			select { // a fire not received yet (before Go 1.23's timers)
			case <-linger.C:
			default:
			}
		}
		if !open {
			return
		}
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
