package web

import (
	"net/http/httptest"
	"testing"
	"time"
)

// Two slots, one place in the queue: a third request waits, a fourth is
// refused at once, and the waiter gets a slot when one is left.
func TestAdmission(t *testing.T) {
	a := newAdmission(2, 1, time.Minute)
	r := httptest.NewRequest("GET", "/", nil)
	if !a.enter(r) || !a.enter(r) {
		t.Fatal("the first two must enter")
	}
	got := make(chan bool)
	go func() { got <- a.enter(r) }()
	for len(a.queue) == 0 {
		time.Sleep(time.Millisecond)
	}
	if a.enter(r) {
		t.Fatal("a fourth request entered with the queue full")
	}
	a.leave()
	if !<-got {
		t.Fatal("the queued request did not get the freed slot")
	}
	short := newAdmission(1, 1, 10*time.Millisecond)
	short.enter(r)
	if short.enter(r) {
		t.Fatal("a queued request past its wait must be refused")
	}
}
