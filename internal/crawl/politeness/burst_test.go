package politeness_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/newscrawl/newscrawl/internal/crawl/politeness"
	"github.com/newscrawl/newscrawl/pkg/streamkit/streamkittest"
)

// Waiters whose slots all passed while their process was stalled (a
// descheduled process fires every overdue timer at once) must not send
// together: their sends are stamped one delay apart, across limiters.
func TestLimiter_OverdueSlotsDoNotBurst(t *testing.T) {
	rdb, prefix := streamkittest.Redis(t)
	limiters := []*politeness.Limiter{politeness.New(rdb, prefix, 5*time.Second), politeness.New(rdb, prefix, 5*time.Second)}
	const (
		delay   = 50 * time.Millisecond
		waiters = 4
		host    = "news.example:8080"
	)
	ctx := context.Background()
	reserved := overdue(t, limiters, host, delay, waiters) // the stall

	start := time.Now()
	var mu sync.Mutex
	var sent []time.Time
	var wg sync.WaitGroup
	for i, r := range reserved {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := limiters[i%2].Await(ctx, r, delay, 5*time.Second)
			if err != nil {
				t.Error(err)
				return
			}
			got.Release() // answered at once
			if got.Sent.Before(got.Slot) {
				t.Errorf("send stamped at %s, before its slot %s", got.Sent, got.Slot)
			}
			mu.Lock()
			sent = append(sent, got.Sent)
			mu.Unlock()
		}()
	}
	wg.Wait()
	checkSpaced(t, sent, waiters, delay)
	if took := time.Since(start); took < (waiters-1)*delay {
		t.Errorf("the overdue waiters were all through in %s; want them spread over >= %s", took, (waiters-1)*delay)
	}
}

// checkSpaced fails unless n requests went, each at least delay after the
// one before, by their send stamps.
func checkSpaced(t *testing.T, sent []time.Time, n int, delay time.Duration) {
	t.Helper()
	if len(sent) != n {
		t.Fatalf("%d requests went, want %d", len(sent), n)
	}
	slices.SortFunc(sent, func(a, b time.Time) int { return a.Compare(b) })
	for i := 1; i < len(sent); i++ {
		if gap := sent[i].Sub(sent[i-1]); gap < delay {
			t.Errorf("requests %d and %d went %s apart, want >= %s", i-1, i, gap, delay)
		}
	}
}
