package streamkit

import "context"

// An inflight table bounds the entries a consumer holds at once, over all
// its partitions: one slot per entry, taken before it is read or claimed and
// given back when it is acked, dead-lettered or given up.
type inflight struct {
	slots chan struct{}
}

func newInflight(n int) *inflight { return &inflight{slots: make(chan struct{}, n)} }

// acquire takes between 1 and n slots, blocking for the first; it returns 0
// when ctx is done.
func (f *inflight) acquire(ctx context.Context, n int) int {
	select {
	case f.slots <- struct{}{}:
	case <-ctx.Done():
		return 0
	}
	return 1 + f.tryAcquire(n-1)
}

// tryAcquire takes up to n slots without blocking.
func (f *inflight) tryAcquire(n int) int {
	got := 0
	for got < n {
		select {
		case f.slots <- struct{}{}:
			got++
		default:
			return got
		}
	}
	return got
}

// release gives n slots back.
func (f *inflight) release(n int) {
	for range n {
		<-f.slots
	}
}

// capacity is how many slots there are.
func (f *inflight) capacity() int { return cap(f.slots) }

// held is how many slots are taken.
func (f *inflight) held() int { return len(f.slots) }
