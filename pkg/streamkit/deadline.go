package streamkit

import (
	"context"
	"sync"
	"time"
)

// A deadline is a handler's time budget. Unlike a context deadline it
// stops while the handler waits in Wait (a rate limiter, a paused model
// server), so only the handler's own work counts against it.
type deadline struct {
	mu        sync.Mutex
	timer     *time.Timer
	remaining time.Duration
	started   time.Time
	waits     int // nested Waits in progress
	stopped   bool
}

type deadlineKey struct{}

// newDeadline calls expire once d of working time has passed.
func newDeadline(d time.Duration, expire func()) *deadline {
	dl := &deadline{remaining: d, started: time.Now()}
	dl.timer = time.AfterFunc(d, expire)
	return dl
}

func (dl *deadline) pause() {
	dl.mu.Lock()
	defer dl.mu.Unlock()
	dl.waits++
	if dl.waits == 1 && !dl.stopped && dl.timer.Stop() {
		dl.remaining -= time.Since(dl.started)
	}
}

func (dl *deadline) resume() {
	dl.mu.Lock()
	defer dl.mu.Unlock()
	dl.waits--
	if dl.waits == 0 && !dl.stopped {
		dl.started = time.Now()
		dl.timer.Reset(max(dl.remaining, 0))
	}
}

func (dl *deadline) stop() {
	dl.mu.Lock()
	dl.stopped = true
	dl.timer.Stop()
	dl.mu.Unlock()
}

// Wait runs wait — a rate limiter's Wait, a sleep for a server's
// Retry-After, anything that waits for permission rather than works —
// outside the handler's deadline: the time it takes does not count against
// <STAGE>_HANDLER_TIMEOUT, and the entry's lease is kept meanwhile. Outside
// a handler it just calls wait. It returns wait's error.
func Wait(ctx context.Context, wait func(context.Context) error) error {
	if dl, ok := ctx.Value(deadlineKey{}).(*deadline); ok {
		dl.pause()
		defer dl.resume()
	}
	return wait(ctx)
}
