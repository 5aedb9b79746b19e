package crawl_test

import (
	"fmt"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"
)

// Two crawler processes (the real binary, each with its own User-Agent so
// the site can tell them apart) share one host whose robots.txt asks for a
// Crawl-delay: the gaps between requests, measured where they arrive, hold
// the delay whichever process sent them.
//
// Slots are granted in Redis exactly delay apart (TestCrawler_CrawlDelayAcrossProcesses)
// and each send is stamped in Redis no sooner than the delay after the
// previous one (TestLimiter_OverdueSlotsDoNotBurst); a request can still
// arrive closer to the one before when its process is descheduled between
// the stamp and the write to the socket. sendJitter allows for that on
// this shared 2-core box.
func TestCrawler_PolitenessGapsOnTheServer(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the crawler binary")
	}
	t.Parallel()
	const (
		crawlDelay = 300 * time.Millisecond
		sendJitter = 60 * time.Millisecond
		articles   = 8
	)
	e := newEnv(t)
	s := newSite(t)
	var mu sync.Mutex
	type arrival struct {
		at    time.Time
		agent string
		path  string
	}
	var arrivals []arrival
	record := func(next func(http.ResponseWriter, *http.Request)) func(http.ResponseWriter, *http.Request) {
		return func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			arrivals = append(arrivals, arrival{time.Now(), r.UserAgent(), r.URL.Path})
			mu.Unlock()
			next(w, r)
		}
	}
	serve := func(contentType, body string) func(http.ResponseWriter, *http.Request) {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", contentType)
			w.Write([]byte(body))
		}
	}
	s.handle("/robots.txt", record(serve("text/plain", fmt.Sprintf("User-agent: *\nCrawl-delay: %.1f\n", crawlDelay.Seconds()))))
	home := `<html><body>`
	for i := 1; i <= articles; i++ {
		p := fmt.Sprintf("/a%d", i)
		home += fmt.Sprintf(`<a href="%s">%d</a>`, p, i)
		s.handle(p, record(serve("text/html", article(i))))
	}
	s.handle("/", record(serve("text/html", home+`</body></html>`)))
	s.handle("/news/", record(serve("text/html", `<html><body>section</body></html>`)))

	var procs []*proc
	for _, name := range []string{"A", "B"} {
		p := e.startCrawler(name, "CRAWL_USER_AGENT=TestBot"+name+"/1.0", "CRAWL_HOST_DELAY=10ms",
			"CRAWL_CONCURRENCY=2", "CRAWL_BATCH_SIZE=1") // small reads: both processes get work
		procs = append(procs, p)
	}
	e.waitFor("the crawl group", 30*time.Second, e.groupReady, procs...)
	e.seed(s.URL+"/", nil)
	e.waitIdle(30 * time.Second)
	for _, p := range procs {
		p.stop()
	}

	mu.Lock()
	defer mu.Unlock()
	slices.SortFunc(arrivals, func(a, b arrival) int { return a.at.Compare(b.at) })
	if want := articles + 3; len(arrivals) != want { // robots.txt, home, section, articles
		t.Fatalf("%d requests, want %d", len(arrivals), want)
	}
	agents := map[string]int{}
	for _, a := range arrivals {
		agents[a.agent]++
	}
	if len(agents) != 2 {
		t.Fatalf("requests by agent %v; want both processes to have fetched", agents)
	}
	// arrivals[0] is robots.txt, fetched before the Crawl-delay was known
	// (with CRAWL_HOST_DELAY's 10ms gap).
	minGap := time.Hour
	for i := 2; i < len(arrivals); i++ {
		gap := arrivals[i].at.Sub(arrivals[i-1].at)
		minGap = min(minGap, gap)
		if gap < crawlDelay-sendJitter {
			t.Errorf("%s (%s) arrived %s after %s (%s); want >= %s (Crawl-delay) less %s send jitter",
				arrivals[i].path, arrivals[i].agent, gap, arrivals[i-1].path, arrivals[i-1].agent, crawlDelay, sendJitter)
		}
	}
	t.Logf("smallest gap between two page requests: %s (Crawl-delay %s); requests by agent %v", minGap, crawlDelay, agents)
}
