package streamkit

import (
	"context"
	"sync"
	"time"
)

// A loop calls exec every interval until shutdown; the background loops of
// a consumer (lease keeper, promoter, janitor) are each one loop.
type loop struct {
	interval time.Duration
	exec     func(ctx context.Context)
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

func (l *loop) shutdown() { l.cancel() }
