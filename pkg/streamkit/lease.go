package streamkit

import (
	"context"
	"errors"
	"sync"
	"time"
)

// errLeaseLost cancels a handler whose entry another consumer now owns.
var errLeaseLost = errors.New("entry is owned by another consumer now")

// A lease is what this consumer knows of one entry it holds.
type lease struct {
	confirmed time.Time // when Redis last confirmed we own it (read, claim, renewal)
	expires   time.Time // zero: renewed while held; else renewed only until then
	lost      bool      // another consumer owns it now
	cancel    context.CancelCauseFunc
}

// A leaseTable tracks every entry this consumer holds, from the moment it
// is read until it is acked, dead-lettered or given up: waiting for a
// worker, in its handler, waiting for a commit. All of them are renewed.
type leaseTable struct {
	mu     sync.Mutex
	leases map[string]*lease
}

func newLeaseTable() *leaseTable { return &leaseTable{leases: map[string]*lease{}} }

// add starts the lease of an entry Redis just delivered; false if it is
// already held here (a reclaim of our own entry).
func (t *leaseTable) add(id string, now time.Time) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, ok := t.leases[id]; ok {
		return false
	}
	t.leases[id] = &lease{confirmed: now}
	return true
}

func (t *leaseTable) remove(id string) {
	t.mu.Lock()
	delete(t.leases, id)
	t.mu.Unlock()
}

func (t *leaseTable) len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.leases)
}

// state reports whether the entry is lost and when it was last confirmed.
func (t *leaseTable) state(id string) (confirmed time.Time, lost bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	l, ok := t.leases[id]
	if !ok {
		return time.Time{}, true
	}
	return l.confirmed, l.lost
}

// running records the cancel function of the entry's handler, so losing
// the entry stops it (nil clears it), and renews the lease without end
// again. It returns false if the entry is lost.
func (t *leaseTable) running(id string, cancel context.CancelCauseFunc) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	l, ok := t.leases[id]
	if !ok || l.lost {
		return false
	}
	l.cancel = cancel
	if cancel != nil {
		l.expires = time.Time{}
	}
	return true
}

// expire stops renewing the entry after until: a handler overran its
// deadline and has not returned, so the entry must become reclaimable.
func (t *leaseTable) expire(id string, until time.Time) {
	t.mu.Lock()
	if l, ok := t.leases[id]; ok {
		l.expires = until
	}
	t.mu.Unlock()
}

// renewable lists the entries to renew at now: held, not lost, not expired.
func (t *leaseTable) renewable(now time.Time) []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	ids := make([]string, 0, len(t.leases))
	for id, l := range t.leases {
		if !l.lost && (l.expires.IsZero() || now.Before(l.expires)) {
			ids = append(ids, id)
		}
	}
	return ids
}

// confirm records that Redis confirmed ownership of ids at now.
func (t *leaseTable) confirm(ids []string, now time.Time) {
	t.mu.Lock()
	for _, id := range ids {
		if l, ok := t.leases[id]; ok {
			l.confirmed = now
		}
	}
	t.mu.Unlock()
}

// markLost records that another consumer owns ids (or nobody does: acked
// elsewhere) and cancels their running handlers.
func (t *leaseTable) markLost(ids []string) {
	t.mu.Lock()
	var cancels []context.CancelCauseFunc
	for _, id := range ids {
		if l, ok := t.leases[id]; ok && !l.lost {
			l.lost = true
			if l.cancel != nil {
				cancels = append(cancels, l.cancel)
			}
		}
	}
	t.mu.Unlock()
	for _, cancel := range cancels {
		cancel(errLeaseLost)
	}
}

// A leaseKeeper renews every lease this consumer holds, every third of the
// visibility, with one script that claims back (JUSTID: no delivery is
// counted) only entries still owned by this consumer. Entries found owned
// by another consumer are marked lost: a queued one is dropped before a
// handler sees it, a running one has its handler cancelled.
type leaseKeeper struct {
	*loop
	p leaseParams
}

type leaseParams struct {
	ops    *ops
	leases *leaseTable
	deps   *Dependencies
	log    logger
	period time.Duration
}

func newLeaseKeeper(p leaseParams) *leaseKeeper {
	k := &leaseKeeper{p: p}
	k.loop = newLoop(p.period, k.exec)
	return k
}

func (k *leaseKeeper) exec(ctx context.Context) {
	ids := k.p.leases.renewable(time.Now())
	for len(ids) > 0 {
		n := min(len(ids), 500)
		now := time.Now()
		owned, lost, err := k.p.ops.renew(ctx, ids[:n])
		if err != nil {
			if ctx.Err() == nil {
				k.p.deps.Down(err)
				k.p.log.failed("renew leases", err, "n", n)
			}
			return
		}
		k.p.leases.confirm(owned, now)
		if len(lost) > 0 {
			k.p.leases.markLost(lost)
			k.p.log.Info("entries are owned by another consumer now; dropping them here", "n", len(lost))
		}
		ids = ids[n:]
	}
}
