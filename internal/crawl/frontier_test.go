package crawl_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/newscrawl/newscrawl/internal/crawl"
	"github.com/newscrawl/newscrawl/internal/pipeline"
	"github.com/newscrawl/newscrawl/pkg/streamkit"
)

// numbered makes s serve /p/N: an article linking to /p/N+1 and /p/N+7, so
// most links name a URL that is itself seeded and still waiting. Set before
// the first request.
func numbered(s *site) {
	s.Config.Handler = countHits(s, func(w http.ResponseWriter, r *http.Request) {
		var n int
		if _, err := fmt.Sscanf(r.URL.Path, "/p/%d", &n); err != nil {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, article(n, fmt.Sprintf("/p/%d", n+1), fmt.Sprintf("/p/%d", n+7)))
	})
}

// countHits wraps h with the site's hit counter.
func countHits(s *site, h http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hits[r.URL.RequestURI()]++
		s.mu.Unlock()
		h(w, r)
	})
}

// seeds returns n seeds /p/0 … /p/n-1 spread over the sites.
func seeds(sites []*site, n int) []crawl.Seed {
	out := make([]crawl.Seed, 0, n)
	for i := 0; i < n; i++ {
		out = append(out, crawl.Seed{URL: fmt.Sprintf("%s/p/%d", sites[i%len(sites)].URL, i/len(sites)), MaxDepth: 1})
	}
	return out
}

// A 20,000-URL seed burst is recorded in the frontier, not on the stream:
// the crawl stream never holds more than the window plus one read batch,
// and no URL is fetched twice, also where a page links to a seed that is
// still waiting (issue 13 item 7).
func TestCrawler_SeedBurstStaysInTheWindow(t *testing.T) {
	e := newEnv(t)
	sites := make([]*site, 4)
	for i := range sites {
		sites[i] = newSite(t)
		numbered(sites[i])
	}
	ctx := context.Background()
	t0 := time.Now()
	rep, err := crawl.SeedFrontier(ctx, e.Pool, seeds(sites, 20000))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("seeded 20,000 in %s: %+v", time.Since(t0).Round(time.Millisecond), rep)
	if rep.New != 20000 {
		t.Fatalf("seed report %+v, want 20000 new", rep)
	}
	if again, err := crawl.SeedFrontier(ctx, e.Pool, seeds(sites, 100)); err != nil || again.Owed != 100 {
		t.Fatalf("seeding waiting URLs again: %+v %v, want 100 already owed", again, err)
	}
	admin := &streamkit.Admin{RDB: e.RDB, Prefix: e.Prefix}
	if n, _ := admin.Pressure(ctx, pipeline.Crawl); n != 0 {
		t.Fatalf("seeding put %d requests on the stream, want 0 (the feeder publishes)", n)
	}

	cfg := e.crawlConfig()
	cfg.HostDelay, cfg.Window, cfg.FeedInterval = 0, 100, 20*time.Millisecond
	cc := e.consumerConfig()
	stop := e.start(cc, e.crawler(cfg))
	worst := int64(0)
	deadline := time.Now().Add(60 * time.Second)
	for fetched(sites) < 1500 && time.Now().Before(deadline) {
		if p, err := admin.Pressure(ctx, pipeline.Crawl); err == nil {
			worst = max(worst, p)
		}
		time.Sleep(5 * time.Millisecond)
	}
	stop()
	n := fetched(sites)
	if n < 1500 {
		t.Fatalf("fetched %d pages in 60 s, want 1500", n)
	}
	if limit := cfg.Window + int64(cc.BatchSize); worst > limit {
		t.Errorf("the crawl stream held %d requests, want at most the window %d plus a read batch", worst, cfg.Window)
	}
	length, err := e.RDB.XLen(ctx, streamkit.KeysFor(e.Prefix, pipeline.Crawl).Stream()).Result()
	if err != nil {
		t.Fatal(err)
	}
	if length > int64(n)+cfg.Window+int64(cc.BatchSize) {
		t.Errorf("%d entries were published for %d fetches: the frontier was not the buffer", length, n)
	}
	owed, err := crawl.FrontierOwed(ctx, e.Pool)
	if err != nil {
		t.Fatal(err)
	}
	if owed < int64(20000-n)-cfg.Window-int64(cc.BatchSize) {
		t.Errorf("%d requests left in the frontier after %d fetches of 20,000", owed, n)
	}
	for _, s := range sites {
		s.mu.Lock()
		for uri, hits := range s.hits {
			if hits > 1 {
				t.Errorf("%s%s fetched %d times", s.URL, uri, hits)
			}
		}
		s.mu.Unlock()
	}
	t.Logf("%d fetched, the stream held at most %d (window %d), %d still owed", n, worst, cfg.Window, owed)
}

// A crawl of seeds that link to each other finishes with every seed fetched
// once and no link queued a second time.
func TestCrawler_SeedsLinkingToSeedsFetchOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	sites := []*site{newSite(t), newSite(t)}
	for _, s := range sites {
		numbered(s)
	}
	ctx := context.Background()
	if _, err := crawl.SeedFrontier(ctx, e.Pool, seeds(sites, 300)); err != nil {
		t.Fatal(err)
	}
	cfg := e.crawlConfig()
	cfg.Window, cfg.FeedInterval = 20, 20*time.Millisecond
	e.start(e.consumerConfig(), e.crawler(cfg))
	e.waitIdle(60 * time.Second)
	for _, s := range sites {
		for i := 0; i < 150; i++ {
			if n := s.hit(fmt.Sprintf("/p/%d", i)); n != 1 {
				t.Errorf("%s/p/%d fetched %d times, want 1", s.URL, i, n)
			}
		}
		// the links past the last seeds (/p/150 … /p/156) once each too
		s.mu.Lock()
		for uri, n := range s.hits {
			if n > 1 && strings.HasPrefix(uri, "/p/") {
				t.Errorf("%s%s fetched %d times", s.URL, uri, n)
			}
		}
		s.mu.Unlock()
	}
}

// fetched counts the pages the sites served.
func fetched(sites []*site) int {
	n := 0
	for _, s := range sites {
		n += s.totalHits()
	}
	return n
}

// A 5,000-URL seed burst on one host with a delay, two crawler processes
// and a hub that keeps coming due for recrawl: the crawl stage's backlog in
// Redis (waiting + pending + retries + deferrals) stays within one window
// plus a read batch across both processes, and the stream's length within
// the window plus the retained entries plus a batch (issue 31).
func TestCrawler_TwoCrawlersShareOneWindowAndTheStreamStaysShort(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	cfg, cc := e.crawlConfig(), e.consumerConfig()
	cc.JanitorInterval, cc.RetainLen = 200*time.Millisecond, 50
	cfg.HostDelay, cfg.Window, cfg.Retain, cfg.FeedInterval, cfg.SchedulePeriod = 2*time.Millisecond, 200, cc.RetainLen, 20*time.Millisecond, 100*time.Millisecond
	r := twoCrawlers(t, e, cfg, cc, 1500, 90*time.Second)
	if r.fetched < 1500 {
		t.Fatalf("fetched %d pages in 90 s, want 1500", r.fetched)
	}
	if limit := cfg.Window + int64(cc.BatchSize); r.worstBacklog > limit {
		t.Errorf("the crawl stage held a backlog of %d, want at most the window plus a read batch, %d", r.worstBacklog, limit)
	}
	if limit := cfg.Window + cc.RetainLen + int64(cc.BatchSize); r.worstLen > limit {
		t.Errorf("the crawl stream grew to %d entries, want at most window + retained + a batch, %d", r.worstLen, limit)
	}
	if r.hubHits < 2 {
		t.Errorf("the hub was fetched %d times, want it recrawled", r.hubHits)
	}
	for path, hits := range r.twice {
		t.Errorf("%s fetched %d times", path, hits)
	}
}

// twoCrawlersResult is what twoCrawlers saw.
type twoCrawlersResult struct {
	fetched, hubHits       int
	worstBacklog, worstLen int64
	twice                  map[string]int // paths fetched more than once, but the hub and robots.txt
	took                   time.Duration
}

// twoCrawlers runs two crawlers (consumer, feeder and scheduler each) on
// 5,000 seeded pages of one host and a hub due every 300 ms, sampling the
// crawl stage's backlog (lag + pending + retry + deferred) and the crawl
// stream's length every 5 ms until want pages are fetched or the time is up.
func twoCrawlers(tb testing.TB, e *env, cfg crawl.Config, cc streamkit.Config, want int, limit time.Duration) twoCrawlersResult {
	s := newSite(tb)
	numbered(s)
	ctx := context.Background()
	hubEvery := 300 * time.Millisecond
	if _, err := crawl.SeedFrontier(ctx, e.Pool, []crawl.Seed{{URL: s.URL + "/p/99999", MaxDepth: 0, Recrawl: &hubEvery}}); err != nil {
		tb.Fatal(err)
	}
	if _, err := crawl.SeedFrontier(ctx, e.Pool, seeds([]*site{s}, 5000)); err != nil {
		tb.Fatal(err)
	}
	start := time.Now()
	for range 2 {
		c := e.crawler(cfg)
		e.start(cc, c)
		sch := crawl.NewScheduler(e.Pool, cfg)
		sctx, cancel := context.WithCancel(ctx)
		go sch.Run(sctx)
		tb.Cleanup(cancel)
	}
	keys := streamkit.KeysFor(e.Prefix, pipeline.Crawl)
	admin := &streamkit.Admin{RDB: e.RDB, Prefix: e.Prefix}
	var r twoCrawlersResult
	deadline := time.Now().Add(limit)
	for fetched([]*site{s}) < want && time.Now().Before(deadline) {
		p, err1 := admin.Pressure(ctx, pipeline.Crawl)
		retry, err2 := e.RDB.ZCard(ctx, keys.Retry()).Result()
		deferred, err3 := e.RDB.ZCard(ctx, keys.Deferred()).Result()
		length, err4 := e.RDB.XLen(ctx, keys.Stream()).Result()
		if err1 == nil && err2 == nil && err3 == nil && err4 == nil {
			r.worstBacklog, r.worstLen = max(r.worstBacklog, p+retry+deferred), max(r.worstLen, length)
		}
		time.Sleep(5 * time.Millisecond)
	}
	r.took, r.fetched, r.hubHits = time.Since(start), fetched([]*site{s}), s.hit("/p/99999")
	tb.Logf("fetched %d in %s; worst backlog %d, worst stream length %d (window %d, retain %d, batch %d)",
		r.fetched, r.took.Round(time.Millisecond), r.worstBacklog, r.worstLen, cfg.Window, cc.RetainLen, cc.BatchSize)
	s.mu.Lock() // the crawlers are still at work
	defer s.mu.Unlock()
	r.twice = map[string]int{}
	for path, hits := range s.hits {
		if hits > 1 && path != "/p/99999" && path != "/robots.txt" {
			r.twice[path] = hits
		}
	}
	return r
}

// A frontier whose owed requests come host by host (a seed file sorted by
// host) is fed across every host at once, each host its share of the
// window (two requests at a 1 s delay), not the first host's queue first;
// each host's first request is on the stream at once and its second is due
// at the host's next turn, a little early.
func TestFeeder_GivesEveryHostItsShare(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	var all []crawl.Seed
	for h := range 20 {
		for i := range 50 {
			all = append(all, crawl.Seed{URL: fmt.Sprintf("http://host%02d.example/p/%d", h, i), MaxDepth: -1})
		}
	}
	if _, err := crawl.SeedFrontier(ctx, e.Pool, all); err != nil {
		t.Fatal(err)
	}
	cfg := e.crawlConfig()
	cfg.HostDelay = time.Second
	f := crawl.NewFeeder(e.Pool, e.crawler(cfg))
	start := time.Now()
	n, err := f.Exec(ctx)
	if err != nil || n != 40 {
		t.Fatalf("first feed published %d (%v), want 2 for each of the 20 hosts", n, err)
	}
	keys := streamkit.KeysFor(e.Prefix, pipeline.Crawl)
	msgs, err := e.RDB.XRange(ctx, keys.Stream(), "-", "+").Result()
	if err != nil {
		t.Fatal(err)
	}
	hostOf := func(u string) string { return strings.SplitN(strings.TrimPrefix(u, "http://"), "/", 2)[0] }
	now, later := map[string]int{}, map[string]int{}
	for _, m := range msgs {
		now[hostOf(m.Values[crawl.FieldURL].(string))]++
	}
	due, err := e.RDB.ZRangeWithScores(ctx, keys.Deferred(), 0, -1).Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, z := range due {
		var m struct {
			Fields map[string]string `json:"f"`
		}
		if err := json.Unmarshal([]byte(z.Member.(string)), &m); err != nil {
			t.Fatalf("deferred member %v: %v", z.Member, err)
		}
		later[hostOf(m.Fields[crawl.FieldURL])]++
		at := time.UnixMilli(int64(z.Score))
		if lo, hi := start.Add(900*time.Millisecond), time.Now().Add(time.Second); at.Before(lo) || at.After(hi) {
			t.Fatalf("%s is due at %s, %s after the feed; want just before the host's next turn, 1 s",
				m.Fields[crawl.FieldURL], at.Format(time.StampMilli), at.Sub(start))
		}
	}
	if len(now) != 20 || len(later) != 20 {
		t.Fatalf("requests of %d hosts on the stream and %d due later, want 20 and 20: %v %v", len(now), len(later), now, later)
	}
	for h := range now {
		if now[h] != 1 || later[h] != 1 {
			t.Fatalf("%s has %d requests on the stream and %d due later, want one and one", h, now[h], later[h])
		}
	}
	if n, err := f.Exec(ctx); err != nil || n != 0 {
		t.Fatalf("a second feed published %d (%v); every host has its share already", n, err)
	}
}
