// Package e2e drives the built binaries the way a user does: workers
// configured by the environment alone, newsctl to seed, wait, query and
// inspect, SIGTERM to stop.
package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newscrawl/newscrawl/internal/pipeline"
	"github.com/newscrawl/newscrawl/internal/testenv"
	"github.com/newscrawl/newscrawl/pkg/streamkit"
	"github.com/newscrawl/newscrawl/pkg/streamkit/streamkittest"
)

var workers = []string{"crawler", "cleaner", "extractor", "embedder"}

// build returns the folder holding the binaries (the four workers, the
// renderer and newsctl), compiled once for the whole package: a build per
// test cost 8–15 s each on this machine. Tests only run them.
func build(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "newscrawl-e2e-bin-")
		if err != nil {
			binErr = err
			return
		}
		binDir, binErr = testenv.BuildInto(dir, "../..", "crawler", "cleaner", "extractor", "embedder", "newsctl", "renderer")
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binDir
}

var (
	binOnce sync.Once
	binDir  string
	binErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// site serves a small news site: a home page, three articles on distinct
// subjects, a wire copy of one of them on another path, and an RSS feed.
func site(t *testing.T) (*httptest.Server, *sync.Map) {
	hits := &sync.Map{}
	mux := http.NewServeMux()
	page := func(path, body, ctype string) {
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			n, _ := hits.LoadOrStore(r.URL.Path, new(int))
			*(n.(*int))++
			w.Header().Set("Content-Type", ctype)
			fmt.Fprint(w, body)
		})
	}
	var srv *httptest.Server
	page("/robots.txt", "User-agent: *\nDisallow: /private/\n", "text/plain")
	page("/", `<html><head><title>Valley Courier</title><link rel="alternate" type="application/rss+xml" href="/feed.xml"></head>
<body><nav><a href="/">Home</a></nav><h1>Valley Courier</h1><ul>
<li><a href="/news/bridge.html?utm_source=home#top">Bridge reopens</a></li>
<li><a href="/news/orchard.html">Orchard harvest</a></li>
<li><a href="/private/draft.html">Draft</a></li></ul></body></html>`, "text/html; charset=utf-8")
	page("/feed.xml", `<?xml version="1.0"?><rss version="2.0"><channel><title>Valley Courier</title>
<item><title>Chess</title><link>/news/chess.html</link></item>
<item><title>Bridge (wire)</title><link>/wire/bridge-copy.html</link></item></channel></rss>`, "application/rss+xml")
	page("/news/bridge.html", article("Old river bridge reopens after two-year repair",
		"The old steel bridge over the Willow River reopened to traffic on Monday after a two-year repair that replaced its rusted girders and cracked deck.",
		"Engineers from the county said the bridge can now carry trucks again, ending a long detour through the hills for farmers and school buses.",
		"The repair cost eleven million dollars, most of it paid by a state infrastructure grant, and finished three weeks ahead of schedule."), "text/html")
	page("/wire/bridge-copy.html", article("Old river bridge reopens after two-year repair",
		"The old steel bridge over the Willow River reopened to traffic on Monday after a two-year repair that replaced its rusted girders and cracked deck.",
		"Engineers from the county said the bridge can now carry trucks again, ending a long detour through the hills for farmers and school buses.",
		"The repair cost eleven million dollars, most of it paid by a state infrastructure grant, and finished three weeks ahead of schedule."), "text/html")
	page("/news/orchard.html", article("Apple orchards report record harvest",
		"Apple growers across the valley picked a record crop this autumn, helped by a mild spring without late frost and steady summer rain.",
		"Cider makers said they expect lower prices, while packing houses hired extra seasonal workers to keep up with the volume of fruit.",
		"Some growers worry that the glut will push prices below the cost of picking, leaving apples to rot on the trees in remote orchards."), "text/html")
	page("/news/chess.html", article("Teenager wins regional chess championship",
		"A sixteen-year-old from the valley won the regional chess championship on Sunday, beating three grandmasters in a tense final round.",
		"She learned the game from her grandfather and practised openings every evening at the public library's chess club.",
		"The win qualifies her for the national tournament in the spring, where she will be the youngest player in the field."), "text/html")
	// Linked from nowhere: only a frontier row (the reconcile test's) leads to it.
	page("/news/late.html", article("Late frost damages vineyards on the hills",
		"A late frost on Thursday night damaged young vines across the hill vineyards, where temperatures fell well below freezing before dawn.",
		"Growers lit fires and ran fans between the rows to keep the cold air moving, but many buds on the lower slopes were lost.",
		"The regional wine board said it was too early to say how much of the harvest would be affected this year."), "text/html")
	page("/private/draft.html", article("Secret draft", "Nobody should ever fetch this page.", "It is disallowed.", "Really."), "text/html")
	srv = httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv, hits
}

func article(title string, paras ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `<!doctype html><html lang="en"><head><title>%s - Valley Courier</title>
<meta property="article:published_time" content="2026-11-20T08:00:00Z"><meta name="author" content="Sam Reporter"></head>
<body><header><nav><a href="/">Home</a> <a href="/news/">News</a></nav></header><article><h1>%s</h1>`, title, title)
	for _, p := range paras {
		fmt.Fprintf(&b, "<p>%s</p>", p)
	}
	b.WriteString(`</article><footer>© Valley Courier. <a href="/about">About</a></footer></body></html>`)
	return b.String()
}

// env is the environment every process of one test gets.
func env(t *testing.T, schema, prefix string) []string {
	redisURL := os.Getenv("REDIS_URL")
	if redisURL == "" {
		redisURL = streamkittest.DefaultRedisURL
	}
	return append(os.Environ(),
		"DATABASE_URL="+testenv.SchemaURL(schema),
		"REDIS_URL="+redisURL,
		"STREAM_PREFIX="+prefix,
		"METRICS_ADDR=0",
		"CRAWL_ALLOW_PRIVATE=1",
		"CRAWL_HOST_DELAY=20ms",
		"CRAWL_MAX_DEPTH=2",
		"OPENAI_BASE_URL=",
		"LOG_LEVEL=warn",
	)
}

func newsctl(t *testing.T, bin string, environ []string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(bin, "newsctl"), args...)
	cmd.Env = environ
	out, err := cmd.Output()
	if err != nil {
		stderr := ""
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("newsctl %v: %v\n%s%s", args, err, out, stderr)
	}
	return string(out)
}

func TestPipeline_SeedToSearch(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binaries")
	}
	bin := build(t)
	pool := testenv.Postgres(t)
	rdb, prefix := streamkittest.Redis(t)
	srv, hits := site(t)
	environ := env(t, streamkittest.SchemaOf(pool), prefix)

	procs := startWorkers(t, bin, environ)

	newsctl(t, bin, environ, "seed", srv.URL+"/")
	newsctl(t, bin, environ, "wait", "--timeout", "2m")

	// Every allowed article fetched once (tracking-parameter variant included), nothing disallowed.
	for _, p := range []string{"/news/bridge.html", "/news/orchard.html", "/news/chess.html", "/wire/bridge-copy.html"} {
		n, ok := hits.Load(p)
		if !ok || *(n.(*int)) != 1 {
			t.Errorf("%s fetched %v times, want 1", p, n)
		}
	}
	if _, ok := hits.Load("/private/draft.html"); ok {
		t.Error("a disallowed page was fetched")
	}

	// The wire copy is linked to the first-seen original and not embedded
	// twice. (Counted among originals: a copy cleaned before its original
	// was relinked as a duplicate only after it was forwarded, and keeps
	// chunks no search returns.)
	var dups, embedded int
	ctx := context.Background()
	pool.QueryRow(ctx, `SELECT count(*) FROM cleaned WHERE duplicate_of IS NOT NULL`).Scan(&dups)
	pool.QueryRow(ctx, `SELECT count(DISTINCT k.doc_id) FROM chunks k JOIN cleaned c USING (doc_id) WHERE c.duplicate_of IS NULL`).Scan(&embedded)
	if dups != 1 || embedded != 3 {
		t.Errorf("%d duplicates, %d documents embedded; want 1 and 3", dups, embedded)
	}

	type hit struct {
		DocID, URL, Title, Snippet string
		Score                      float64
	}
	// Whichever bridge page was cleaned first is the original (the home
	// page and the feed lead to them at the same depth); search shows it.
	var bridge string
	if err := pool.QueryRow(ctx, `SELECT url FROM cleaned WHERE url LIKE '%bridge%' AND duplicate_of IS NULL`).Scan(&bridge); err != nil {
		t.Fatalf("the original of the two bridge pages: %v", err)
	}
	if u, err := url.Parse(bridge); err == nil {
		bridge = u.Path // /news/bridge.html or /wire/bridge-copy.html
	}
	queries := map[string]string{
		"bridge repair reopened to trucks":   bridge,
		"record apple crop and cider prices": "/news/orchard.html",
		"chess tournament grandmasters":      "/news/chess.html",
	}
	for q, want := range queries {
		var got []hit
		if err := json.Unmarshal([]byte(newsctl(t, bin, environ, "search", q, "--k", "3", "--json")), &got); err != nil {
			t.Fatalf("search %q: %v", q, err)
		}
		if len(got) == 0 || !strings.HasSuffix(got[0].URL, want) || got[0].Title == "" || got[0].Snippet == "" {
			t.Errorf("search %q: top hit %+v, want %s", q, got, want)
		}
	}

	// A malformed message: dead-lettered with its reason, listed, replayed
	// (and dead-lettered again), then purged.
	rdb.XAdd(ctx, &redis.XAddArgs{Stream: streamkit.KeysFor(prefix, pipeline.Clean).Stream(),
		Values: map[string]any{"doc_id": "no-hash", "url": "https://example.com/x"}})
	// wait says so, with the command to look, and exits 1.
	cmd := exec.Command(filepath.Join(bin, "newsctl"), "wait", "--timeout", "1m")
	cmd.Env = environ
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 ||
		!strings.Contains(string(out), "dead letters during the wait") || !strings.Contains(string(out), "newsctl dlq list --stage clean --type bad_message") {
		t.Fatalf("wait with a new dead letter: %v\n%s", err, out)
	}
	var letters []streamkit.DeadLetter
	if err := json.Unmarshal([]byte(newsctl(t, bin, environ, "dlq", "list", "--json")), &letters); err != nil {
		t.Fatal(err)
	}
	if len(letters) != 1 || letters[0].ErrorType != streamkit.ErrorTypeBadMessage || letters[0].Fields["doc_id"] != "no-hash" ||
		!strings.Contains(letters[0].Error, `"body_hash"`) || !strings.Contains(letters[0].Error, `"content_hash"`) {
		t.Fatalf("dead letters = %+v, want one bad_message naming body_hash and its old name content_hash", letters)
	}
	if out := newsctl(t, bin, environ, "dlq", "replay", "--stage", "clean", "--type", "bad_message"); !strings.Contains(out, "replayed 1") {
		t.Fatalf("replay said %q", out)
	}
	newsctl(t, bin, environ, "wait", "--timeout", "1m", "--allow-dead-letters")
	if out := newsctl(t, bin, environ, "dlq", "purge", "--all"); !strings.Contains(out, "purged 1") {
		t.Fatalf("purge after the replayed message failed again said %q", out)
	}

	var stats []map[string]any
	if err := json.Unmarshal([]byte(newsctl(t, bin, environ, "stats", "--json")), &stats); err != nil {
		t.Fatal(err)
	}
	for _, s := range stats {
		if s["lag"].(float64) != 0 || s["pending"].(float64) != 0 || s["retry"].(float64) != 0 || s["dlq"].(float64) != 0 {
			t.Errorf("stage not drained cleanly: %v", s)
		}
	}

	// SIGTERM: every worker exits 0.
	procs.stop(t)
}

// workerSet is the four worker processes of a test.
type workerSet struct {
	cmds    []*exec.Cmd
	logs    string
	stopped bool
}

// startWorkers starts the four workers with environ; they are killed when
// the test ends unless stop ran, and their logs are printed if it failed.
func startWorkers(t *testing.T, bin string, environ []string) *workerSet {
	t.Helper()
	ws := &workerSet{logs: t.TempDir()}
	for _, w := range workers {
		cmd := exec.Command(filepath.Join(bin, w))
		cmd.Env = environ
		f, _ := os.Create(filepath.Join(ws.logs, w+".log"))
		cmd.Stdout, cmd.Stderr = f, f
		if err := cmd.Start(); err != nil {
			t.Fatalf("start %s: %v", w, err)
		}
		ws.cmds = append(ws.cmds, cmd)
	}
	t.Cleanup(func() {
		if !ws.stopped {
			for _, p := range ws.cmds {
				p.Process.Kill()
				p.Wait()
			}
		}
		if t.Failed() {
			for _, w := range workers {
				b, _ := os.ReadFile(filepath.Join(ws.logs, w+".log"))
				t.Logf("%s log:\n%s", w, b)
			}
		}
	})
	return ws
}

// stop sends SIGTERM to every worker and checks each exits 0 in time.
func (ws *workerSet) stop(t *testing.T) {
	t.Helper()
	for i, p := range ws.cmds {
		p.Process.Signal(syscall.SIGTERM)
		done := make(chan error, 1)
		go func() { done <- p.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("%s exited with %v after SIGTERM", workers[i], err)
			}
		case <-time.After(45 * time.Second):
			p.Process.Kill()
			t.Errorf("%s did not stop within 45s of SIGTERM", workers[i])
		}
	}
	ws.stopped = true
}
