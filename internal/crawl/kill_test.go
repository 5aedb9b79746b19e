package crawl_test

import (
	"context"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/newscrawl/newscrawl/internal/crawl"
	"github.com/newscrawl/newscrawl/internal/crawl/urlnorm"
	"github.com/newscrawl/newscrawl/internal/pipeline"
)

// A crawler process killed with SIGKILL in the middle of a crawl — one
// fetch on the wire, the pages before it committed, the pages after it
// not started — is started again: the crawl completes and every article
// is fetched exactly once. Only the request that was on the wire when the
// process died is sent again. Once with the same consumer name (the
// restarted process reads its own pending entries first) and once with a
// fresh one (it reclaims the dead consumer's entries after the visibility).
func TestCrawler_ResumesAfterSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the crawler binary")
	}
	t.Parallel()
	const articles = 20
	tests := []struct {
		name                  string
		firstName, secondName string // CRAWL_CONSUMER; "" is the default host-pid-random name
	}{
		{"same consumer name reads its own pending", "crawler-a", "crawler-a"},
		{"new process reclaims after the visibility", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			s := newSite(t)
			home := `<html><body>`
			for i := 1; i <= articles; i++ {
				p := fmt.Sprintf("/news/a%d", i)
				s.page(p, "text/html", article(i))
				home += fmt.Sprintf(`<a href="%s">%d</a>`, p, i)
				if i == articles/2 {
					home += `<a href="/slow">slow</a>`
				}
			}
			s.page("/", "text/html", home+`</body></html>`)
			s.page("/news/", "text/html", `<html><body>section</body></html>`)
			var slowCalls atomic.Int32
			s.handle("/slow", func(w http.ResponseWriter, r *http.Request) {
				if slowCalls.Add(1) == 1 {
					<-r.Context().Done() // on the wire until the crawler dies
					return
				}
				w.Header().Set("Content-Type", "text/html")
				w.Write([]byte(article(999)))
			})

			settings := []string{"CRAWL_CONCURRENCY=1", "CRAWL_HOST_DELAY=0", "CRAWL_VISIBILITY=1s"}
			consumer := func(name string) []string {
				if name == "" {
					return settings
				}
				return append(settings, "CRAWL_CONSUMER="+name)
			}
			first := e.startCrawler("first", consumer(tt.firstName)...)
			e.waitFor("the crawl group", 30*time.Second, e.groupReady, first)
			e.seed(s.URL+"/", nil)

			// Mid-crawl: /slow is on the wire and every page fetched before it
			// is committed (so a refetch would be the crawler's fault).
			e.waitFor("the slow page in flight with all earlier pages committed", 20*time.Second, func() bool {
				return slowCalls.Load() == 1 && e.committedFetches() == s.distinctPagesHit()-2 // minus robots.txt and /slow
			}, first)
			fetchedBefore := 0
			for i := 1; i <= articles; i++ {
				fetchedBefore += s.hit(fmt.Sprintf("/news/a%d", i))
			}
			if fetchedBefore == 0 || fetchedBefore == articles {
				t.Fatalf("%d of %d articles fetched before the kill; want the crawl half done", fetchedBefore, articles)
			}
			first.kill()

			second := e.startCrawler("second", consumer(tt.secondName)...)
			e.waitIdle(30 * time.Second)
			second.stop()

			for i := 1; i <= articles; i++ {
				p := fmt.Sprintf("/news/a%d", i)
				if n := s.hit(p); n != 1 {
					t.Errorf("%s fetched %d times, want exactly 1", p, n)
				}
				if st := e.state(s.URL + p); st != crawl.StateFetched {
					t.Errorf("%s state %q, want fetched", p, st)
				}
			}
			for p, want := range map[string]int{"/": 1, "/robots.txt": 1, "/slow": 2} {
				if n := s.hit(p); n != want {
					t.Errorf("%s fetched %d times, want %d", p, n, want)
				}
			}
			if st := e.state(s.URL + "/slow"); st != crawl.StateFetched {
				t.Errorf("/slow state %q after the restart, want fetched", st)
			}
			emits := e.cleanEmits()
			for _, p := range []string{"/", "/slow", "/news/a1", fmt.Sprintf("/news/a%d", articles)} {
				u, _ := urlnorm.Normalize(s.URL + p)
				if emits[pipeline.DocID(u)] == 0 {
					t.Errorf("%s never sent to the cleaner", p)
				}
			}
			var docs int
			if err := e.Pool.QueryRow(context.Background(), `SELECT count(*) FROM documents`).Scan(&docs); err != nil {
				t.Fatal(err)
			}
			if want := articles + 3; docs != want { // home, section, articles, /slow
				t.Errorf("%d documents stored, want %d", docs, want)
			}
			if d := e.dlq(); len(d) != 0 {
				t.Errorf("dead letters: %v", d)
			}
		})
	}
}

// committedFetches counts URLs whose fetch is committed in the urls table.
func (e *env) committedFetches() int {
	e.T.Helper()
	var n int
	if err := e.Pool.QueryRow(context.Background(), `SELECT count(*) FROM urls WHERE fetched_at IS NOT NULL`).Scan(&n); err != nil {
		e.T.Fatal(err)
	}
	return n
}

// distinctPagesHit counts the distinct request URIs the site answered.
func (s *site) distinctPagesHit() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.hits)
}
