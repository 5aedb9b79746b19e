package crawl_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/newscrawl/newscrawl/internal/testenv"
)

// BenchmarkFrontierUnderNestedSitemaps measures the frontier a hostile
// site grows at --max-depth 1: robots.txt names a sitemap index, every
// index names 10 more indexes and a sitemap of 100 pages, without end,
// and every page names an HTML page posing as its feed (issue 13 item 4).
// It crawls for 45 s (delay 20 ms) and reports the frontier's size then
// and its growth over the last 10 s:
//
//	go test -run '^$' -bench FrontierUnderNestedSitemaps -benchtime 1x ./internal/crawl
func BenchmarkFrontierUnderNestedSitemaps(b *testing.B) {
	for range b.N {
		e := &env{testenv.New(b)}
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			base := "http://" + r.Host
			var id string
			switch p := r.URL.Path; {
			case p == "/robots.txt":
				fmt.Fprintf(w, "User-agent: *\nSitemap: %s/idx/0\n", base)
			case p == "/":
				w.Header().Set("Content-Type", "text/html")
				fmt.Fprintf(w, `<html><head><link rel="alternate" type="application/rss+xml" href="/fake/0"></head><body><p>Home.</p></body></html>`)
			case strings.HasPrefix(p, "/idx/"):
				id = strings.TrimPrefix(p, "/idx/")
				w.Header().Set("Content-Type", "application/xml")
				fmt.Fprint(w, `<?xml version="1.0" encoding="UTF-8"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
				for k := range 10 {
					fmt.Fprintf(w, `<sitemap><loc>%s/idx/%s.%d</loc></sitemap>`, base, id, k)
				}
				fmt.Fprintf(w, `<sitemap><loc>%s/sm/%s</loc></sitemap></sitemapindex>`, base, id)
			case strings.HasPrefix(p, "/sm/"):
				id = strings.TrimPrefix(p, "/sm/")
				w.Header().Set("Content-Type", "application/xml")
				fmt.Fprint(w, `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
				for k := range 100 {
					fmt.Fprintf(w, `<url><loc>%s/p/%s/%d</loc></url>`, base, id, k)
				}
				fmt.Fprint(w, `</urlset>`)
			default: // a page, or an HTML "feed", naming another "feed"
				w.Header().Set("Content-Type", "text/html")
				fmt.Fprintf(w, `<html><head><link rel="alternate" type="application/rss+xml" href="/fake%s/f"></head><body>%s</body></html>`,
					p, strings.Repeat("<p>Some text of a page that is long enough to be one.</p>", 5))
			}
		}))
		cfg := e.crawlConfig()
		cfg.HostDelay, cfg.MaxDepth, cfg.FetchTimeout = 20*time.Millisecond, 1, 5*time.Second
		stop := e.start(e.consumerConfig(), e.crawler(cfg))
		e.seed(srv.URL+"/", map[string]string{"max_depth": "1"})
		count := func() int64 {
			var n int64
			if err := e.Pool.QueryRow(context.Background(), `SELECT count(*) FROM urls`).Scan(&n); err != nil {
				b.Fatal(err)
			}
			return n
		}
		var at35 int64
		for s := 5; s <= 45; s += 5 {
			time.Sleep(5 * time.Second)
			n := count()
			b.Logf("%2d s: %d URLs in the frontier", s, n)
			if s == 35 {
				at35 = n
			}
		}
		n := count()
		stop()
		srv.Close()
		b.ReportMetric(float64(n), "urls@45s")
		b.ReportMetric(float64(n-at35)/10, "urls/s@35-45s")
	}
}
