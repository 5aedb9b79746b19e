package crawl

import (
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
