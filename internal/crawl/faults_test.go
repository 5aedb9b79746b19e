package crawl_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/newscrawl/newscrawl/internal/crawl"
	"github.com/newscrawl/newscrawl/internal/pipeline"
	"github.com/newscrawl/newscrawl/pkg/streamkit"
)

// A public page that redirects to a private address is refused at the
// dial, and the request is dead-lettered as ssrf_blocked; the private
// server is never reached. 127.0.0.2 stands in for a public host (it is
// allow-listed with AllowCIDRs, private addresses are not allowed).
func TestCrawler_RedirectToPrivateRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var privateHits atomic.Int32
	private := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		privateHits.Add(1)
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(article(1)))
	}))
	t.Cleanup(private.Close)

	ln, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Skipf("cannot listen on 127.0.0.2: %v", err)
	}
	s := &site{hits: map[string]int{}, times: map[string][]time.Time{}, routes: map[string]func(http.ResponseWriter, *http.Request){}}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hits[r.URL.RequestURI()]++
		h, ok := s.routes[r.URL.Path]
		s.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		h(w, r)
	}))
	s.Listener = ln
	s.Start()
	t.Cleanup(s.Close)
	s.handle("/to-private", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, private.URL+"/secret", http.StatusFound)
	})
	s.handle("/to-public", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/ok", http.StatusMovedPermanently)
	})
	s.page("/ok", "text/html", article(2))

	cfg := e.crawlConfig()
	cfg.AllowPrivate = false
	cfg.AllowCIDRs = []netip.Prefix{netip.MustParsePrefix("127.0.0.2/32")}
	e.start(e.consumerConfig(), e.crawler(cfg))
	one := map[string]string{crawl.FieldMaxDepth: "0", crawl.FieldHosts: "*"}
	e.seed(s.URL+"/to-private", one)
	e.seed(s.URL+"/to-public", one)
	e.waitIdle(10 * time.Second)

	if n := privateHits.Load(); n != 0 {
		t.Fatalf("the private server was reached %d times", n)
	}
	if n := s.hit("/to-private"); n != 1 {
		t.Errorf("/to-private requested %d times, want 1 (a refusal is permanent, not retried)", n)
	}
	dlq := e.dlq()
	if len(dlq) != 1 || dlq[s.URL+"/to-private"] != crawl.ErrTypeSSRF {
		t.Errorf("dead letters %v, want only %s/to-private as %s", dlq, s.URL, crawl.ErrTypeSSRF)
	}
	if st := e.state(s.URL + "/to-public"); st != crawl.StateFetched {
		t.Errorf("/to-public state %q, want fetched (a redirect within the allowed range)", st)
	}
	if n := s.hit("/ok"); n != 1 {
		t.Errorf("/ok requested %d times, want 1", n)
	}
}

// 429 answers: with Retry-After the request comes back no sooner than the
// server asked (measured on the server) and the wait is not a failed
// attempt; without it, the request is retried with backoff and then
// dead-lettered as http_429 with its attempts.
func TestCrawler_RateLimitedRetries(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := newSite(t)
	var mu sync.Mutex
	arrivals := map[string][]time.Time{}
	limited := func(path string, retryAfter string, okAfter int) {
		var calls atomic.Int32
		s.handle(path, func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			arrivals[path] = append(arrivals[path], time.Now())
			mu.Unlock()
			if okAfter == 0 || int(calls.Add(1)) <= okAfter {
				if retryAfter != "" {
					w.Header().Set("Retry-After", retryAfter)
				}
				http.Error(w, "slow down", http.StatusTooManyRequests)
				return
			}
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte(article(1)))
		})
	}
	// Four 429s with Retry-After: more than MaxAttempts (3), so only if the
	// waits are not counted as attempts does the page get fetched.
	limited("/retry-after", "1", 4)
	limited("/no-retry-after", "", 0)
	cc := e.consumerConfig()
	e.start(cc, e.crawler(e.crawlConfig()))
	one := map[string]string{crawl.FieldMaxDepth: "0"}
	e.seed(s.URL+"/retry-after", one)
	e.seed(s.URL+"/no-retry-after", one)
	e.waitIdle(30 * time.Second)

	tests := []struct {
		path      string
		wantHits  int
		wantState string
		wantDLQ   string
		minGap    time.Duration
	}{
		{"/retry-after", 5, crawl.StateFetched, "", time.Second},
		{"/no-retry-after", cc.MaxAttempts, "", crawl.ErrTypeRateLimited, 0},
	}
	dlq := e.dlq()
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			mu.Lock()
			at := arrivals[tt.path]
			mu.Unlock()
			if len(at) != tt.wantHits {
				t.Fatalf("requested %d times, want %d", len(at), tt.wantHits)
			}
			for i := 1; i < len(at); i++ {
				if gap := at[i].Sub(at[i-1]); gap < tt.minGap {
					t.Errorf("request %d came %s after the previous 429, want >= %s (Retry-After)", i+1, gap, tt.minGap)
				}
			}
			if st := e.state(s.URL + tt.path); st != tt.wantState {
				t.Errorf("state %q, want %q", st, tt.wantState)
			}
			if got := dlq[s.URL+tt.path]; got != tt.wantDLQ {
				t.Errorf("dead letter type %q, want %q", got, tt.wantDLQ)
			}
		})
	}
	if len(dlq) != 1 {
		t.Errorf("dead letters %v, want one", dlq)
	}
}

// A slow host — headers that never come, or a body that trickles past the
// fetch timeout — is retried with backoff and then dead-lettered as
// fetch_timeout, with the number of attempts made.
func TestCrawler_SlowHostTimesOutToDLQ(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := newSite(t)
	s.handle("/slow-headers", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	})
	s.handle("/slow-body", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<html><body>"))
		w.(http.Flusher).Flush()
		for range 100 {
			select {
			case <-r.Context().Done():
				return
			case <-time.After(50 * time.Millisecond):
				w.Write([]byte("<p>more</p>"))
				w.(http.Flusher).Flush()
			}
		}
	})
	cfg := e.crawlConfig()
	cfg.FetchTimeout = 300 * time.Millisecond
	cc := e.consumerConfig()
	e.start(cc, e.crawler(cfg))
	one := map[string]string{crawl.FieldMaxDepth: "0"}
	for _, p := range []string{"/slow-headers", "/slow-body"} {
		e.seed(s.URL+p, one)
	}
	e.waitIdle(30 * time.Second)

	admin := &streamkit.Admin{RDB: e.RDB, Prefix: e.Prefix}
	dls, err := admin.DLQList(context.Background(), pipeline.Crawl, streamkit.DLQFilter{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]streamkit.DeadLetter{}
	for _, d := range dls {
		got[d.Fields[crawl.FieldURL]] = d
	}
	for _, p := range []string{"/slow-headers", "/slow-body"} {
		t.Run(p, func(t *testing.T) {
			d, ok := got[s.URL+p]
			if !ok {
				t.Fatalf("no dead letter; have %v", e.dlq())
			}
			if d.ErrorType != crawl.ErrTypeTimeout || d.Attempts != cc.MaxAttempts {
				t.Errorf("dead letter type %q after %d attempts, want %q after %d (error: %s)",
					d.ErrorType, d.Attempts, crawl.ErrTypeTimeout, cc.MaxAttempts, d.Error)
			}
			if n := s.hit(p); n != cc.MaxAttempts {
				t.Errorf("requested %d times, want %d", n, cc.MaxAttempts)
			}
			if st := e.state(s.URL + p); st != "" {
				t.Errorf("state %q recorded for a fetch that never finished, want none", st)
			}
		})
	}
}
