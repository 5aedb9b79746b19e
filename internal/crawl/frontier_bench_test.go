package crawl_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/newscrawl/newscrawl/internal/crawl"
	"github.com/newscrawl/newscrawl/internal/testenv"
	"github.com/newscrawl/newscrawl/pkg/streamkit"
)

// BenchmarkFrontierUnderNestedSitemaps measures the frontier a hostile
// site grows at --max-depth 1: robots.txt names a sitemap index, every
// index names 10 more indexes and a sitemap of 100 pages, without end,
// and every page names an HTML page posing as its feed (issue 13 item 4).
// It crawls (delay 20 ms, the default hub cap) until the frontier has not
// grown for 10 s, or 3 minutes, and reports the frontier's size and the
// host's hubs at 60 s and at the end, and from when the frontier was flat
// (0: it never was):
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
		hubs := func() int64 {
			var n int64
			if err := e.Pool.QueryRow(context.Background(), `SELECT coalesce(sum(hubs), 0) FROM crawl_hosts`).Scan(&n); err != nil {
				b.Fatal(err)
			}
			return n
		}
		// Every 5 s up to 3 minutes: the frontier is flat once neither its
		// URLs nor its hubs grew over the last 10 s.
		var urlsAt60, hubsAt60, flatAt int64
		var hist [][2]int64
		for sec := int64(5); sec <= 180; sec += 5 {
			time.Sleep(5 * time.Second)
			n, h := count(), hubs()
			hist = append(hist, [2]int64{n, h})
			b.Logf("%3d s: %d URLs in the frontier, %d of them hubs (cap %d)", sec, n, h, crawl.DefaultMaxHubsPerHost)
			if sec == 60 {
				urlsAt60, hubsAt60 = n, h
			}
			if k := len(hist); k >= 3 && hist[k-3] == hist[k-1] {
				flatAt = sec - 10
				if sec >= 60 {
					break
				}
			} else {
				flatAt = 0
			}
		}
		n, h := count(), hubs()
		stop()
		srv.Close()
		b.ReportMetric(float64(urlsAt60), "urls@60s")
		b.ReportMetric(float64(hubsAt60), "hubs@60s")
		b.ReportMetric(float64(n), "urls-final")
		b.ReportMetric(float64(h), "hubs-final")
		b.ReportMetric(float64(flatAt), "flat-from-s")
	}
}

// BenchmarkTwoCrawlersAtTheDefaults is the two-crawler test at the
// defaults a deployment runs with — window 1,000, 1,000 finished entries
// kept, read batch 50, janitor every 30 s, feeder every 200 ms, scheduler
// every 30 s, 16 handlers each — on 5,000 seeded pages of one host (delay
// 2 ms) and a hub due every 300 ms. It reports the worst backlog (goal: at
// most window + a batch, 1,050) and the worst stream length (at most
// window + retained + a batch, 2,050):
//
//	go test -run '^$' -bench TwoCrawlersAtTheDefaults -benchtime 1x ./internal/crawl
func BenchmarkTwoCrawlersAtTheDefaults(b *testing.B) {
	for range b.N {
		e := &env{testenv.New(b)}
		cfg, cc := e.crawlConfig(), e.consumerConfig()
		cfg.HostDelay, cfg.Window, cfg.Retain = 2*time.Millisecond, crawl.DefaultWindow, streamkit.DefaultRetainLen
		cc.Concurrency, cc.BatchSize, cc.RetainLen, cc.JanitorInterval = 16, streamkit.DefaultBatchSize, streamkit.DefaultRetainLen, streamkit.DefaultJanitorInterval
		cc.Visibility, cc.Block = 60*time.Second, 2*time.Second
		r := twoCrawlers(b, e, cfg, cc, 5000, 5*time.Minute)
		b.ReportMetric(float64(r.fetched), "fetched")
		b.ReportMetric(float64(r.worstBacklog), "worst-backlog")
		b.ReportMetric(float64(r.worstLen), "worst-stream-len")
		b.ReportMetric(r.took.Seconds(), "s")
		b.ReportMetric(float64(len(r.twice)), "refetched")
	}
}
