package crawl_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/newscrawl/newscrawl/internal/crawl"
	"github.com/newscrawl/newscrawl/internal/crawl/urlnorm"
	"github.com/newscrawl/newscrawl/internal/pipeline"
)

func TestCrawler_ConditionalGetAndUnchanged(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := newSite(t)
	var version atomic.Int32
	version.Store(1)
	s.handle("/etag", func(w http.ResponseWriter, r *http.Request) {
		tag := `"v` + string(rune('0'+version.Load())) + `"`
		if r.Header.Get("If-None-Match") == tag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("ETag", tag)
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(article(int(version.Load()))))
	})
	s.page("/plain", "text/html", article(7)) // no validators: the hash decides
	e.start(e.consumerConfig(), e.crawler(e.crawlConfig()))
	id := func(p string) string { u, _ := urlnorm.Normalize(s.URL + p); return pipeline.DocID(u) }
	one := map[string]string{crawl.FieldMaxDepth: "0"} // no link following

	for round, tc := range []struct {
		name        string
		bump        bool
		wantEtag    int
		wantPlain   int
		wantStateET string
	}{
		{"first fetch publishes", false, 1, 1, crawl.StateFetched},
		{"304 and same hash publish nothing", false, 1, 1, crawl.StateNotModified},
		{"changed page publishes again", true, 2, 1, crawl.StateFetched},
	} {
		if tc.bump {
			version.Add(1)
		}
		e.seed(s.URL+"/etag", one)
		e.seed(s.URL+"/plain", one)
		e.waitIdle(10 * time.Second)
		emits := e.cleanEmits()
		if emits[id("/etag")] != tc.wantEtag || emits[id("/plain")] != tc.wantPlain {
			t.Fatalf("round %d (%s): clean emits etag=%d plain=%d, want %d and %d", round, tc.name,
				emits[id("/etag")], emits[id("/plain")], tc.wantEtag, tc.wantPlain)
		}
		if st := e.state(s.URL + "/etag"); st != tc.wantStateET {
			t.Fatalf("round %d (%s): /etag state %q, want %q", round, tc.name, st, tc.wantStateET)
		}
		if round > 0 {
			if st := e.state(s.URL + "/plain"); st != crawl.StateUnchanged {
				t.Fatalf("round %d: /plain state %q, want unchanged", round, st)
			}
		}
	}
	if n := s.hit("/etag"); n != 3 {
		t.Fatalf("/etag requested %d times, want 3", n)
	}
}

func TestCrawler_Outcomes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := newSite(t)
	var flaky atomic.Int32
	s.handle("/500", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "boom", 500) })
	s.handle("/410", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "gone", 410) })
	s.handle("/403", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "no", 403) })
	s.handle("/503-then-ok", func(w http.ResponseWriter, r *http.Request) {
		if flaky.Add(1) == 1 {
			w.Header().Set("Retry-After", "1")
			http.Error(w, "busy", 503)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(article(1)))
	})
	s.handle("/big", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write(bytes.Repeat([]byte("<p>filler</p>"), 200_000)) // 2.6 MB > 1 MiB cap
	})
	var bomb bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&bomb, gzip.BestCompression)
	zw.Write(make([]byte, 16<<20))
	zw.Close()
	s.handle("/bomb", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Content-Encoding", "gzip")
		w.Write(bomb.Bytes())
	})
	s.handle("/loop", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/loop2", 302) })
	s.handle("/loop2", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/loop", 302) })
	s.handle("/image", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write([]byte("\x89PNG"))
	})
	e.start(e.consumerConfig(), e.crawler(e.crawlConfig()))
	one := map[string]string{crawl.FieldMaxDepth: "0"}
	for _, p := range []string{"/500", "/410", "/404", "/403", "/503-then-ok", "/big", "/bomb", "/loop", "/image"} {
		e.seed(s.URL+p, one)
	}
	e.seed("ftp://example.com/file", nil)
	e.seed("http://exa mple.com/", nil)
	e.waitIdle(20 * time.Second)

	states := map[string]string{
		"/410": crawl.StateGone, "/404": crawl.StateGone, "/403": crawl.StateClientError,
		"/503-then-ok": crawl.StateFetched, "/big": crawl.StateTooLarge, "/bomb": crawl.StateTooLarge,
		"/loop": crawl.StateRedirectError, "/image": crawl.StateSkipped,
	}
	for p, want := range states {
		if got := e.state(s.URL + p); got != want {
			t.Errorf("%s: state %q, want %q", p, got, want)
		}
	}
	for p, want := range map[string]int{"/410": 1, "/404": 1, "/500": 3, "/503-then-ok": 2} {
		if got := s.hit(p); got != want {
			t.Errorf("%s requested %d times, want %d", p, got, want)
		}
	}
	dlq := e.dlq()
	wantDLQ := map[string]string{
		s.URL + "/500":           crawl.ErrTypeServer, // after MaxAttempts tries
		"ftp://example.com/file": crawl.ErrTypeBadURL,
		"http://exa mple.com/":   crawl.ErrTypeBadURL,
	}
	if len(dlq) != len(wantDLQ) {
		t.Errorf("dead letters %v, want %v", dlq, wantDLQ)
	}
	for u, want := range wantDLQ {
		if dlq[u] != want {
			t.Errorf("dead letter of %s: %q, want %q", u, dlq[u], want)
		}
	}
	var bigDocs int
	e.Pool.QueryRow(context.Background(), `SELECT count(*) FROM documents`).Scan(&bigDocs)
	if bigDocs != 1 { // only /503-then-ok
		t.Errorf("%d documents stored, want 1", bigDocs)
	}
}

func TestCrawler_SSRFRefusedWithoutAllowPrivate(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := newSite(t)
	s.page("/", "text/html", article(1))
	cfg := e.crawlConfig()
	cfg.AllowPrivate = false
	e.start(e.consumerConfig(), e.crawler(cfg))
	e.seed(s.URL+"/", nil)
	e.waitIdle(10 * time.Second)
	if n := s.totalHits(); n != 0 {
		t.Fatalf("private server reached %d times", n)
	}
	if d := e.dlq(); d[s.URL+"/"] != crawl.ErrTypeSSRF {
		t.Fatalf("dead letters %v, want %s for the seed", d, crawl.ErrTypeSSRF)
	}
}

// A document's first_seen_at is when its URL was discovered, not fetched:
// the cleaner takes the earliest as the original of a set of copies, and a
// politeness queue must not decide that by releasing a later copy first.
func TestCrawler_DocumentFirstSeenIsDiscovery(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := newSite(t)
	s.page("/original", "text/html", article(1))
	s.page("/copy", "text/html", article(1))
	norm := func(p string) string { u, _ := urlnorm.Normalize(s.URL + p); return u }
	ctx := context.Background()
	// The original was discovered an hour ago and is still queued.
	if _, err := e.Pool.Exec(ctx, `INSERT INTO urls (url, doc_id, host, first_seen_at) VALUES ($1, $2, $3, now() - interval '1 hour')`,
		norm("/original"), pipeline.DocID(norm("/original")), s.Listener.Addr().String()); err != nil {
		t.Fatal(err)
	}
	e.start(e.consumerConfig(), e.crawler(e.crawlConfig()))
	one := map[string]string{crawl.FieldMaxDepth: "0"}
	e.seed(s.URL+"/copy", one) // fetched first
	e.waitIdle(10 * time.Second)
	e.seed(s.URL+"/original", one)
	e.waitIdle(10 * time.Second)
	var original, copied time.Time
	for p, at := range map[string]*time.Time{"/original": &original, "/copy": &copied} {
		if err := e.Pool.QueryRow(ctx, `SELECT first_seen_at FROM documents WHERE doc_id = $1`, pipeline.DocID(norm(p))).Scan(at); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
	}
	if !original.Before(copied) {
		t.Errorf("first seen: original %s, copy %s; want the original first", original, copied)
	}
}
