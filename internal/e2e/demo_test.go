package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/newscrawl/newscrawl/internal/demosite"
	"github.com/newscrawl/newscrawl/internal/pipeline"
	"github.com/newscrawl/newscrawl/internal/testenv"
	"github.com/newscrawl/newscrawl/pkg/streamkit"
	"github.com/newscrawl/newscrawl/pkg/streamkit/streamkittest"
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
	_, prefix := streamkittest.Redis(t)
	demoSite(t, prefix)
}

// The same on a Redis Cluster of three masters (REDIS_CLUSTER=1): every
// binary and newsctl on a cluster client, each stage's keys in its own slot.
func TestPipeline_DemoSiteOnRedisCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binaries")
	}
	c := streamkittest.StartRedisCluster(t, 3)
	prefix := streamkittest.Name("t")
	demoSite(t, prefix, "REDIS_URL="+c.URL(), "REDIS_CLUSTER=1")
	// the streams were the cluster's, one stage per slot, on more than one master
	rdb := c.Client(t)
	masters := map[string]bool{}
	for _, stage := range []string{pipeline.Crawl, pipeline.Clean, pipeline.Extract, pipeline.Embed} {
		key := streamkit.KeysFor(prefix, stage).Stream()
		if n, err := rdb.XLen(context.Background(), key).Result(); err != nil || n == 0 {
			t.Errorf("%s on the cluster: %d entries, %v", key, n, err)
		}
		slot, err := rdb.ClusterKeySlot(context.Background(), key).Result()
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range rdb.ClusterSlots(context.Background()).Val() {
			if int64(s.Start) <= slot && slot <= int64(s.End) {
				masters[s.Nodes[0].Addr] = true
			}
		}
	}
	if len(masters) < 2 {
		t.Errorf("the four stages' streams all sit on %v: the hash tags should spread them", masters)
	}
}

// demoSite crawls the demo site through the binaries with extra settings
// (which override env's) and checks what TestPipeline_DemoSite says.
func demoSite(t *testing.T, prefix string, extra ...string) {
	bin := build(t)
	pool := testenv.Postgres(t)
	srv, hits, environ := serveDemo(t, pool, prefix, extra...)
	ws := startWorkers(t, bin, environ)
	newsctl(t, bin, environ, "seed", srv.URL+"/")
	newsctl(t, bin, environ, "wait", "--timeout", "3m")

	for path, n := range hits.counts() {
		if strings.HasPrefix(path, "/drafts/") {
			t.Errorf("%s fetched although robots.txt disallows it", path)
		}
		if n > 1 && path != "/robots.txt" {
			t.Errorf("%s fetched %d times", path, n)
		}
	}
	checkEmbedded(t, pool, demosite.Articles(), "") // the one-sentence news brief included
	for q, want := range demosite.Queries {
		var got []struct{ URL string }
		if err := json.Unmarshal([]byte(newsctl(t, bin, environ, "search", q, "--k", "3", "--json")), &got); err != nil {
			t.Fatal(err)
		}
		if len(got) == 0 || !strings.HasSuffix(got[0].URL, want) {
			t.Errorf("search %q: %+v, want %s first", q, got, want)
		}
	}
	// Asked as a user would: the crawled story answers, cited and checked;
	// the archive holds nothing on an airport.
	var ans struct {
		Abstained bool
		Supported int
		Sentences []struct {
			Text      string
			Citations []int
		}
		Sources []struct{ URL string }
	}
	if err := json.Unmarshal([]byte(newsctl(t, bin, environ, "ask", "How much did the harbour bridge repairs cost?", "--json")), &ans); err != nil {
		t.Fatal(err)
	}
	if ans.Abstained || ans.Supported == 0 || !strings.HasSuffix(ans.Sources[ans.Sentences[0].Citations[0]-1].URL, "/local/harbour-bridge-reopens") ||
		!strings.Contains(fmt.Sprint(ans.Sentences), "18 million euros") {
		t.Errorf("ask about the bridge: %+v", ans)
	}
	ans.Abstained = false
	if err := json.Unmarshal([]byte(newsctl(t, bin, environ, "ask", "When will the new airport runway open?", "--json")), &ans); err != nil || !ans.Abstained {
		t.Errorf("ask about an airport the archive never mentions: %+v %v", ans, err)
	}
	ws.stop(t)
}

// pathHits counts the requests a site saw, by path.
type pathHits struct {
	mu sync.Mutex
	n  map[string]int
}

func (h *pathHits) counts() map[string]int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return maps.Clone(h.n)
}

// serveDemo serves the demo site on loopback, counting requests, and
// returns it with the environment of a run against it: env's, the SSRF
// guard opened for 127.0.0.1 alone (not CRAWL_ALLOW_PRIVATE), depth 3,
// then extra (the last of a name wins).
func serveDemo(t *testing.T, pool *pgxpool.Pool, prefix string, extra ...string) (*httptest.Server, *pathHits, []string) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hits := &pathHits{n: map[string]int{}}
	site := demosite.Handler("http://" + ln.Addr().String())
	srv := &httptest.Server{Listener: ln, Config: &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.mu.Lock()
		hits.n[r.URL.Path]++
		hits.mu.Unlock()
		site.ServeHTTP(w, r)
	})}}
	srv.Start()
	t.Cleanup(srv.Close)
	var environ []string
	for _, kv := range env(t, streamkittest.SchemaOf(pool), prefix) {
		if !strings.HasPrefix(kv, "CRAWL_ALLOW_PRIVATE=") {
			environ = append(environ, kv)
		}
	}
	environ = append(environ, "CRAWL_ALLOW_CIDRS=127.0.0.1/32", "CRAWL_MAX_DEPTH=3")
	return srv, hits, append(environ, extra...)
}

// checkEmbedded fails the test unless want documents have chunks; when
// says at which point ("" for the end of the run).
func checkEmbedded(t *testing.T, pool *pgxpool.Pool, want int, when string) {
	t.Helper()
	var embedded int
	if err := pool.QueryRow(context.Background(), `SELECT count(DISTINCT doc_id) FROM chunks`).Scan(&embedded); err != nil {
		t.Fatal(err)
	}
	if embedded != want {
		t.Errorf("%d of %d articles embedded%s", embedded, want, when)
	}
}
