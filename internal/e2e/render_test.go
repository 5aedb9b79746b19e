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
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

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
	bin := build(t)
	pool := testenv.Postgres(t)
	_, prefix := streamkittest.Redis(t)
	canary := &scriptsite.Canary{}
	cs := httptest.NewServer(canary)
	t.Cleanup(cs.Close)
	site := &scriptsite.Site{N: n, Canary: cs.URL}
	ln, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &httptest.Server{Listener: ln, Config: &http.Server{Handler: site.Handler()}}
	srv.Start()
	t.Cleanup(srv.Close)

	environ := append(env(t, streamkittest.SchemaOf(pool), prefix),
		"CRAWL_ALLOW_PRIVATE=0", "CRAWL_ALLOW_CIDRS=127.0.0.2", "CRAWL_HOST_DELAY=10ms",
		"RENDER=auto", "RENDER_TIMEOUT=15s")
	startWorkers(t, bin, environ)
	renderer := exec.Command(filepath.Join(bin, "renderer"))
	renderer.Env = environ
	logPath := filepath.Join(t.TempDir(), "renderer.log")
	logf, _ := os.Create(logPath)
	renderer.Stdout, renderer.Stderr = logf, logf
	if err := renderer.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		renderer.Process.Kill()
		renderer.Wait()
		if t.Failed() {
			b, _ := os.ReadFile(logPath)
			t.Logf("renderer log:\n%s", b)
		}
	})

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
	addr := fmt.Sprintf("127.0.0.1:%d", streamkittest.FreePort(t))
	serve := exec.Command(filepath.Join(bin, "newsctl"), "serve", "--addr", addr)
	serve.Env = environ
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { serve.Process.Kill(); serve.Wait() })
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
