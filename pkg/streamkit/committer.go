package streamkit

import (
	"context"
	"sync"
	"time"
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

// commitBatch writes a batch to the ledger, then emits and acks it. A
// conflict is run again at once; while PostgreSQL or Redis is away it waits
// and tries again, holding the batch (and its leases) instead of failing it.
func (c *Consumer) commitBatch(batch []*ledgerEntry) {
	var todo []*ledgerEntry
	for _, e := range batch {
		if !e.finished {
			todo = append(todo, e)
		}
	}
	if len(todo) > 0 && !c.commitTodo(todo) {
		for _, e := range batch {
			c.finish(e.msg) // shutdown while paused: left pending
		}
		return
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
		c.log.failed("emit and ack", err, "n", len(ok))
	}
	for _, e := range ok {
		if !e.finished {
			c.metrics.processed.Inc()
		}
		c.finish(e.msg)
	}
}

// commitTodo commits entries to the ledger; false when shutdown's grace
// ran out while PostgreSQL was away (nothing was written).
func (c *Consumer) commitTodo(todo []*ledgerEntry) bool {
	for conflicts := 0; ; {
		for _, e := range todo {
			e.err = nil
		}
		ctx, cancel := bookkeeping()
		err := c.ledger.commit(ctx, todo)
		cancel()
		switch {
		case err == nil:
			return true
		case retryNow(err) && conflicts < conflictRetries:
			conflicts++
			continue
		case c.deps.Down(err):
			if c.deps.Wait(c.hard) != nil {
				return false
			}
			continue
		}
		c.log.Error("ledger commit failed; scheduling the batch for retry", "n", len(todo), "err", err)
		for _, e := range todo {
			e.err = Retryable("ledger", err)
		}
		return true
	}
}

// emitAndAck sends every emitted message downstream and, once Redis has
// taken them, acks the batch, partition by partition: a crash in between
// duplicates (absorbed downstream) rather than loses. Two steps, not one
// pipeline: on a cluster the downstream stream lives on another node, and a
// pipeline runs each node's part in parallel.
func (c *Consumer) emitAndAck(batch []*ledgerEntry) error {
	var emits []Emit
	ids := map[*partition][]string{}
	for _, e := range batch {
		emits = append(emits, e.result.Emit...)
		ids[e.msg.part] = append(ids[e.msg.part], e.msg.ID)
	}
	return c.bookkeep(func(ctx context.Context) error {
		if err := c.parts[0].ops.emit(ctx, emits); err != nil {
			return err
		}
		for p, ids := range ids {
			if err := p.ops.ack(ctx, ids...); err != nil {
				return err
			}
		}
		return nil
	})
}
