package streamkit

import (
	"context"
	"sync"
	"time"
)

// A gate bounds what a consumer's readers take in to what the downstream
// stage has room for below its high-water mark. One gate serves every
// reader of the consumer (one per partition), so together they take no more
// than the room, not the room once each.
type gate struct {
	pressure  func(ctx context.Context) (int64, error) // work waiting downstream
	highWater int64
	held      func() int // entries the consumer holds, each of which may still emit
	log       logger
	deps      *Dependencies

	mu     sync.Mutex
	budget int64 // entries that may still be read before the next pressure check
}

// room is how many entries (at most want) a reader may read now: the
// high-water mark minus what waits downstream minus what the consumer
// holds, shared with the other readers. It waits while there is no room,
// and returns 0 when ctx ends or a dependency went away. A nil gate (no
// downstream stage) always has room.
func (g *gate) room(ctx context.Context, want int) int {
	if g == nil {
		return want
	}
	for ctx.Err() == nil {
		g.mu.Lock()
		if g.budget >= int64(want) {
			g.budget -= int64(want)
			g.mu.Unlock()
			return want
		}
		waiting, err := g.pressure(ctx)
		if err != nil {
			g.mu.Unlock()
			if ctx.Err() != nil || g.deps.Down(err) {
				return 0
			}
			// Read on rather than stall the stage on a failed check.
			g.log.Warn("read downstream pressure", "err", err)
			return want
		}
		g.budget = g.highWater - waiting - int64(g.held())
		if g.budget > 0 {
			n := min(int64(want), g.budget)
			g.budget -= n
			g.mu.Unlock()
			return int(n)
		}
		g.mu.Unlock()
		sleep(ctx, 100*time.Millisecond)
	}
	return 0
}

// unused gives back room a reader took but did not fill.
func (g *gate) unused(n int) {
	if g == nil || n <= 0 {
		return
	}
	g.mu.Lock()
	g.budget += int64(n)
	g.mu.Unlock()
}
