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
	p      readerParams
	budget int64 // entries that may still be read before the next pressure check
}

type readerParams struct {
	ops      *ops
	inflight *inflight
	deps     *Dependencies
	log      logger
	batch    int
	// pressure reads the work waiting on the downstream stage; nil: there is
	// none, and reading is bounded by the slots alone.
	pressure  func(ctx context.Context) (int64, error)
	highWater int64
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
		r.exec(ctx)
	}
}

// exec reads one batch of new entries, as many as there is room for.
func (r *reader) exec(ctx context.Context) {
	if r.p.deps.Wait(ctx) != nil {
		return
	}
	want := r.room(ctx, r.p.batch)
	if want == 0 {
		return
	}
	n := r.p.inflight.acquire(ctx, want)
	if n == 0 {
		return
	}
	msgs, err := r.p.ops.readNew(ctx, n)
	if err != nil {
		r.p.inflight.release(n)
		if ctx.Err() != nil {
			return
		}
		if isNoGroup(err) {
			if err := r.p.ops.ensureGroup(ctx); err != nil && !r.p.deps.Down(err) {
				r.p.log.failed("recreate group", err)
			}
		} else if !r.p.deps.Down(err) {
			r.p.log.failed("read new entries", err)
			sleep(ctx, time.Second)
		}
		return
	}
	r.budget -= int64(len(msgs))
	r.p.inflight.release(n - len(msgs))
	r.p.dispatch(ctx, msgs, nil)
}

// room is how many entries (at most want) may be read now: without a
// downstream stage, want; with one, its high-water mark minus what waits
// there minus what this consumer already holds (each of which may still
// emit). It waits while there is no room, and returns 0 when ctx ends or a
// dependency went away.
func (r *reader) room(ctx context.Context, want int) int {
	if r.p.pressure == nil {
		return want
	}
	for ctx.Err() == nil {
		if r.budget >= int64(want) {
			return want
		}
		waiting, err := r.p.pressure(ctx)
		if err != nil {
			if ctx.Err() != nil || r.p.deps.Down(err) {
				return 0
			}
			// Read on rather than stall the stage on a failed check.
			r.p.log.Warn("read downstream pressure", "err", err)
			return want
		}
		r.budget = r.p.highWater - waiting - int64(r.p.inflight.held())
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
