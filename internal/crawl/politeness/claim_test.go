package politeness_test

import (
	"context"
	"testing"
	"time"

	"github.com/newscrawl/newscrawl/internal/crawl/politeness"
	"github.com/newscrawl/newscrawl/pkg/streamkit/streamkittest"
)

// A request whose slot is far away holds it and gets the same slot back
// when it returns, however often it asks; nobody else gets that slot, and
// a request beyond the horizon reserves nothing.
func TestLimiter_ClaimHoldsOneSlotPerRequest(t *testing.T) {
	rdb, prefix := streamkittest.Redis(t)
	l := politeness.New(rdb, prefix, time.Second)
	ctx := context.Background()
	const (
		host       = "news.example:8080"
		delay      = 100 * time.Millisecond
		deferAfter = 50 * time.Millisecond
		maxAhead   = 250 * time.Millisecond
	)
	claim := func(id string) politeness.Reservation {
		t.Helper()
		r, err := l.Claim(ctx, host, id, delay, deferAfter, maxAhead)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	first := claim("a")
	if !first.Reserved || first.Held {
		t.Fatalf("first claim = %+v; want a slot now, not held", first)
	}
	b := claim("b")
	if !b.Reserved || !b.Held || b.Slot.Sub(first.Slot) != delay {
		t.Fatalf("second claim = %+v; want held, one delay after %s", b, first.Slot)
	}
	if again := claim("b"); !again.Held || !again.Slot.Equal(b.Slot) {
		t.Fatalf("b claiming again = %+v; want its held slot %s", again, b.Slot)
	}
	c := claim("c")
	if !c.Held || c.Slot.Sub(b.Slot) != delay {
		t.Fatalf("third claim = %+v; want held, one delay after b's %s (no slot given twice)", c, b.Slot)
	}
	next, _ := rdb.Get(ctx, l.Key(host)).Int64()
	if d := claim("d"); d.Reserved || d.Held {
		t.Fatalf("claim beyond the horizon = %+v; want refused", d)
	}
	if after, _ := rdb.Get(ctx, l.Key(host)).Int64(); after != next {
		t.Fatalf("a refused claim moved the host's next slot: %d -> %d", next, after)
	}
	time.Sleep(time.Until(b.Slot))
	got := claim("b")
	if !got.Reserved || got.Held || !got.Slot.Equal(b.Slot) {
		t.Fatalf("b back at its slot = %+v; want its slot %s handed over", got, b.Slot)
	}
	if n, _ := rdb.Exists(ctx, l.HeldKey(host, "b")).Result(); n != 0 {
		t.Fatalf("b's held slot still stored after it was handed over")
	}
}
