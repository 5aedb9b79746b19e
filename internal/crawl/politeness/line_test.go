package politeness_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newscrawl/newscrawl/internal/crawl/politeness"
	"github.com/newscrawl/newscrawl/pkg/streamkit/streamkittest"
)

// scriptCounter counts the scripts a client runs.
type scriptCounter struct{ n atomic.Int64 }

func (c *scriptCounter) DialHook(next redis.DialHook) redis.DialHook { return next }
func (c *scriptCounter) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if name := cmd.Name(); name == "evalsha" || name == "eval" {
			c.n.Add(1)
		}
		return next(ctx, cmd)
	}
}
func (c *scriptCounter) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

// Requests of one process waiting for one host take their turns in line:
// the first asks Redis, and a release wakes the next alone. (When every
// release woke every waiter, each of them asked Redis at each turn: here
// about a hundred scripts for eight requests, against four a request.)
func TestLimiter_WaitersOfOneProcessTakeTurnsInLine(t *testing.T) {
	rdb, prefix := streamkittest.Redis(t)
	var scripts scriptCounter
	rdb.AddHook(&scripts)
	l := politeness.New(rdb, prefix, 5*time.Second)
	const (
		delay    = 20 * time.Millisecond
		requests = 8
		host     = "news.example:8080"
	)
	ctx := context.Background()
	var mu sync.Mutex
	var sent []time.Time
	var wg sync.WaitGroup
	for range requests {
		wg.Go(func() {
			r, err := l.Reserve(ctx, host, delay)
			if err != nil || !r.Reserved {
				t.Errorf("reserve: %+v, %v", r, err)
				return
			}
			got, err := l.Await(ctx, r, delay, 10*time.Second)
			if err != nil {
				t.Error(err)
				return
			}
			time.Sleep(10 * time.Millisecond) // the host takes 10 ms to answer
			got.Release()
			mu.Lock()
			sent = append(sent, got.Sent)
			mu.Unlock()
		})
	}
	wg.Wait()
	checkSpaced(t, sent, requests, delay)
	// Per request: its reservation, the gate (once: woken by a release,
	// a request waits the delay before it asks), its release; one spare.
	if n := scripts.n.Load(); n > 4*requests {
		t.Fatalf("%d scripts for %d requests; want at most %d: only the first in line asks", n, requests, 4*requests)
	}
}
