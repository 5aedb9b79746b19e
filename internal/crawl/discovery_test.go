package crawl_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/newscrawl/newscrawl/internal/crawl"
)

// Hubs keep the page depth, so their nesting has a limit of its own: a
// chain of sitemap indexes ten deep is followed MaxHubDepth levels, and a
// chain of HTML pages posing as feeds counts depth like any page.
func TestCrawler_DiscoveryIsBounded(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := newSite(t)
	s.page("/robots.txt", "text/plain", "User-agent: *\nSitemap: {base}/sm/1.xml\n")
	s.page("/", "text/html", `<html><head><link rel="alternate" type="application/rss+xml" href="/fake/1"></head>
		<body><p>Home of a site whose hubs go on and on.</p></body></html>`)
	for i := 1; i <= 10; i++ { // /sm/1.xml → /sm/2.xml → … each an index of the next
		s.page(fmt.Sprintf("/sm/%d.xml", i), "application/xml", fmt.Sprintf(`<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>{base}/sm/%d.xml</loc></sitemap></sitemapindex>`, i+1))
		// a "feed" that answers HTML and names the next "feed"
		s.handle(fmt.Sprintf("/fake/%d", i), func(i int) func(http.ResponseWriter, *http.Request) {
			return func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/html")
				fmt.Fprintf(w, `<html><head><link rel="alternate" type="application/rss+xml" href="/fake/%d"></head><body><p>Not a feed.</p></body></html>`, i+1)
			}
		}(i))
	}
	cfg := e.crawlConfig()
	cfg.MaxDepth, cfg.MaxHubDepth = 1, 3
	e.start(e.consumerConfig(), e.crawler(cfg))
	e.seed(s.URL+"/", nil)
	e.waitIdle(30 * time.Second)

	// robots.txt's sitemap is hub 1, its child 2, the next 3: no further
	for i := 1; i <= 10; i++ {
		want := 0
		if i <= 3 {
			want = 1
		}
		if n := s.hit(fmt.Sprintf("/sm/%d.xml", i)); n != want {
			t.Errorf("/sm/%d.xml fetched %d times, want %d", i, n, want)
		}
	}
	// max depth 1: the home page's "feed" /fake/1 answers HTML, so it is a
	// page at depth 1; the "feed" it names keeps depth 1 and is fetched (only
	// its answer says it is HTML), but as a page it is at depth 2: nothing
	// it names is followed
	for i, want := range map[int]int{1: 1, 2: 1, 3: 0, 4: 0} {
		if n := s.hit(fmt.Sprintf("/fake/%d", i)); n != want {
			t.Errorf("/fake/%d fetched %d times, want %d", i, n, want)
		}
	}
}

// A host that links more new URLs than CRAWL_MAX_URLS_PER_HOST allows gets
// that many into the frontier, and no more are fetched.
func TestCrawler_FrontierCapPerHost(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := newSite(t)
	s.page("/robots.txt", "text/plain", "User-agent: *\n")
	home := `<html><body><p>An endless calendar.</p>`
	for i := range 20 {
		home += fmt.Sprintf(`<a href="/day/%d">day %d</a> `, i, i)
		s.page(fmt.Sprintf("/day/%d", i), "text/html", fmt.Sprintf(`<html><body><p>Day %d.</p><a href="/day/%d/next">next</a></body></html>`, i, i))
	}
	s.page("/", "text/html", home+`</body></html>`)
	cfg := e.crawlConfig()
	cfg.MaxURLsPerHost = 5
	e.start(e.consumerConfig(), e.crawler(cfg))
	e.seed(s.URL+"/", nil)
	e.waitIdle(30 * time.Second)
	days := 0
	for i := range 20 {
		days += s.hit(fmt.Sprintf("/day/%d", i))
		days += s.hit(fmt.Sprintf("/day/%d/next", i))
	}
	if days != 5 {
		t.Errorf("%d calendar pages fetched, want 5 (the host's cap)", days)
	}
	var n int
	if err := e.Pool.QueryRow(t.Context(), `SELECT count(*) FROM urls WHERE url LIKE '%/day/%'`).Scan(&n); err != nil || n != 5 {
		t.Errorf("%d calendar URLs in the frontier (%v), want 5", n, err)
	}
}

// Sitemap indexes that each name 20 more without end stop at the host's hub
// cap, not at 20^CRAWL_MAX_HUB_DEPTH: the frontier goes flat at the cap, and
// the host shows the cap reached with what it dropped.
func TestCrawler_EndlessNestedIndexesStopAtTheHubCap(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := newSite(t)
	s.page("/robots.txt", "text/plain", "User-agent: *\nSitemap: {base}/idx/0.xml\n")
	s.page("/", "text/html", `<html><body><p>Home of a site whose indexes never end.</p></body></html>`)
	s.handle("/idx/*", func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/idx/"), ".xml")
		w.Header().Set("Content-Type", "application/xml")
		fmt.Fprint(w, `<?xml version="1.0" encoding="UTF-8"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
		for i := range 20 {
			fmt.Fprintf(w, `<sitemap><loc>%s/idx/%s-%d.xml</loc></sitemap>`, s.URL, name, i)
		}
		fmt.Fprint(w, `</sitemapindex>`)
	})
	cfg := e.crawlConfig()
	cfg.MaxHubDepth, cfg.MaxHubsPerHost = 10, 60
	e.start(e.consumerConfig(), e.crawler(cfg))
	e.seed(s.URL+"/", nil)
	e.waitIdle(60 * time.Second)

	var hubs int
	if err := e.Pool.QueryRow(t.Context(), `SELECT count(*) FROM urls WHERE url LIKE '%/idx/%'`).Scan(&hubs); err != nil {
		t.Fatal(err)
	}
	if hubs != 61 { // robots.txt's Sitemap line comes with the seed, beside the cap
		t.Fatalf("%d index URLs in the frontier, want robots.txt's sitemap and the cap, 60", hubs)
	}
	var all, again int
	e.Pool.QueryRow(t.Context(), `SELECT count(*) FROM urls`).Scan(&all)
	time.Sleep(time.Second) // flat: nothing more arrives once idle
	e.Pool.QueryRow(t.Context(), `SELECT count(*) FROM urls`).Scan(&again)
	if again != all {
		t.Fatalf("frontier grew from %d to %d after the crawl went idle", all, again)
	}
	caps, err := crawl.CappedHosts(t.Context(), e.Pool, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(caps) != 1 || caps[0].HubsDropped == 0 || caps[0].URLsDropped != 0 {
		t.Fatalf("capped hosts %+v; want the site, with hubs dropped and no page links", caps)
	}
}
