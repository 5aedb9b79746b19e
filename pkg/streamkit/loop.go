package streamkit

import (
	"context"
	"sync"
	"time"
)

// A loop calls exec every interval until shutdown; the background loops of
// a consumer (lease keeper, promoter, janitor) are each one loop. A loop
// with a pace waits what pace says after each call instead (the first wait
// is the interval), and a signal on wake ends a wait early.
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
	wg.Add(1)
	go func() {
		defer wg.Done()
		if l.pace != nil {
			l.paced()
			return
		}
		t := time.NewTicker(l.interval)
		defer t.Stop()
		for {
			select {
			case <-l.ctx.Done():
				return
			case <-t.C:
				l.exec(l.ctx)
			}
		}
	}()
}

func (l *loop) paced() {
	t := time.NewTimer(l.interval)
	defer t.Stop()
	for {
		select {
		case <-l.ctx.Done():
			return
		case <-t.C:
		case <-l.wake:
		}
		l.exec(l.ctx)
		t.Reset(l.pace())
	}
}

func (l *loop) shutdown() { l.cancel() }
