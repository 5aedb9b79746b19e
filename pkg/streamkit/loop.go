package streamkit

import (
	"context"
	"sync"
	"time"
)

// A loop calls exec every interval until shutdown; the background loops of
// a consumer (lease keeper, promoter, janitor) are each one loop. A loop
// with a pace waits what pace says after each call instead (the first wait
// is the interval), and a signal on wake ends a wait early. The interval
// runs from the end of one call to the start of the next.
type loop struct {
	interval time.Duration
	exec     func(ctx context.Context)
	pace     func() time.Duration
	wake     <-chan struct{}
	ctx      context.Context
	cancel   context.CancelFunc
}

func newLoop(interval time.Duration, exec func(ctx context.Context)) *loop {
	ctx, cancel := context.WithCancel(context.Background())
	return &loop{interval: interval, exec: exec, ctx: ctx, cancel: cancel}
}

func (l *loop) start(wg *sync.WaitGroup) {
	if l.interval <= 0 {
		return // disabled
	}
	pace := l.pace
	if pace == nil {
		pace = func() time.Duration { return l.interval }
	}
	wg.Go(func() {
		t := time.NewTimer(l.interval)
		defer t.Stop()
		for {
			select {
			case <-l.ctx.Done():
				return
			case <-t.C:
			case <-l.wake: // nil unless set: never ready
			}
			l.exec(l.ctx)
			t.Reset(pace())
		}
	})
}

func (l *loop) shutdown() { l.cancel() }
