package crawl_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/newscrawl/newscrawl/internal/crawl"
)

// Many pages linking to many of the same pages, crawled with politeness
// off by two consumers of 16 handlers each: streamkit group-commits several
// requests per transaction with several transactions at once, and their
// overlapping urls inserts must queue, not deadlock — a deadlock or a
// commit that outlives its deadline fails the batch, and every request in
// it is fetched again. Each page is fetched exactly once.
func TestCrawler_ConcurrentCommitsDoNotRefetch(t *testing.T) {
	t.Parallel()
	const pages, linksPerPage = 300, 40
	e := newEnv(t)
	s := newSite(t)
	home := `<html><body>`
	for i := range pages {
		home += fmt.Sprintf(`<a href="/p/%d">%d</a>`, i, i)
		var links []string
		for k := range linksPerPage {
			links = append(links, fmt.Sprintf("/p/%d", (i*17+k*31)%pages))
		}
		s.page(fmt.Sprintf("/p/%d", i), "text/html", article(i, links...))
	}
	s.page("/", "text/html", home+`</body></html>`)
	s.page("/news/", "text/html", `<html><body>section</body></html>`)
	cfg := e.crawlConfig()
	cfg.HostDelay = 0
	for i := range 2 {
		cc := e.consumerConfig()
		cc.Consumer, cc.Concurrency, cc.BatchSize = fmt.Sprintf("c%d", i), 16, 50
		e.start(cc, e.crawler(cfg))
	}
	e.seed(s.URL+"/", map[string]string{crawl.FieldMaxDepth: "2"})
	e.waitIdle(30 * time.Second)

	var refetched []string
	s.mu.Lock()
	for p, n := range s.hits {
		if n != 1 {
			refetched = append(refetched, fmt.Sprintf("%s×%d", p, n))
		}
	}
	total := len(s.hits)
	s.mu.Unlock()
	if len(refetched) > 0 {
		t.Errorf("%d pages fetched more than once: %s", len(refetched), strings.Join(refetched[:min(10, len(refetched))], " "))
	}
	if want := pages + 3; total != want { // robots.txt, home, section, pages
		t.Errorf("%d distinct pages fetched, want %d", total, want)
	}
	if d := e.dlq(); len(d) != 0 {
		t.Errorf("dead letters: %v", d)
	}
}
