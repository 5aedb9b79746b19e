package e2e

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/newscrawl/newscrawl/internal/demosite"
	"github.com/newscrawl/newscrawl/internal/testenv"
)

// The demo site through the built binaries, with the SSRF guard opened for
// the loopback address alone (CRAWL_ALLOW_CIDRS, not CRAWL_ALLOW_PRIVATE):
// each article fetched once although it is reached through redirects,
// feeds and sitemaps; nothing under the Disallow; the demo's queries find
// their article.
func TestPipeline_DemoSite(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binaries")
	}
	bin := build(t)
	pool := testenv.Postgres(t)
	_, prefix := testenv.Redis(t)
	var mu sync.Mutex
	hits := map[string]int{}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	site := demosite.Handler("http://" + ln.Addr().String())
	srv := &httptest.Server{Listener: ln, Config: &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits[r.URL.Path]++
		mu.Unlock()
		site.ServeHTTP(w, r)
	})}}
	srv.Start()
	t.Cleanup(srv.Close)
	var environ []string
	for _, kv := range env(t, testenv.SchemaOf(pool), prefix) {
		if !strings.HasPrefix(kv, "CRAWL_ALLOW_PRIVATE=") {
			environ = append(environ, kv)
		}
	}
	environ = append(environ, "CRAWL_ALLOW_CIDRS=127.0.0.1/32", "CRAWL_MAX_DEPTH=3")
	ws := startWorkers(t, bin, environ)
	newsctl(t, bin, environ, "seed", srv.URL+"/")
	newsctl(t, bin, environ, "wait", "--timeout", "3m")

	mu.Lock()
	for path, n := range hits {
		if strings.HasPrefix(path, "/drafts/") {
			t.Errorf("%s fetched although robots.txt disallows it", path)
		}
		if n > 1 && path != "/robots.txt" {
			t.Errorf("%s fetched %d times", path, n)
		}
	}
	mu.Unlock()
	var embedded int
	pool.QueryRow(context.Background(), `SELECT count(DISTINCT doc_id) FROM chunks`).Scan(&embedded)
	if embedded != demosite.Articles() { // the one-sentence news brief included
		t.Errorf("%d of %d articles embedded", embedded, demosite.Articles())
	}
	for q, want := range demosite.Queries {
		var got []struct{ URL string }
		if err := json.Unmarshal([]byte(newsctl(t, bin, environ, "search", q, "--k", "3", "--json")), &got); err != nil {
			t.Fatal(err)
		}
		if len(got) == 0 || !strings.HasSuffix(got[0].URL, want) {
			t.Errorf("search %q: %+v, want %s first", q, got, want)
		}
	}
	ws.stop(t)
}
