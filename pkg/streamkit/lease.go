package streamkit

import (
	"context"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// A leaseTable tracks this consumer's in-flight entries and how long their
// lease may be extended.
type leaseTable struct {
	mu       sync.Mutex
	deadline map[string]time.Time
}

func newLeaseTable() *leaseTable { return &leaseTable{deadline: map[string]time.Time{}} }

func (t *leaseTable) add(id string, until time.Time) {
	t.mu.Lock()
	t.deadline[id] = until
	t.mu.Unlock()
}

func (t *leaseTable) remove(id string) {
	t.mu.Lock()
	delete(t.deadline, id)
	t.mu.Unlock()
}

func (t *leaseTable) has(id string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	_, ok := t.deadline[id]
	return ok
}

// live lists entries whose lease may still be extended at now.
func (t *leaseTable) live(now time.Time) []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	ids := make([]string, 0, len(t.deadline))
	for id, until := range t.deadline {
		if now.Before(until) {
			ids = append(ids, id)
		}
	}
	return ids
}

// A leaseKeeper refreshes the idle time of in-flight entries (XCLAIM to
// ourselves, JUSTID: no delivery count increment) every third of the
// visibility, so slow but alive work is never reclaimed. A handler past its
// timeout loses its lease, so a hung one is reclaimed and ends as poison.
type leaseKeeper struct {
	c *Consumer
	*loop
}

func newLeaseKeeper(c *Consumer) *leaseKeeper {
	k := &leaseKeeper{c: c}
	k.loop = newLoop(c.cfg.Visibility/3, k.exec)
	return k
}

func (k *leaseKeeper) exec(ctx context.Context) {
	c := k.c
	ids := c.leases.live(time.Now())
	for len(ids) > 0 {
		n := min(len(ids), 500)
		err := c.rdb.XClaimJustID(ctx, &redis.XClaimArgs{
			Stream: c.keys.Stream(), Group: c.cfg.Group, Consumer: c.cfg.Consumer,
			MinIdle: 0, Messages: ids[:n],
		}).Err()
		if err != nil && ctx.Err() == nil {
			c.log.Error("extend leases", "n", n, "err", err)
		}
		ids = ids[n:]
	}
}
