package crawl

import (
	"context"
	"fmt"
	"testing"
	"time"
)

func TestRedirected_RemembersForAWhileWithinABound(t *testing.T) {
	var r redirected
	if r.has("http://a.example/x") {
		t.Fatal("an empty set has a URL")
	}
	r.add("http://a.example/x")
	if !r.has("http://a.example/x") || r.has("http://a.example/y") {
		t.Fatal("has does not answer for what was added")
	}
	r.seen["http://a.example/x"] = time.Now().Add(-redirectedFor - time.Second)
	if r.has("http://a.example/x") {
		t.Fatal("an old redirect is still remembered")
	}
	for i := range maxRedirected + 10 {
		r.add(fmt.Sprintf("http://a.example/%d", i))
	}
	if len(r.seen) > maxRedirected {
		t.Fatalf("%d remembered, bound %d", len(r.seen), maxRedirected)
	}
	if !r.has(fmt.Sprintf("http://a.example/%d", maxRedirected+9)) {
		t.Fatal("the newest is gone")
	}
}

// A turn waits for the fetch following a redirect to its page: the page is
// an alias only if that fetch got it; a cancelled wait decides from memory.
func TestRedirected_WaitsForARedirectOnItsWay(t *testing.T) {
	for _, fetched := range []bool{true, false} {
		final := "http://a.example/x" // the fetch got the page
		if !fetched {
			final = "" // it failed, or was redirected further
		}
		var r redirected
		end, _ := r.follow(context.Background(), "http://a.example/x")
		got := make(chan bool)
		go func() { got <- r.wait(context.Background(), "http://a.example/x") }()
		select {
		case v := <-got:
			t.Fatalf("wait returned %v while the redirect was on its way", v)
		case <-time.After(50 * time.Millisecond):
		}
		end(final)
		end(final) // a second call is a no-op
		if v := <-got; v != fetched {
			t.Fatalf("the redirect's fetch got the page: %v; wait said %v", fetched, v)
		}
		if len(r.following) != 0 {
			t.Fatalf("%d redirects still on their way", len(r.following))
		}
	}
	var r redirected
	r.follow(context.Background(), "http://a.example/y")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if r.wait(ctx, "http://a.example/y") {
		t.Fatal("a wait cut short says the page was fetched")
	}
}

// Two redirects to one page: the second waits for the first's fetch, and
// follows only if that fetch did not get the page.
func TestRedirected_ASecondRedirectWaitsForTheFirst(t *testing.T) {
	for _, fetched := range []bool{true, false} {
		final := "http://a.example/x"
		if !fetched {
			final = ""
		}
		var r redirected
		end, ok := r.follow(context.Background(), "http://a.example/x")
		if !ok {
			t.Fatal("the first redirect to a page is not followed")
		}
		second := make(chan bool)
		go func() {
			end2, ok := r.follow(context.Background(), "http://a.example/x")
			if ok {
				end2("http://a.example/x")
			}
			second <- ok
		}()
		select {
		case ok := <-second:
			t.Fatalf("the second redirect decided (%v) while the first was on its way", ok)
		case <-time.After(50 * time.Millisecond):
		}
		end(final)
		if ok := <-second; ok == fetched {
			t.Fatalf("the first fetch got the page: %v; the second followed: %v", fetched, ok)
		}
		if !r.has("http://a.example/x") {
			t.Fatal("the page one of them got is not remembered")
		}
	}
}
