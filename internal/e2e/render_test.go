package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	cleanarticle "github.com/newscrawl/newscrawl/internal/article"
	"github.com/newscrawl/newscrawl/internal/proctree"
	"github.com/newscrawl/newscrawl/internal/render"
	"github.com/newscrawl/newscrawl/internal/render/scriptsite"
	"github.com/newscrawl/newscrawl/internal/testenv"
	"github.com/newscrawl/newscrawl/pkg/streamkit/streamkittest"
)

// A site whose articles exist only after script runs, crawled with
// RENDER=auto: every article is cleaned from its rendered DOM with its
// static twin's text and found by search; Chromium killed mid-render costs
// no document; the canary on 127.0.0.1 sees nothing.
func TestPipeline_ScriptOnlySiteRendered(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binaries and Chromium")
	}
	if _, err := render.FindChromium(); err != nil {
		t.Fatal(err, "— `make test` installs Debian's chromium")
	}
	n := 12 // NEWSCRAWL_E2E_RENDER_ARTICLES=200 runs the 200-article site
	if v, err := strconv.Atoi(os.Getenv("NEWSCRAWL_E2E_RENDER_ARTICLES")); err == nil && v > 0 {
		n = v
	}
	t.Parallel() // alongside the package's other tests, which run one at a time
	w := startScriptWorld(t, n, "CRAWL_HOST_DELAY=10ms")
	bin, pool, environ, srv, canary, renderer := w.bin, w.pool, w.environ, w.srv, w.canary, w.renderer

	newsctl(t, bin, environ, "seed", srv.URL+"/")
	ctx := context.Background()
	// Kill Chromium (the renderer's child, found by parentage) once a few
	// pages are rendered: the render in flight must be tried again.
	deadline := time.Now().Add(2 * time.Minute)
	for {
		var done int
		pool.QueryRow(ctx, `SELECT count(*) FROM rendered WHERE rendered_hash <> ''`).Scan(&done)
		if done >= 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("only %d pages rendered in 2 minutes", done)
		}
		time.Sleep(100 * time.Millisecond)
	}
	killed := 0
	for _, pid := range proctree.Children(renderer.Process.Pid) {
		if err := syscall.Kill(pid, syscall.SIGKILL); err == nil {
			killed++
		}
	}
	if killed == 0 {
		t.Fatal("the renderer has no browser process to kill")
	}
	started := time.Now()
	newsctl(t, bin, environ, "wait", "--timeout", "10m")
	t.Logf("%d script-only articles crawled, rendered, cleaned, extracted and embedded; the wait after the kill took %s", n, time.Since(started).Round(time.Second))

	var rendered, failed int
	pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE rendered_hash <> ''), count(*) FILTER (WHERE rendered_hash = '') FROM rendered`).Scan(&rendered, &failed)
	if rendered != n || failed != 0 {
		t.Fatalf("%d pages rendered, %d failed; want %d and 0", rendered, failed, n)
	}
	for i := range n {
		u := fmt.Sprintf("%s/article/%d", srv.URL, i)
		var text string
		var isArticle bool
		if err := pool.QueryRow(ctx, `SELECT text, is_article FROM cleaned WHERE url = $1`, u).Scan(&text, &isArticle); err != nil {
			t.Fatalf("article %d not cleaned: %v", i, err)
		}
		resp, err := http.Get(fmt.Sprintf("%s/static/article/%d", srv.URL, i))
		if err != nil {
			t.Fatal(err)
		}
		twin, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		a, err := cleanarticle.Extract(twin, u, cleanarticle.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !isArticle || text != a.Text {
			t.Errorf("article %d: is_article %v, text %.200q; want its twin's %.200q", i, isArticle, text, a.Text)
		}
	}
	var hits []struct{ URL string }
	if err := json.Unmarshal([]byte(newsctl(t, bin, environ, "search", "harbour council report 7 part 3 tidal barrier", "--k", "3", "--json")), &hits); err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 || !strings.Contains(hits[0].URL, "/article/") {
		t.Errorf("search found %+v, want a rendered article", hits)
	}
	// The document says it was rendered, and when.
	serve := exec.Command(filepath.Join(bin, "newsctl"), "serve", "--addr", "127.0.0.1:0")
	serve.Env = environ
	addr, _ := testenv.StartListening(t, serve, "serving the search page and API")
	var docID string
	pool.QueryRow(ctx, `SELECT doc_id FROM cleaned WHERE url = $1`, srv.URL+"/article/4").Scan(&docID)
	var doc struct {
		Capture struct {
			RenderedAt  *time.Time `json:"rendered_at"`
			RenderError string     `json:"render_error"`
		} `json:"capture"`
	}
	(&testenv.Env{T: t}).Eventually("the document API", 30*time.Second, func() bool {
		resp, err := http.Get("http://" + addr + "/api/documents/" + docID)
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		return resp.StatusCode == 200 && json.NewDecoder(resp.Body).Decode(&doc) == nil
	})
	if doc.Capture.RenderedAt == nil || doc.Capture.RenderError != "" {
		t.Errorf("the document's capture: %+v, want when it was rendered", doc.Capture)
	}
	if c := canary.Hits.Load(); c != 0 {
		t.Fatalf("%d requests reached the canary", c)
	}
}

// scriptWorld is a script-only site on 127.0.0.2 (the one private address
// the guard is opened for), a canary on 127.0.0.1, and the four workers and
// the renderer crawling with RENDER=auto.
type scriptWorld struct {
	bin      string
	pool     *pgxpool.Pool
	environ  []string
	srv      *httptest.Server
	canary   *scriptsite.Canary
	renderer *exec.Cmd
	arrivals chan arrival
}

// arrival is a request as the site saw it.
type arrival struct {
	at   time.Time
	path string
}

func startScriptWorld(t *testing.T, n int, extraEnv ...string) *scriptWorld {
	t.Helper()
	w := &scriptWorld{bin: build(t), pool: testenv.Postgres(t), canary: &scriptsite.Canary{}, arrivals: make(chan arrival, 100_000)}
	_, prefix := streamkittest.Redis(t)
	cs := httptest.NewServer(w.canary)
	t.Cleanup(cs.Close)
	site := &scriptsite.Site{N: n, Canary: cs.URL}
	ln, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Fatal(err)
	}
	h := site.Handler()
	w.srv = &httptest.Server{Listener: ln, Config: &http.Server{Handler: http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		select {
		case w.arrivals <- arrival{time.Now(), r.URL.Path}:
		default:
		}
		h.ServeHTTP(rw, r)
	})}}
	w.srv.Start()
	t.Cleanup(w.srv.Close)

	w.environ = append(append(env(t, streamkittest.SchemaOf(w.pool), prefix),
		"CRAWL_ALLOW_PRIVATE=0", "CRAWL_ALLOW_CIDRS=127.0.0.2", "RENDER=auto", "RENDER_TIMEOUT=15s"), extraEnv...)
	startWorkers(t, w.bin, w.environ)
	w.renderer = exec.Command(filepath.Join(w.bin, "renderer"))
	w.renderer.Env = w.environ
	logPath := filepath.Join(t.TempDir(), "renderer.log")
	logf, _ := os.Create(logPath)
	w.renderer.Stdout, w.renderer.Stderr = logf, logf
	if err := w.renderer.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		w.renderer.Process.Kill()
		w.renderer.Wait()
		if t.Failed() {
			b, _ := os.ReadFile(logPath)
			t.Logf("renderer log:\n%s", b)
		}
	})
	return w
}

// The renderer's requests take their turns with the crawler's: measured
// where they arrive, no two requests to the host — the crawler's page
// fetches, the browser's documents, scripts and API calls — are closer
// than the host delay (less the send jitter a shared 2-core box allows, as
// in the crawler's own gaps test).
func TestPipeline_RendererKeepsTheCrawlersGaps(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binaries and Chromium")
	}
	if _, err := render.FindChromium(); err != nil {
		t.Fatal(err, "— `make test` installs Debian's chromium")
	}
	t.Parallel()
	const (
		delay      = 200 * time.Millisecond
		sendJitter = 60 * time.Millisecond
	)
	w := startScriptWorld(t, 5, "CRAWL_HOST_DELAY="+delay.String())
	newsctl(t, w.bin, w.environ, "seed", w.srv.URL+"/")
	newsctl(t, w.bin, w.environ, "wait", "--timeout", "5m")
	close(w.arrivals)
	var at []arrival
	for a := range w.arrivals {
		at = append(at, a)
	}
	slices.SortFunc(at, func(a, b arrival) int { return a.at.Compare(b.at) })
	api, least := 0, time.Hour
	for i, a := range at {
		if i > 0 {
			least = min(least, a.at.Sub(at[i-1].at))
		}
		if strings.HasPrefix(a.path, "/api/") || a.path == "/app.js" {
			api++ // only a browser asks for these
		}
		if i > 0 && a.at.Sub(at[i-1].at) < delay-sendJitter {
			t.Errorf("%s then %s arrived %s apart, under the host delay of %s", at[i-1].path, a.path, a.at.Sub(at[i-1].at).Round(time.Millisecond), delay)
		}
	}
	var rendered int
	w.pool.QueryRow(context.Background(), `SELECT count(*) FROM rendered WHERE rendered_hash <> ''`).Scan(&rendered)
	t.Logf("%d requests at the host (%d only a browser makes), the closest two %s apart (host delay %s)", len(at), api, least.Round(time.Millisecond), delay)
	if rendered != 5 || api < 5 {
		t.Fatalf("%d pages rendered, %d requests only a browser makes, of %d: the renderer did not share the host", rendered, api, len(at))
	}
}
