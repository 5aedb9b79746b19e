package streamkit

import (
	"cmp"
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// A committer group-commits finished entries: one gatherer collects a
// batch, for at most the linger after its first entry, and hands it to the
// first free of the committers, each of which writes a batch in one ledger
// transaction, then emits downstream and acks. While every committer is
// busy the gatherer keeps filling the waiting batch (up to the batch size),
// so batches grow with the load. One gatherer rather than committers
// gathering on their own: those split a slow trickle into batches of one
// (at a few hundred messages a second, a transaction per message).
type committer struct {
	p committerParams
}

type committerParams struct {
	ledger     *ledgerStore
	deps       *Dependencies
	log        logger
	in         <-chan *ledgerEntry // finished entries; closed when no handler sends any more
	abandoned  <-chan struct{}     // closed when shutdown gives up on stuck handlers
	hard       context.Context     // cancelled when shutdown's grace runs out
	committers int                 // ledger transactions in flight at once
	batch      int
	linger     time.Duration
	deadline   time.Duration // one ledger transaction's; 0: bookkeepingTimeout
	processed  prometheus.Counter
	// emit sends messages downstream; ack acks entries of a partition.
	emit func(ctx context.Context, emits []Emit) error
	ack  func(ctx context.Context, p *partition, ids []string) error
	// bookkeep runs an operation, waiting out an outage; fail routes a
	// failed entry (retry or DLQ); finish ends an entry's life here.
	bookkeep func(op func(ctx context.Context) error) error
	fail     func(m *Message, err error)
	finish   func(m *Message)
}

func newCommitter(p committerParams) *committer { return &committer{p: p} }

// run gathers and commits until the input is closed and drained, or once
// shutdown has abandoned stuck handlers (what is still queued then stays
// pending in Redis).
func (c *committer) run() {
	batches := make(chan []*ledgerEntry)
	var committers sync.WaitGroup
	for range c.p.committers {
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
	abandoned := c.p.abandoned
	for {
		var first *ledgerEntry
		select {
		case e, ok := <-c.p.in:
			if !ok {
				return
			}
			first = e
		case <-abandoned:
			return
		}
		batch := make([]*ledgerEntry, 1, c.p.batch)
		batch[0] = first
		linger.Reset(c.p.linger)
		open, lingering := true, true // more may come; the linger timer runs
		for {
			var in <-chan *ledgerEntry
			if open && len(batch) < c.p.batch {
				in = c.p.in
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
func (c *committer) commitBatch(batch []*ledgerEntry) {
	var todo []*ledgerEntry
	for _, e := range batch {
		if !e.finished {
			todo = append(todo, e)
		}
	}
	if len(todo) > 0 && !c.commitTodo(todo) {
		for _, e := range batch {
			c.p.finish(e.msg) // shutdown while paused: left pending
		}
		return
	}
	ok := batch[:0:0]
	for _, e := range batch {
		if e.err != nil {
			c.p.fail(e.msg, e.err)
			continue
		}
		ok = append(ok, e)
	}
	if len(ok) == 0 {
		return
	}
	if err := c.emitAndAck(ok); err != nil {
		// Committed but not acked: redelivery finds the ledger row and re-emits.
		c.p.log.failed("emit and ack", err, "n", len(ok))
	}
	for _, e := range ok {
		if !e.finished {
			c.p.processed.Inc()
		}
		c.p.finish(e.msg)
	}
}

// commitTodo commits entries to the ledger; false when shutdown's grace
// ran out while PostgreSQL was away (nothing was written). A transaction
// that overran its deadline while PostgreSQL answers is no entry's fault
// (a busy machine, an index kept up as rows arrive): the batch is
// committed in halves, and an entry that overruns alone is a runaway — no
// attempt spent until it happens MaxRunaways times in a row.
func (c *committer) commitTodo(todo []*ledgerEntry) bool {
	deadline := cmp.Or(c.p.deadline, bookkeepingTimeout)
	for conflicts := 0; ; {
		for _, e := range todo {
			e.err = nil
		}
		ctx, cancel := context.WithTimeout(context.Background(), deadline)
		err := c.p.ledger.commit(ctx, todo)
		overran := ctx.Err() == context.DeadlineExceeded
		cancel()
		switch {
		case err == nil:
			return true
		case retryNow(err) && conflicts < conflictRetries:
			conflicts++
			continue
		case c.p.deps.Down(err):
			if c.p.deps.Wait(c.p.hard) != nil {
				return false
			}
			continue
		case overran && len(todo) > 1:
			c.p.log.Warn("ledger commit overran its deadline; committing the batch in halves", "n", len(todo), "deadline", deadline.String())
			half := len(todo) / 2
			return c.commitTodo(todo[:half]) && c.commitTodo(todo[half:])
		case overran:
			todo[0].err = Runaway(deadline, fmt.Errorf("ledger commit of one entry overran its deadline: %w", err))
			return true
		}
		c.p.log.Error("ledger commit failed; scheduling the batch for retry", "n", len(todo), "err", err)
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
func (c *committer) emitAndAck(batch []*ledgerEntry) error {
	var emits []Emit
	ids := map[*partition][]string{}
	for _, e := range batch {
		emits = append(emits, e.result.Emit...)
		ids[e.msg.part] = append(ids[e.msg.part], e.msg.ID)
	}
	return c.p.bookkeep(func(ctx context.Context) error {
		if err := c.p.emit(ctx, emits); err != nil {
			return err
		}
		for p, ids := range ids {
			if err := c.p.ack(ctx, p, ids); err != nil {
				return err
			}
		}
		return nil
	})
}
