package streamkit

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"
)

// The reader's and the reclaimer's loops, each built alone from its params
// against real Redis: no consumer, no handler, no PostgreSQL.

// collected records what a loop dispatched, as the consumer would receive it.
type collected struct {
	mu         sync.Mutex
	ids        []string
	deliveries map[string]int64
}

func (c *collected) dispatch(_ context.Context, msgs []redis.XMessage, deliveries map[string]int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ids = append(c.ids, idsOf(msgs)...)
	for id, n := range deliveries {
		if c.deliveries == nil {
			c.deliveries = map[string]int64{}
		}
		c.deliveries[id] = n
	}
}

func (c *collected) got() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.ids)
}

func quietLogger() logger {
	return logger{Logger: slog.New(slog.DiscardHandler), deps: NewDependencies(nil)}
}

func TestReclaimer_ClaimsIdleAndDeadLettersPoison(t *testing.T) {
	o, rdb := opsFor(t, "me")
	ctx := context.Background()
	ids := add(t, rdb, o.keys.Stream(), 3)
	if _, err := o.as("dead").readNew(ctx, 3); err != nil {
		t.Fatal(err)
	}
	// ids[2] has been delivered often: poison.
	for range 3 {
		rdb.XClaim(ctx, &redis.XClaimArgs{Stream: o.keys.Stream(), Group: "g", Consumer: "dead", Messages: ids[2:]})
	}
	time.Sleep(30 * time.Millisecond)
	part := &partition{ops: o, leases: newLeaseTable()}
	slots := newInflight(10)
	var got collected
	var poisoned []string
	r := newReclaimer(reclaimerParams{stage: "s", part: part, inflight: slots, deps: NewDependencies(nil), log: quietLogger(),
		visibility: 20 * time.Millisecond, batch: 10, maxDeliveries: 3, lost: prometheus.NewCounter(prometheus.CounterOpts{Name: "lost"}),
		dispatch: got.dispatch,
		deadLetter: func(m *Message, errType string, cause error) {
			poisoned = append(poisoned, m.ID+" "+errType)
			part.leases.remove(m.ID)
			slots.release(1)
		},
		bookkeep: func(op func(ctx context.Context) error) error { return op(ctx) },
	})
	r.exec(ctx)

	if !slices.Equal(got.got(), ids[:2]) {
		t.Fatalf("dispatched %v, want the two idle entries %v", got.got(), ids[:2])
	}
	if got.deliveries[ids[0]] != 2 {
		t.Fatalf("delivery counts %v: the claim's must reach the consumer", got.deliveries)
	}
	if !slices.Equal(poisoned, []string{ids[2] + " " + ErrorTypePoison}) {
		t.Fatalf("dead-lettered %v, want %s as poison", poisoned, ids[2])
	}
	if held := slots.held(); held != 2 {
		t.Fatalf("%d slots held after the pass, want 2 (one per dispatched entry)", held)
	}
}

func TestReclaimer_TakesNothingWithoutSlotsOrWhileADependencyIsAway(t *testing.T) {
	o, rdb := opsFor(t, "me")
	ctx := context.Background()
	add(t, rdb, o.keys.Stream(), 2)
	if _, err := o.as("dead").readNew(ctx, 2); err != nil {
		t.Fatal(err)
	}
	time.Sleep(30 * time.Millisecond)
	deps := NewDependencies(nil)
	full := newInflight(1)
	full.acquire(ctx, 1)
	var got collected
	params := reclaimerParams{stage: "s", part: &partition{ops: o, leases: newLeaseTable()}, inflight: full, deps: deps,
		log: quietLogger(), visibility: 20 * time.Millisecond, batch: 10, maxDeliveries: 5,
		lost: prometheus.NewCounter(prometheus.CounterOpts{Name: "lost"}), dispatch: got.dispatch,
		bookkeep: func(op func(ctx context.Context) error) error { return op(ctx) }}
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	newReclaimer(params).exec(short) // waits for a slot until its context ends
	if len(got.got()) != 0 {
		t.Fatalf("claimed %v with no free slot", got.got())
	}
	params.inflight = newInflight(10)
	b := deps.Add("model", func(context.Context) error { return errors.New("still away") }, nil)
	b.Trip(errors.New("away"))
	newReclaimer(params).exec(ctx)
	if len(got.got()) != 0 {
		t.Fatalf("claimed %v while a dependency was away", got.got())
	}
	deps.Close()
}

func TestReader_ReadsOnlyWhatTheDownstreamHasRoomFor(t *testing.T) {
	o, rdb := opsFor(t, "me")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	add(t, rdb, o.keys.Stream(), 9)
	var got collected
	waiting := int64(7) // the downstream stage holds 7 of its high-water mark of 10
	slots := newInflight(100)
	g := &gate{pressure: func(context.Context) (int64, error) { return waiting, nil }, highWater: 10, held: slots.held,
		log: quietLogger(), deps: NewDependencies(nil)}
	r := newReader(readerParams{ops: o, inflight: slots, deps: NewDependencies(nil), log: quietLogger(), batch: 5,
		gate: g, dispatch: got.dispatch})
	r.exec(ctx)
	if n := len(got.got()); n != 3 {
		t.Fatalf("read %d with room for 3 downstream", n)
	}
	// The three it holds count against the room until they are done.
	waiting = 0
	r.exec(ctx)
	if n := len(got.got()); n != 3+5 {
		t.Fatalf("read %d in all; want 3, then a batch of 5 (10 - 0 waiting - 3 held leaves 7)", n)
	}
	if held := slots.held(); held != 8 {
		t.Fatalf("%d slots held, want one per dispatched entry (8)", held)
	}
}

// The readers of one consumer (one per partition) share the downstream's
// room: together they take no more than it, not the room once each.
func TestGate_ReadersShareTheRoom(t *testing.T) {
	ctx := context.Background()
	slots := newInflight(1000)
	g := &gate{pressure: func(context.Context) (int64, error) { return 0, nil }, highWater: 100, held: slots.held,
		log: quietLogger(), deps: NewDependencies(nil)}
	var mu sync.Mutex
	granted := 0
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			rctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
			defer cancel()
			for rctx.Err() == nil {
				n := g.room(rctx, 50)
				g.holding(n, slots.tryAcquire(n)) // read and held, as a reader would
				mu.Lock()
				granted += n
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if granted > 100 {
		t.Fatalf("8 readers were granted %d entries of room 100", granted)
	}
	slots.release(slots.held())
	g.unused(30)
	if n := g.room(ctx, 20); n != 20 {
		t.Fatalf("after 30 given back unused, room for 20 = %d", n)
	}
}

// The promoter waits its interval while something is due soon, until the
// next entry is due when that is later, and maxPromoteWait when nothing is
// left; moving what is due is unchanged.
func TestPromoter_WaitsForTheNextDueEntry(t *testing.T) {
	o, rdb := opsFor(t, "me")
	ctx := context.Background()
	pr := newPromoter(promoterParams{ops: o, deps: NewDependencies(nil), log: quietLogger(), interval: 10 * time.Millisecond, limit: 10})
	defer pr.shutdown()
	pr.exec(ctx)
	if pr.wait != maxPromoteWait {
		t.Fatalf("wait %v with nothing due; want %v", pr.wait, maxPromoteWait)
	}
	// The entries' due times are set from the clock just before each pass;
	// a pass the machine delays past them moves them and is tried again.
	rdb.ZAdd(ctx, o.keys.Retry(), redis.Z{Score: float64(time.Now().UnixMilli() - 1), Member: `{"id":"b","f":{"doc_id":"due"}}`})
	for try := 0; ; try++ {
		member := fmt.Sprintf(`{"id":"a%d","f":{"doc_id":"later"}}`, try)
		rdb.ZAdd(ctx, o.keys.Deferred(), redis.Z{Score: float64(time.Now().UnixMilli() + 900), Member: member})
		pr.exec(ctx)
		if rdb.ZScore(ctx, o.keys.Deferred(), member).Err() == nil || try == 4 {
			break
		}
	}
	if n := rdb.XLen(ctx, o.keys.Stream()).Val(); n < 1 {
		t.Fatalf("stream holds %d; want the due entry moved", n)
	}
	if pr.wait <= 10*time.Millisecond || pr.wait > 900*time.Millisecond {
		t.Fatalf("wait %v with an entry due in at most 900ms; want longer than the interval and no later than it", pr.wait)
	}
	for try := 0; ; try++ {
		member := fmt.Sprintf(`{"id":"c%d","f":{"doc_id":"soon"}}`, try)
		rdb.ZAdd(ctx, o.keys.Retry(), redis.Z{Score: float64(time.Now().UnixMilli() + 8), Member: member})
		pr.exec(ctx)
		if rdb.ZScore(ctx, o.keys.Retry(), member).Err() == nil {
			break
		}
		if try == 4 {
			t.Skip("the machine never ran a pass within 8ms of its entry")
		}
	}
	if pr.wait != 10*time.Millisecond {
		t.Fatalf("wait %v with an entry due within the interval; want the interval", pr.wait)
	}
}

// Entries due later added in this process wake its promoters of that
// stream: through a window, and through a retry; one added due now does not.
func TestDueWakes_ANewEntryDueLaterWakesThePromoters(t *testing.T) {
	o, rdb := opsFor(t, "me")
	ctx := context.Background()
	wake, stop := listenDue(o.keys.Stream())
	defer stop()
	woken := func() bool {
		select {
		case <-wake:
			return true
		default:
			return false
		}
	}
	w := NewWindow(rdb, o.prefix, "s", "g", 10)
	if _, err := w.AddDue(ctx, []Due{{Fields: map[string]string{"doc_id": "now"}}}); err != nil {
		t.Fatal(err)
	}
	if woken() {
		t.Fatal("an entry due now woke the promoters")
	}
	if _, err := w.AddDue(ctx, []Due{{Fields: map[string]string{"doc_id": "later"}, After: time.Minute}}); err != nil {
		t.Fatal(err)
	}
	if !woken() {
		t.Fatal("an entry due later, added through the window, did not wake the promoters")
	}
	msgs, err := o.readNew(ctx, 1)
	if err != nil || len(msgs) != 1 {
		t.Fatalf("read %d (%v)", len(msgs), err)
	}
	if owned, err := o.scheduleRetry(ctx, msgs[0].ID, `{"id":"x","f":{"doc_id":"now"}}`, time.Minute, false); err != nil || !owned {
		t.Fatalf("schedule retry: owned %v, %v", owned, err)
	}
	if !woken() {
		t.Fatal("a retry did not wake the promoters")
	}
	stop()
	dueAdded(o.keys.Stream())
	if woken() {
		t.Fatal("a stopped listener was woken")
	}
}

// A paced loop waits what its pace says, and a wake ends the wait.
func TestLoop_PacedWaitEndsOnWake(t *testing.T) {
	ran := make(chan struct{}, 10)
	wake := make(chan struct{}, 1)
	l := newLoop(10*time.Millisecond, func(context.Context) { ran <- struct{}{} })
	l.pace, l.wake = func() time.Duration { return time.Hour }, wake
	var wg sync.WaitGroup
	l.start(&wg)
	defer func() { l.shutdown(); wg.Wait() }()
	select {
	case <-ran: // the first pass, an interval after the start
	case <-time.After(10 * time.Second):
		t.Fatal("no first pass")
	}
	wake <- struct{}{}
	select {
	case <-ran:
	case <-time.After(10 * time.Second):
		t.Fatal("a wake did not end the hour's wait")
	}
}
