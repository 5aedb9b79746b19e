package politeness_test

import (
	"context"
	"slices"
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

// countedLimiter is a limiter on the test's Redis whose scripts are counted.
func countedLimiter(t *testing.T) (*politeness.Limiter, *scriptCounter) {
	rdb, prefix := streamkittest.Redis(t)
	scripts := &scriptCounter{}
	rdb.AddHook(scripts)
	return politeness.New(rdb, prefix, 5*time.Second), scripts
}

// overdue reserves n slots of host, taking turns over the limiters, and
// sleeps until every slot is past, as after a stall.
func overdue(t *testing.T, limiters []*politeness.Limiter, host string, delay time.Duration, n int) []politeness.Reservation {
	t.Helper()
	var reserved []politeness.Reservation
	for i := range n {
		r, err := limiters[i%len(limiters)].Reserve(context.Background(), host, delay)
		if err != nil || !r.Reserved {
			t.Fatalf("reserve %d: %+v, %v", i, r, err)
		}
		reserved = append(reserved, r)
	}
	time.Sleep(time.Duration(n) * delay)
	return reserved
}

// Requests of one process waiting for one host take their turns in line:
// the first asks Redis, and a release wakes the next alone. (When every
// release woke every waiter, each of them asked Redis at each turn: here
// about a hundred scripts for eight requests, against four a request.)
func TestLimiter_WaitersOfOneProcessTakeTurnsInLine(t *testing.T) {
	l, scripts := countedLimiter(t)
	const (
		delay    = 20 * time.Millisecond
		requests = 8
		host     = "news.example:8080"
	)
	reserved := overdue(t, []*politeness.Limiter{l}, host, delay, requests) // all stand in line at once
	checkSpaced(t, sendAll(t, l, reserved, delay, 10*time.Millisecond), requests, delay)
	// Per request: its reservation and its release; the release hands
	// the turn to the next in line, which goes a delay later without
	// asking the gate (asking, each ran it once or twice: 24-26 scripts).
	t.Logf("%d scripts for %d requests", scripts.n.Load(), requests)
	if n := scripts.n.Load(); n > 2*requests+4 {
		t.Fatalf("%d scripts for %d requests; want at most %d: only the first in line asks, and a release hands it the turn", n, requests, 2*requests+4)
	}
}

// sendAll awaits every reservation at once, as workers do, holds each
// turn for answer (the host's answer) and returns when each was Sent.
func sendAll(t *testing.T, l *politeness.Limiter, reserved []politeness.Reservation, delay, answer time.Duration) []time.Time {
	t.Helper()
	var mu sync.Mutex
	var sent []time.Time
	var wg sync.WaitGroup
	for _, r := range reserved {
		wg.Go(func() {
			r.Wait = 0
			got, err := l.Await(context.Background(), r, delay, 10*time.Second)
			if err != nil {
				t.Error(err)
				return
			}
			time.Sleep(answer)
			got.Release()
			mu.Lock()
			sent = append(sent, got.Sent)
			mu.Unlock()
		})
	}
	wg.Wait()
	return sent
}

// lateScripts holds every second script back before it reaches Redis, as
// a loaded machine does now and then.
type lateScripts struct {
	n    atomic.Int64
	late time.Duration
}

func (c *lateScripts) DialHook(next redis.DialHook) redis.DialHook { return next }
func (c *lateScripts) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if name := cmd.Name(); (name == "evalsha" || name == "eval") && c.n.Add(1)%2 == 0 {
			time.Sleep(c.late)
		}
		return next(ctx, cmd)
	}
}
func (c *lateScripts) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

// A handed turn's Sent is never later than its send, however late the
// release's script reached Redis: the sends reported stay a delay apart.
// (Counting the delay from the answer while Sent counts from the script's
// stamp on the server, a script 15 ms late made two Sents 5 ms closer than
// the delay; a loaded machine once did it by 1.7 ms.)
func TestLimiter_HandedTurnsStaySpacedWhenReleasesRunLate(t *testing.T) {
	rdb, prefix := streamkittest.Redis(t)
	l := politeness.New(rdb, prefix, 5*time.Second)
	const (
		delay    = 20 * time.Millisecond
		requests = 6
		host     = "news.example:8080"
	)
	reserved := overdue(t, []*politeness.Limiter{l}, host, delay, requests)
	rdb.AddHook(&lateScripts{late: 15 * time.Millisecond})
	checkSpaced(t, sendAll(t, l, reserved, delay, 5*time.Millisecond), requests, delay)
}

// awaitAfterRelease awaits r while it stands in line for its host, releases
// going (the host answered), runs then (if given) right after the release,
// and returns r once it is let go.
func awaitAfterRelease(t *testing.T, l *politeness.Limiter, r, going politeness.Reservation, delay time.Duration, then ...func()) politeness.Reservation {
	t.Helper()
	done := make(chan politeness.Reservation, 1)
	go func() {
		got, err := l.Await(context.Background(), r, delay, time.Second)
		if err != nil {
			t.Error(err)
		}
		done <- got
	}()
	for l.InLine(r.Host) == 0 { // r waits for its slot
		time.Sleep(time.Millisecond)
	}
	going.Release()
	for _, f := range then {
		f()
	}
	return <-done
}

// A request still waiting for its slot is in line already, so the release
// before it hands it the turn: it goes at its slot, or a delay after that
// answer if later, without asking the gate. (Joining the line only at its
// slot, as a polite crawl's requests come, every request asked: three
// scripts a page where two do.)
func TestLimiter_RequestBeforeItsSlotIsHandedTheTurn(t *testing.T) {
	l, scripts := countedLimiter(t)
	const (
		delay = 200 * time.Millisecond // long enough for the second to join the line before its slot, however busy the machine
		host  = "news.example:8080"
	)
	ctx := context.Background()
	first, err := l.Reserve(ctx, host, delay)
	if err != nil {
		t.Fatal(err)
	}
	next, err := l.Reserve(ctx, host, delay)
	if err != nil || next.Wait < delay/2 {
		t.Fatalf("second reservation %+v, %v: want a slot about a delay away", next, err)
	}
	going, err := l.Await(ctx, first, delay, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	before := scripts.n.Load()
	got := awaitAfterRelease(t, l, next, going, delay)
	got.Release()
	if n := scripts.n.Load() - before; n != 2 {
		t.Errorf("%d scripts for the first's release and the second's turn and release, want 2: the second was handed the turn", n)
	}
	if got.Sent.Before(next.Slot) || got.Sent.Sub(going.Sent) < delay {
		t.Errorf("second sent at %s, its slot %s, the first sent at %s: want at its slot and a delay after the first",
			got.Sent.Format("15:04:05.000"), next.Slot.Format("15:04:05.000"), going.Sent.Format("15:04:05.000"))
	}
}

// A request whose slot is more than a delay away is not handed the turn:
// held that long, the turn would outlast the host's in-flight TTL, and
// another process's request could go beside it. The host is free after
// the release, and the request goes at its slot through the gate.
func TestLimiter_FarSlotIsNotHandedTheTurn(t *testing.T) {
	rdb, prefix := streamkittest.Redis(t)
	l := politeness.New(rdb, prefix, 5*time.Second)
	const (
		delay = 50 * time.Millisecond
		host  = "news.example:8080"
	)
	ctx := context.Background()
	var slots []politeness.Reservation
	for range 4 {
		r, err := l.Reserve(ctx, host, delay)
		if err != nil {
			t.Fatal(err)
		}
		slots = append(slots, r)
	}
	far := slots[3] // three delays away
	going, err := l.Await(ctx, slots[0], delay, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var held string
	var heldErr error
	got := awaitAfterRelease(t, l, far, going, delay, func() { held, heldErr = rdb.Get(ctx, l.BusyKey(host)).Result() })
	got.Release()
	if heldErr != redis.Nil {
		t.Errorf("after the release the host is held by %q (%v), want free until the far request's slot", held, heldErr)
	}
	if got.Sent.Before(far.Slot) {
		t.Errorf("far request sent at %s, before its slot %s", got.Sent.Format("15:04:05.000"), far.Slot.Format("15:04:05.000"))
	}
}

// A release hands the turn to the next request of its own process only
// while no other process's request waits for the host: two processes with
// requests lined up for one host share its turns instead of the first to
// get it keeping it until its line is empty.
func TestLimiter_HandedTurnsAreSharedWithOtherProcesses(t *testing.T) {
	rdb, prefix := streamkittest.Redis(t)
	limiters := []*politeness.Limiter{politeness.New(rdb, prefix, 5*time.Second), politeness.New(rdb, prefix, 5*time.Second)}
	const (
		delay = 20 * time.Millisecond
		each  = 6
		host  = "news.example:8080"
	)
	ctx := context.Background()
	type send struct {
		at  time.Time
		who int
	}
	reserved := overdue(t, limiters, host, delay, 2*each) // both lines fill at once
	var mu sync.Mutex
	var sends []send
	var wg sync.WaitGroup
	for i, r := range reserved {
		wg.Go(func() {
			r.Wait = 0
			got, err := limiters[i%2].Await(ctx, r, delay, 10*time.Second)
			if err != nil {
				t.Error(err)
				return
			}
			time.Sleep(5 * time.Millisecond) // the host's answer
			got.Release()
			mu.Lock()
			sends = append(sends, send{got.Sent, i % 2})
			mu.Unlock()
		})
	}
	wg.Wait()
	var at []time.Time
	for _, s := range sends {
		at = append(at, s.at)
	}
	checkSpaced(t, at, 2*each, delay)
	slices.SortFunc(sends, func(a, b send) int { return a.at.Compare(b.at) })
	run, longest := 0, 0
	for i, s := range sends {
		if i > 0 && s.who == sends[i-1].who {
			run++
		} else {
			run = 1
		}
		longest = max(longest, run)
	}
	if longest >= each {
		t.Fatalf("one process had %d turns in a row of %d: the other's requests waited for its whole line", longest, 2*each)
	}
}

// A turn handed to a request that then leaves (its context ends while it
// waits out the delay) is given back: another process's request goes a
// delay after the answer, not when the in-flight mark would expire.
func TestLimiter_HandedTurnNotTakenIsGivenBack(t *testing.T) {
	rdb, prefix := streamkittest.Redis(t)
	a, b := politeness.New(rdb, prefix, 5*time.Second), politeness.New(rdb, prefix, 5*time.Second)
	const (
		delay = 200 * time.Millisecond
		host  = "news.example:8080"
	)
	ctx := context.Background()
	first, err := a.Wait(ctx, host, delay)
	if err != nil {
		t.Fatal(err)
	}
	r, err := a.Reserve(ctx, host, delay)
	if err != nil || !r.Reserved {
		t.Fatalf("reserve: %+v, %v", r, err)
	}
	r.Wait = 0
	leaving, leave := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := a.Await(leaving, r, delay, 10*time.Second)
		done <- err
	}()
	time.Sleep(20 * time.Millisecond) // the second request is in line
	first.Release()
	if held := rdb.Get(ctx, a.BusyKey(host)).Val(); held == "" {
		t.Fatal("the release handed the turn to nobody; want the request in line")
	}
	released := time.Now()
	time.Sleep(delay / 4)
	leave()
	if err := <-done; err == nil {
		t.Fatal("the request whose context ended went")
	}
	other, err := b.Wait(ctx, host, delay)
	if err != nil {
		t.Fatal(err)
	}
	other.Release()
	// Not given back, the turn would stay held for the in-flight TTL
	// (the delay plus a second).
	if took := time.Since(released); took > delay+400*time.Millisecond {
		t.Fatalf("another process's request went %s after the answer; want about the delay, %s", took, delay)
	}
}

// While a request of this process holds the host, the next in line waits
// for its release instead of asking every 5 ms: a host that takes 300 ms
// to answer cost some 56 scripts for the two requests that way.
func TestLimiter_ASlowAnswerOfOursIsNotPolled(t *testing.T) {
	l, scripts := countedLimiter(t)
	const (
		delay  = 20 * time.Millisecond
		answer = 300 * time.Millisecond
		host   = "news.example:8080"
	)
	ctx := context.Background()
	first, err := l.Wait(ctx, host, delay)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan politeness.Reservation, 1)
	go func() {
		next, err := l.Wait(ctx, host, delay)
		if err != nil {
			t.Error(err)
		}
		done <- next
	}()
	time.Sleep(answer) // the host is slow to answer the first
	first.Release()
	next := <-done
	next.Release()
	if gap := next.Sent.Sub(first.Sent); gap < answer+delay {
		t.Fatalf("the second went %s after the first; want at least the answer and the delay, %s", gap, answer+delay)
	}
	// Two reservations, one gate (the first's), two releases; the second
	// may ask once before the first's turn is marked, and once more.
	if n := scripts.n.Load(); n > 8 {
		t.Fatalf("%d scripts for two requests; want at most 8: a request of ours in flight is waited for, not polled", n)
	}
}
