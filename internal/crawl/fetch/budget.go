package fetch

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"golang.org/x/sync/semaphore"
)

// DefaultMaxInflightBytes is the crawler's default memory budget for bodies.
const DefaultMaxInflightBytes = 64 << 20

// A Budget bounds the body bytes a process holds at once, across every
// request: a body is reserved before it is read (its Content-Length, or
// the size limit when the length is unknown or compressed), the
// reservation shrinks to the body's size once decoded, and it is returned
// when the caller releases the response. Requests wait for room.
type Budget struct {
	sem   *semaphore.Weighted
	total int64
	used  atomic.Int64
	peak  atomic.Int64
}

// NewBudget returns a budget of n bytes.
func NewBudget(n int64) *Budget {
	return &Budget{sem: semaphore.NewWeighted(n), total: n}
}

// Peak is the most bytes held at once so far.
func (b *Budget) Peak() int64 { return b.peak.Load() }

// InUse is the bytes held now.
func (b *Budget) InUse() int64 { return b.used.Load() }

func (b *Budget) acquire(ctx context.Context, n int64) (int64, error) {
	n = min(max(n, 1), b.total) // never more than the whole budget: it would wait forever
	if err := b.sem.Acquire(ctx, n); err != nil {
		return 0, fmt.Errorf("wait for the body memory budget (%d bytes): %w", b.total, err)
	}
	used := b.used.Add(n)
	for p := b.peak.Load(); used > p && !b.peak.CompareAndSwap(p, used); p = b.peak.Load() {
	}
	return n, nil
}

func (b *Budget) release(n int64) {
	if n > 0 {
		b.used.Add(-n)
		b.sem.Release(n)
	}
}

// hold is a reservation that the response carries until it is released.
type hold struct {
	b    *Budget
	n    int64
	once sync.Once
}

func (h *hold) release() {
	if h != nil {
		h.once.Do(func() { h.b.release(h.n) })
	}
}

// keep shrinks a reservation of reserved bytes to the body's size, and
// makes sure it is returned even if the caller forgets: when the body is
// garbage collected.
func (b *Budget) keep(reserved int64, body []byte) *hold {
	n := min(int64(len(body)), reserved)
	b.release(reserved - n)
	h := &hold{b: b, n: n}
	if len(body) > 0 {
		runtime.AddCleanup(&body[0], func(h *hold) { h.release() }, h)
	}
	return h
}
