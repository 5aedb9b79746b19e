package fetch_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/newscrawl/newscrawl/internal/crawl/fetch"
)

// Twelve 2 MB bodies fetched at once, half with a length and half chunked,
// never hold more than the 5 MB budget; every one arrives, and the budget
// is whole again once they are released.
func TestBudgetBoundsBodiesInFlight(t *testing.T) {
	body := bytes.Repeat([]byte("<p>news</p>"), (2<<20)/11)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		if r.URL.Query().Get("len") == "1" {
			w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		}
		_, _ = w.Write(body)
	}))
	defer srv.Close()
	budget := fetch.NewBudget(5 << 20)
	f := fetch.New(fetch.Config{AllowPrivate: true, MaxBody: 3 << 20, Budget: budget})
	var wg sync.WaitGroup
	errs := make(chan error, 12)
	for i := range 12 {
		wg.Go(func() {
			resp, err := f.Fetch(context.Background(), fetch.Request{URL: srv.URL + "/?len=" + strconv.Itoa(i%2)})
			if err != nil {
				errs <- err
				return
			}
			if len(resp.Body) != len(body) {
				t.Errorf("body of %d bytes, want %d", len(resp.Body), len(body))
			}
			time.Sleep(30 * time.Millisecond) // the crawler parses and stores it meanwhile
			resp.Release()
			resp.Release() // twice is harmless
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if p := budget.Peak(); p > 5<<20 {
		t.Fatalf("peak %d bytes held, budget %d", p, 5<<20)
	}
	if budget.Peak() < 2<<20 {
		t.Fatalf("peak %d: the budget was never used", budget.Peak())
	}
	if n := budget.InUse(); n != 0 {
		t.Fatalf("%d bytes still held after every release", n)
	}

	// A response nobody releases is returned when its body is collected.
	resp, err := f.Fetch(context.Background(), fetch.Request{URL: srv.URL + "/?len=1"})
	if err != nil || budget.InUse() == 0 {
		t.Fatalf("fetch: %v, in use %d", err, budget.InUse())
	}
	resp = nil
	_ = resp
	for i := 0; i < 20 && budget.InUse() != 0; i++ {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if n := budget.InUse(); n != 0 {
		t.Fatalf("%d bytes still held after the unreleased body was collected", n)
	}
}
