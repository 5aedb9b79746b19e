package robots_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/newscrawl/newscrawl/internal/crawl/fetch"
	"github.com/newscrawl/newscrawl/internal/crawl/robots"
	"github.com/newscrawl/newscrawl/pkg/streamkit/streamkittest"
)

func TestCache_Rules(t *testing.T) {
	rdb, prefix := streamkittest.Redis(t)
	var hits atomic.Int32
	status, body := 200, ""
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.WriteHeader(status)
		w.Write([]byte(body))
	}))
	defer srv.Close()
	f := fetch.New(fetch.Config{AllowPrivate: true})
	ctx := context.Background()

	tests := []struct {
		name         string
		status       int
		body         string
		wantErr      error
		allowed      map[string]bool
		wantDelay    time.Duration
		wantSitemaps int
	}{
		{"rules for our agent win", 200, "User-agent: *\nDisallow: /\n\nUser-agent: testbot\nDisallow: /private/\nCrawl-delay: 2\nSitemap: /s.xml\n",
			nil, map[string]bool{"/": true, "/private/a": false, "/news?id=1": true}, 2 * time.Second, 1},
		{"404 allows all", 404, "", nil, map[string]bool{"/private/a": true}, 0, 0},
		{"503 is unavailable", 503, "", robots.ErrUnavailable, nil, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := robots.New(rdb, f, robots.Config{Prefix: prefix + ":" + tt.name, UserAgent: "TestBot/1.0 (+x)"})
			status, body = tt.status, tt.body
			before := hits.Load()
			r, err := c.Get(ctx, srv.URL)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				if n, _ := rdb.Exists(ctx, c.Key(srv.URL)).Result(); n != 0 {
					t.Fatal("an unavailable robots.txt was cached")
				}
				return
			}
			if err != nil || !r.Fetched {
				t.Fatalf("Get = %+v, %v", r, err)
			}
			for p, want := range tt.allowed {
				if r.Allowed(p) != want {
					t.Errorf("Allowed(%s) = %v, want %v", p, !want, want)
				}
			}
			if r.CrawlDelay != tt.wantDelay || len(r.Sitemaps) != tt.wantSitemaps {
				t.Errorf("delay %s sitemaps %v", r.CrawlDelay, r.Sitemaps)
			}
			// A second cache (another process) reads Redis, not the site.
			c2 := robots.New(rdb, f, robots.Config{Prefix: prefix + ":" + tt.name, UserAgent: "TestBot/1.0"})
			r2, err := c2.Get(ctx, srv.URL)
			if err != nil || r2.Fetched || hits.Load() != before+1 {
				t.Fatalf("second Get = %+v, %v; site hit %d times", r2, err, hits.Load()-before)
			}
		})
	}
}

// RFC 9309: a robots.txt over the size limit is parsed up to it, and what
// was read applies — a 50 MB file whose Disallow is at the top still keeps
// the crawler out (it once meant "allow all"). The server streams it; the
// crawler stops reading at the limit.
func TestCache_HugeRobotsTxtAppliesItsFirstRules(t *testing.T) {
	rdb, prefix := streamkittest.Redis(t)
	var sent atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("Content-Length", strconv.Itoa(50<<20))
		n, _ := io.WriteString(w, "User-agent: *\nDisallow: /private/\n")
		line := "# " + strings.Repeat("x", 1021) + "\n"
		for n < 50<<20 {
			m, err := io.WriteString(w, line[:min(len(line), 50<<20-n)])
			n += m
			sent.Store(int64(n))
			if err != nil {
				return // the crawler stopped reading
			}
		}
	}))
	defer srv.Close()
	c := robots.New(rdb, fetch.New(fetch.Config{AllowPrivate: true}), robots.Config{Prefix: prefix, UserAgent: "TestBot/1.0 (+x)"})
	r, err := c.Get(context.Background(), srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	if r.Allowed("/private/page") || !r.Allowed("/news/page") {
		t.Fatalf("a 50 MB robots.txt: /private/ allowed %v, /news/ allowed %v; want the Disallow at its top to apply",
			r.Allowed("/private/page"), r.Allowed("/news/page"))
	}
	if n := sent.Load(); n >= 50<<20 {
		t.Errorf("the whole %d bytes were sent: the crawler did not stop at the limit", n)
	}
}
