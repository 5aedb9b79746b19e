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

	mu      sync.Mutex
	budget  int64 // entries that may still be read before the next pressure check
	granted int64 // room handed to readers that do not hold its slots yet
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
			g.granted += int64(want)
			g.mu.Unlock()
			return want
		}
		waiting, err := g.pressure(ctx)
		if err != nil {
			// Read on rather than stall the stage on a failed check.
			readOn := ctx.Err() == nil && !g.deps.Down(err)
			if readOn {
				g.granted += int64(want)
			}
			g.mu.Unlock()
			if !readOn {
				return 0
			}
			g.log.Warn("read downstream pressure", "err", err)
			return want
		}
		// Room granted but not yet held is in neither held nor waiting:
		// without it two readers could be given the same room.
		g.budget = g.highWater - waiting - int64(g.held()) - g.granted
		if g.budget > 0 {
			n := min(int64(want), g.budget)
			g.budget -= n
			g.granted += n
			g.mu.Unlock()
			return int(n)
		}
		g.mu.Unlock()
		sleep(ctx, 100*time.Millisecond)
	}
	return 0
}

// holding says a reader now holds n slots for a grant of want entries of
// room (n ≤ want; 0 when it could take none): from here held() counts
// them, and the rest of the grant goes back.
func (g *gate) holding(want, n int) {
	if g == nil {
		return
	}
	g.mu.Lock()
	g.granted -= int64(want)
	g.budget += int64(want - n)
	g.mu.Unlock()
}

// unused gives back room a reader held but did not fill.
func (g *gate) unused(n int) {
	if g == nil || n <= 0 {
		return
	}
	g.mu.Lock()
	g.budget += int64(n)
	g.mu.Unlock()
}
