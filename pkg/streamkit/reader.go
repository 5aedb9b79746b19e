package streamkit

import (
	"context"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// ledgerRecheck is how long an entry may wait between its read-time ledger
// check and its handler's start before the ledger is asked again (another
// consumer may have finished the same key meanwhile).
const ledgerRecheck = time.Second

// A reader feeds the workers from one partition of the stage: first the
// consumer's own pending entries, then idle entries of others (its
// reclaimer), then new entries, never more than the free in-flight slots,
// none while a dependency is away, and no more than the downstream stage
// has room for below its high-water mark.
type reader struct {
	p readerParams
}

type readerParams struct {
	ops      *ops
	inflight *inflight
	deps     *Dependencies
	log      logger
	batch    int   // entries per read at most
	gate     *gate // the downstream's room, shared by the consumer's readers; nil: none
	// former marks a stream of a former partition count: when it is
	// deleted (drained, then removed by the operator), its reader stops
	// instead of recreating it.
	former bool
	// dispatch hands read entries (one slot held for each) to the consumer.
	dispatch  func(ctx context.Context, msgs []redis.XMessage, deliveries map[string]int64)
	reclaimer *reclaimer
}

func newReader(p readerParams) *reader { return &reader{p: p} }

// run reads until ctx is cancelled. The reclaimer runs on its own ticker
// once the start-up sequence is done; run returns only after it stopped,
// so nothing is dispatched once the consumer starts draining.
func (r *reader) run(ctx context.Context) {
	r.readOwnPending(ctx)
	r.p.reclaimer.exec(ctx)
	var reclaiming sync.WaitGroup
	r.p.reclaimer.start(&reclaiming)
	defer reclaiming.Wait()
	defer r.p.reclaimer.shutdown()
	for ctx.Err() == nil {
		if !r.exec(ctx) {
			r.p.log.Info("a former partition's stream was deleted; its reader stops", "stream", r.p.ops.keys.Stream())
			return
		}
	}
}

// exec reads one batch of new entries, as many as there is room for. It
// returns false when the reader should stop: its former stream is gone.
func (r *reader) exec(ctx context.Context) bool {
	if r.p.deps.Wait(ctx) != nil {
		return true
	}
	want := r.p.gate.room(ctx, r.p.batch)
	if want == 0 {
		return true
	}
	n := r.p.inflight.acquire(ctx, want)
	r.p.gate.holding(want, n)
	if n == 0 {
		return true
	}
	msgs, err := r.p.ops.readNew(ctx, n)
	r.p.gate.unused(n - len(msgs))
	r.p.inflight.release(n - len(msgs))
	if err != nil {
		switch {
		case ctx.Err() != nil:
		case r.p.former && (isNoGroup(err) || isDeletedWhileBlocked(err)):
			return false
		case isNoGroup(err):
			if err := r.p.ops.ensureGroup(ctx); err != nil && !r.p.deps.Down(err) {
				r.p.log.failed("recreate group", err)
			}
		case !r.p.deps.Down(err):
			r.p.log.failed("read new entries", err)
			sleep(ctx, time.Second)
		}
		return true
	}
	r.p.dispatch(ctx, msgs, nil)
	return true
}

// readOwnPending re-reads entries delivered to this consumer name before
// (a restart with a stable CONSUMER name), oldest first.
func (r *reader) readOwnPending(ctx context.Context) {
	start := "0"
	for ctx.Err() == nil {
		if r.p.deps.Wait(ctx) != nil {
			return
		}
		n := r.p.inflight.acquire(ctx, r.p.batch)
		if n == 0 {
			return
		}
		msgs, err := r.p.ops.readOwn(ctx, start, n)
		if err != nil {
			r.p.inflight.release(n)
			if ctx.Err() == nil && r.p.deps.Down(err) {
				continue
			}
			if ctx.Err() == nil {
				r.p.log.failed("read own pending entries", err)
			}
			return
		}
		r.p.inflight.release(n - len(msgs))
		if len(msgs) == 0 {
			return
		}
		start = msgs[len(msgs)-1].ID
		r.p.dispatch(ctx, msgs, nil)
	}
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
