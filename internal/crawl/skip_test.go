package crawl_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/newscrawl/newscrawl/internal/crawl"
	"github.com/newscrawl/newscrawl/internal/crawl/urlnorm"
	"github.com/newscrawl/newscrawl/internal/pipeline"
)

// A redirect is followed after the host's slot is given back (at its first
// answer byte), so the target's own link can get the host's next turn while
// the target is still on its way through the redirect. That turn waits for
// the redirect's fetch and records the page as its alias: one fetch, not
// two. The target answers slowly when reached through the redirect, to hold
// that window open as a loaded machine does (CI: a demo article fetched twice).
func TestCrawler_PageOnItsWayThroughARedirectIsFetchedOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := newSite(t)
	// The short link goes first (the last link of a page does), and the
	// target is not known yet when it is followed: the section page that
	// links it comes next.
	s.page("/", "text/html", article(0, "/section", "/short/1"))
	s.page("/section", "text/html", article(2, "/story"))
	s.handle("/short/1", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/story", http.StatusMovedPermanently)
	})
	s.handle("/story", func(w http.ResponseWriter, r *http.Request) {
		if r.Referer() != "" { // the client sets it on a followed redirect
			time.Sleep(time.Second)
		}
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(article(1)))
	})
	crawlFetchingStoryOnce(t, e, s, "/short/1")
}

// A forgotten page (a takedown's tombstone) is never fetched again, while
// its neighbour on the same site is: the crawler asks in the same lookup
// as the URL's prior fetch.
func TestCrawler_ForgottenPageIsNotFetched(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := newSite(t)
	s.page("/gone", "text/html", article(1))
	s.page("/kept", "text/html", article(2))
	gone, err := urlnorm.Normalize(s.URL + "/gone")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Pool.Exec(context.Background(), `INSERT INTO forgotten (doc_id, url, reason) VALUES ($1, $2, 'takedown')`,
		pipeline.DocID(gone), gone); err != nil {
		t.Fatal(err)
	}
	e.start(e.consumerConfig(), e.crawler(e.crawlConfig()))
	one := map[string]string{crawl.FieldMaxDepth: "0"}
	e.seed(s.URL+"/gone", one)
	e.seed(s.URL+"/kept", one)
	e.waitIdle(10 * time.Second)
	if n, k := s.hit("/gone"), s.hit("/kept"); n != 0 || k != 1 {
		t.Fatalf("/gone fetched %d times (want 0), /kept %d (want 1)", n, k)
	}
	var docs int
	if err := e.Pool.QueryRow(context.Background(), `SELECT count(*) FROM documents WHERE url = $1`, gone).Scan(&docs); err != nil {
		t.Fatal(err)
	}
	if docs != 0 {
		t.Fatalf("%d documents stored for the forgotten page", docs)
	}
}

// Two redirects to one page not known yet (a short link and a legacy
// link to one story): the second, given the host's turn while the first
// is still on its way to the page, waits for it and records an alias
// (CI: a demo article fetched twice on the Redis Cluster run).
func TestCrawler_TwoRedirectsToOnePageFetchItOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := newSite(t)
	s.page("/", "text/html", article(0, "/short/1", "/legacy/story"))
	for _, p := range []string{"/short/1", "/legacy/story"} {
		s.handle(p, func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "/story", http.StatusMovedPermanently)
		})
	}
	s.handle("/story", func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(time.Second) // holds the first redirect's fetch open
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(article(1)))
	})
	crawlFetchingStoryOnce(t, e, s, "/short/1", "/legacy/story")
}

// crawlFetchingStoryOnce crawls s from its home page and fails t unless
// /story and each of redirects were fetched once, and /story is fetched
// or an alias.
func crawlFetchingStoryOnce(t *testing.T, e *env, s *site, redirects ...string) {
	t.Helper()
	e.start(e.consumerConfig(), e.crawler(e.crawlConfig()))
	e.seed(s.URL+"/", nil)
	e.waitIdle(15 * time.Second)
	for _, p := range append([]string{"/story"}, redirects...) {
		if n := s.hit(p); n != 1 {
			t.Fatalf("%s fetched %d times, want 1", p, n)
		}
	}
	if st := e.state(s.URL + "/story"); st != crawl.StateFetched && st != crawl.StateAlias {
		t.Fatalf("/story is %q, want fetched or alias", st)
	}
}
