package crawl_test

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/newscrawl/newscrawl/internal/crawl"
	"github.com/newscrawl/newscrawl/internal/crawl/politeness"
	"github.com/newscrawl/newscrawl/pkg/streamkit"
)

// Two crawler processes (two Crawlers, two consumers) share one host: the
// robots.txt Crawl-delay holds between every pair of page requests, as
// granted by Redis.
func TestCrawler_CrawlDelayAcrossProcesses(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := newSite(t)
	s.page("/robots.txt", "text/plain", "User-agent: *\nCrawl-delay: 0.2\n")
	home := `<html><body>`
	for i := 1; i <= 5; i++ {
		p := fmt.Sprintf("/a%d", i)
		home += fmt.Sprintf(`<a href="%s">%d</a>`, p, i)
		s.page(p, "text/html", article(i))
	}
	s.page("/", "text/html", home+`</body></html>`)

	var mu sync.Mutex
	var slots []time.Time
	record := func(r politeness.Reservation) {
		mu.Lock()
		slots = append(slots, r.Slot)
		mu.Unlock()
	}
	for i := range 2 {
		cfg := e.crawlConfig()
		cfg.HostDelay = 10 * time.Millisecond
		cfg.OnReserve = record
		cc := e.consumerConfig()
		cc.Consumer = fmt.Sprintf("crawler-%d", i)
		e.start(cc, e.crawler(cfg))
	}
	e.seed(s.URL+"/", nil)
	e.waitIdle(20 * time.Second)

	if got := s.totalHits(); got != 8 {
		t.Fatalf("%d requests, want 8 (robots, home, section, 5 articles): %v", got, s.hits)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(slots) != 8 {
		t.Fatalf("%d slots granted, want 8", len(slots))
	}
	sort.Slice(slots, func(i, j int) bool { return slots[i].Before(slots[j]) })
	// slots[0] is robots.txt, taken before the Crawl-delay was known.
	for i := 2; i < len(slots); i++ {
		if gap := slots[i].Sub(slots[i-1]); gap < 200*time.Millisecond {
			t.Errorf("slots %d and %d are %s apart, want >= 200ms (Crawl-delay)", i-1, i, gap)
		}
	}
}

func TestScheduler_RecrawlsDueHubs(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := newSite(t)
	items := `<item><link>{base}/a1</link></item>`
	feed := func() string {
		return `<?xml version="1.0"?><rss version="2.0"><channel><title>t</title>` + items + `</channel></rss>`
	}
	s.page("/feed.xml", "application/rss+xml", feed())
	s.page("/a1", "text/html", article(1))
	s.page("/a2", "text/html", article(2))
	e.start(e.consumerConfig(), e.crawler(e.crawlConfig()))
	e.seed(s.URL+"/feed.xml", map[string]string{crawl.FieldRecrawl: "1h"})
	e.waitIdle(10 * time.Second)
	if s.hit("/a1") != 1 || s.hit("/feed.xml") != 1 {
		t.Fatalf("first crawl: a1 %d, feed %d", s.hit("/a1"), s.hit("/feed.xml"))
	}

	sched := crawl.NewScheduler(e.Pool, e.crawlConfig())
	ctx := context.Background()
	if n, err := sched.Exec(ctx); err != nil || n != 0 {
		t.Fatalf("Exec before due = %d, %v; want 0", n, err)
	}
	items += `<item><link>{base}/a2</link></item>`
	s.page("/feed.xml", "application/rss+xml", feed())
	if _, err := e.Pool.Exec(ctx, `UPDATE urls SET next_crawl_at = now() - interval '1 second' WHERE is_hub`); err != nil {
		t.Fatal(err)
	}
	if n, err := sched.Exec(ctx); err != nil || n != 1 {
		t.Fatalf("Exec when due = %d, %v; want 1", n, err)
	}
	if n, _ := sched.Exec(ctx); n != 0 {
		t.Fatalf("a second pass re-enqueued %d hubs", n)
	}
	e.waitIdle(10 * time.Second)
	for p, want := range map[string]int{"/feed.xml": 2, "/a1": 1, "/a2": 1} {
		if got := s.hit(p); got != want {
			t.Errorf("%s requested %d times, want %d", p, got, want)
		}
	}
}

// A crawler that dies mid-crawl leaves its entries pending; another one
// reclaims them and finishes without refetching what was committed.
func TestCrawler_ResumesAfterCrash(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := newsSite(t)
	real := e.crawler(e.crawlConfig())
	var calls atomic.Int32
	dying := streamkit.HandlerFunc(func(ctx context.Context, m *streamkit.Message) (streamkit.Result, error) {
		if calls.Add(1) > 4 { // the process "dies": nothing more gets done
			<-ctx.Done()
			return streamkit.Result{}, ctx.Err()
		}
		return real.Handle(ctx, m)
	})
	cc := e.consumerConfig()
	cc.Consumer, cc.GracePeriod, cc.Visibility = "doomed", 100*time.Millisecond, 500*time.Millisecond
	stop := e.start(cc, dying)
	e.seed(s.URL+"/", nil)
	deadline := time.Now().Add(10 * time.Second)
	for calls.Load() < 8 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	stop()
	before := s.totalHits()
	if before == 0 || before >= 17 {
		t.Fatalf("the doomed crawler made %d requests; want some but not all", before)
	}

	cc = e.consumerConfig()
	cc.Consumer, cc.Visibility = "survivor", 500*time.Millisecond
	e.start(cc, e.crawler(e.crawlConfig()))
	e.waitIdle(30 * time.Second)
	if got := s.totalHits(); got != 17 {
		t.Errorf("%d requests in all, want 17", got)
	}
	for _, p := range []string{"/", "/news/a1", "/news/a2", "/news/a3", "/news/a4", "/news/a5", "/news/a6", "/robots.txt"} {
		if n := s.hit(p); n != 1 {
			t.Errorf("%s fetched %d times, want 1", p, n)
		}
	}
}
