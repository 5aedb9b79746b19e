package politeness_test

import (
	"context"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/newscrawl/newscrawl/internal/crawl/politeness"
	"github.com/newscrawl/newscrawl/pkg/streamkit/streamkittest"
)

// Two limiters stand for two crawler processes sharing one Redis.
func TestLimiter_GapsHoldAcrossProcesses(t *testing.T) {
	rdb, prefix := streamkittest.Redis(t)
	a := politeness.New(rdb, prefix, 5*time.Second)
	b := politeness.New(rdb, prefix, 5*time.Second)
	const delay = 40 * time.Millisecond
	var mu sync.Mutex
	var slots []time.Time
	var wg sync.WaitGroup
	for i := range 10 {
		l := a
		if i%2 == 1 {
			l = b
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := l.Wait(context.Background(), "news.example:8080", delay)
			if err != nil {
				t.Error(err)
				return
			}
			r.Release() // answered at once
			if time.Now().Before(r.Slot.Add(-5 * time.Millisecond)) {
				t.Errorf("Wait returned before its slot")
			}
			mu.Lock()
			slots = append(slots, r.Slot)
			mu.Unlock()
		}()
	}
	wg.Wait()
	sort.Slice(slots, func(i, j int) bool { return slots[i].Before(slots[j]) })
	for i := 1; i < len(slots); i++ {
		if gap := slots[i].Sub(slots[i-1]); gap < delay {
			t.Fatalf("slots %d and %d only %s apart, want >= %s", i-1, i, gap, delay)
		}
	}
	// Another host is independent.
	r, err := a.Reserve(context.Background(), "other.example", delay)
	if err != nil || !r.Reserved || r.Wait != 0 {
		t.Fatalf("other host: %+v, %v", r, err)
	}
}

func TestLimiter_TooLongIsNotReserved(t *testing.T) {
	rdb, prefix := streamkittest.Redis(t)
	l := politeness.New(rdb, prefix, 100*time.Millisecond)
	ctx := context.Background()
	if _, err := l.Reserve(ctx, "h", time.Second); err != nil {
		t.Fatal(err)
	}
	before, _ := rdb.Get(ctx, l.Key("h")).Int64()
	r, err := l.Wait(ctx, "h", time.Second)
	wait, ok := politeness.IsTooLong(err)
	if !ok || r.Reserved || wait < 800*time.Millisecond {
		t.Fatalf("Wait = %+v, %v; want TooLongError near 1s", r, err)
	}
	after, _ := rdb.Get(ctx, l.Key("h")).Int64()
	if before != after {
		t.Fatalf("a refused reservation moved the host's next slot: %d -> %d", before, after)
	}
}

// The gap is kept from the host's answer, not from the send: a request the
// host takes 150 ms to answer holds the host that long, and the next one
// goes a delay after the answer, also from another process.
func TestLimiter_GapCountsFromTheAnswer(t *testing.T) {
	rdb, prefix := streamkittest.Redis(t)
	a, b := politeness.New(rdb, prefix, 5*time.Second), politeness.New(rdb, prefix, 5*time.Second)
	const delay, answer = 40 * time.Millisecond, 150 * time.Millisecond
	ctx := context.Background()
	first, err := a.Wait(ctx, "slow.example", delay)
	if err != nil {
		t.Fatal(err)
	}
	released := make(chan time.Time, 1)
	go func() {
		time.Sleep(answer)
		released <- time.Now()
		first.Release()
	}()
	second, err := b.Wait(ctx, "slow.example", delay)
	if err != nil {
		t.Fatal(err)
	}
	second.Release()
	at := <-released
	if gap := second.Sent.Sub(first.Sent); gap < answer+delay {
		t.Errorf("second request let go %s after the first, want >= the answer time %s plus the delay %s", gap, answer, delay)
	}
	if time.Now().Before(at.Add(delay)) {
		t.Errorf("second request let go less than the delay after the first answer")
	}
}

// A request that never releases its host (a crawler stopped or killed
// mid-request, or an answer that hangs) holds it for a bounded time only:
// the next request still goes, and not closer than the delay — also one
// of the same process, which waits for a release instead of polling.
func TestLimiter_AnUnreleasedTurnExpires(t *testing.T) {
	rdb, prefix := streamkittest.Redis(t)
	// A max wait past the test's deadline: only the hold's expiry lets
	// the next go in time.
	a, b := politeness.New(rdb, prefix, time.Minute), politeness.New(rdb, prefix, time.Minute)
	const delay = 20 * time.Millisecond
	for name, next := range map[string]*politeness.Limiter{"another process": b, "the same process": a} {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			host := strings.ReplaceAll(name, " ", "-") + ".example"
			first, err := a.Wait(ctx, host, delay)
			if err != nil {
				t.Fatal(err)
			}
			// first is never released
			second, err := next.Wait(ctx, host, delay)
			if err != nil {
				t.Fatalf("the host stayed held: %v", err)
			}
			second.Release()
			if gap := second.Sent.Sub(first.Sent); gap < delay {
				t.Errorf("second request let go %s after the unreleased first, want >= %s", gap, delay)
			}
		})
	}
}
