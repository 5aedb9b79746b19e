package crawl_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/newscrawl/newscrawl/internal/crawl"
	"github.com/newscrawl/newscrawl/internal/pipeline"
	"github.com/newscrawl/newscrawl/internal/testenv"
	"github.com/newscrawl/newscrawl/pkg/streamkit"
)

// env is one test's Redis prefix, Postgres schema and crawler settings.
type env struct{ *testenv.Env }

func newEnv(t *testing.T) *env { return &env{testenv.New(t)} }

// crawlConfig is a fast configuration for tests on 127.0.0.1.
func (e *env) crawlConfig() crawl.Config {
	return crawl.Config{Prefix: e.Prefix, UserAgent: "TestBot/1.0", HostDelay: 5 * time.Millisecond, RecrawlInterval: crawl.DefaultRecrawlInterval,
		AllowPrivate: true, MaxDepth: 3, FetchTimeout: 2 * time.Second, MaxBody: 1 << 20, MaxWait: 2 * time.Second}
}

func (e *env) consumerConfig() streamkit.Config {
	return streamkit.Config{Prefix: e.Prefix, Stage: pipeline.Crawl, Group: pipeline.CrawlerGroup,
		Visibility: time.Second, Block: 100 * time.Millisecond, RetryBase: 50 * time.Millisecond,
		RetryMax: 200 * time.Millisecond, PromoteInterval: 20 * time.Millisecond, GracePeriod: 5 * time.Second,
		Concurrency: 4, BatchSize: 20, JanitorInterval: -1, MaxAttempts: 3, Key: crawl.Key,
		Downstream: pipeline.Clean}
}

// start runs a consumer with h until the test ends or stop is called, and
// a crawler's feeder beside it, as the crawler binary does.
func (e *env) start(cfg streamkit.Config, h streamkit.Handler) (stop func()) {
	e.T.Helper()
	stopConsumer := e.Run(cfg, h)
	c, ok := h.(*crawl.Crawler)
	if !ok {
		return stopConsumer
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		crawl.NewFeeder(e.Pool, c).Run(ctx)
	}()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			stopConsumer()
			cancel()
			<-done
		})
	}
	e.T.Cleanup(stop)
	return stop
}

func (e *env) crawler(cfg crawl.Config) *crawl.Crawler {
	e.T.Helper()
	c, err := crawl.New(e.RDB, e.Pool, cfg, nil)
	if err != nil {
		e.T.Fatal(err)
	}
	return c
}

// seed publishes a seed request.
func (e *env) seed(url string, extra map[string]string) {
	e.T.Helper()
	f := crawl.RequestFields(url, 0, 0, nil, nil, true, "", crawl.NewNonce(), "")
	for k, v := range extra {
		f[k] = v
	}
	if _, err := streamkit.NewProducer(e.RDB, e.Prefix, 0).Publish(context.Background(), pipeline.Crawl, f); err != nil {
		e.T.Fatal(err)
	}
}

// waitIdle waits until the crawl stream has nothing waiting, pending or
// scheduled for retry, twice in a row.
func (e *env) waitIdle(timeout time.Duration) {
	e.T.Helper()
	admin := &streamkit.Admin{RDB: e.RDB, Prefix: e.Prefix}
	deadline := time.Now().Add(timeout)
	quiet := 0
	for time.Now().Before(deadline) {
		st, err := admin.Stats(context.Background(), []streamkit.StageRef{{Stage: pipeline.Crawl, Group: pipeline.CrawlerGroup}})
		if err != nil {
			e.T.Fatal(err)
		}
		s := st[0]
		owed, err := crawl.FrontierOwed(context.Background(), e.Pool)
		if err != nil {
			e.T.Fatal(err)
		}
		if s.Length > 0 && s.Lag == 0 && s.Pending == 0 && s.Retry == 0 && s.Deferred == 0 && owed == 0 {
			if quiet++; quiet >= 3 {
				return
			}
		} else {
			quiet = 0
		}
		time.Sleep(50 * time.Millisecond)
	}
	e.T.Fatalf("crawl stream not idle after %s", timeout)
}

// cleanEmits counts the clean stream's messages per doc_id.
func (e *env) cleanEmits() map[string]int {
	e.T.Helper()
	msgs, err := e.RDB.XRange(context.Background(), streamkit.KeysFor(e.Prefix, pipeline.Clean).Stream(), "-", "+").Result()
	if err != nil {
		e.T.Fatal(err)
	}
	out := map[string]int{}
	for _, m := range msgs {
		out[m.Values[pipeline.FieldDocID].(string)]++
	}
	return out
}

// dlq returns the crawl DLQ's error types by URL.
func (e *env) dlq() map[string]string {
	e.T.Helper()
	admin := &streamkit.Admin{RDB: e.RDB, Prefix: e.Prefix}
	dls, err := admin.DLQList(context.Background(), pipeline.Crawl, streamkit.DLQFilter{})
	if err != nil {
		e.T.Fatal(err)
	}
	out := map[string]string{}
	for _, d := range dls {
		out[d.Fields[crawl.FieldURL]] = d.ErrorType
	}
	return out
}

// state returns a URL's state in the urls table ("" when absent).
func (e *env) state(url string) string {
	e.T.Helper()
	var s string
	err := e.Pool.QueryRow(context.Background(), `SELECT state FROM urls WHERE url = $1`, url).Scan(&s)
	if err != nil {
		return ""
	}
	return s
}

// site is a test web site that counts requests per path.
type site struct {
	*httptest.Server
	mu     sync.Mutex
	hits   map[string]int
	times  map[string][]time.Time
	routes map[string]func(w http.ResponseWriter, r *http.Request)
}

func newSite(t testing.TB) *site {
	s := &site{hits: map[string]int{}, times: map[string][]time.Time{}, routes: map[string]func(http.ResponseWriter, *http.Request){}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hits[r.URL.RequestURI()]++
		s.times[r.URL.Host] = append(s.times[r.URL.Host], time.Now())
		h, ok := s.routes[r.URL.Path]
		if !ok { // a route /dir/* serves the subtree
			for path, ph := range s.routes {
				if dir, sub := strings.CutSuffix(path, "*"); sub && strings.HasPrefix(r.URL.Path, dir) {
					h, ok = ph, true
				}
			}
		}
		s.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		h(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

// page serves body with a content type.
func (s *site) page(path, contentType, body string) {
	s.handle(path, func(w http.ResponseWriter, r *http.Request) {
		if contentType != "" {
			w.Header().Set("Content-Type", contentType)
		}
		fmt.Fprint(w, strings.ReplaceAll(body, "{base}", s.URL))
	})
}

func (s *site) handle(path string, h func(w http.ResponseWriter, r *http.Request)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.routes[path] = h
}

func (s *site) hit(requestURI string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[requestURI]
}

func (s *site) totalHits() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, v := range s.hits {
		n += v
	}
	return n
}

func gzipBytes(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	if _, err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// article is a news page with the boilerplate real ones carry.
func article(n int, links ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `<!DOCTYPE html><html><head><title>Story %d</title></head><body>
<nav><a href="/">Home</a> <a href="/news/">News</a></nav><div class="ad">Buy now</div>
<article><h1>Story %d</h1><p>Body of story %d with enough words to be an article.</p></article>`, n, n, n)
	for _, l := range links {
		fmt.Fprintf(&b, `<a href="%s">link</a>`, l)
	}
	b.WriteString(`<section class="comments">Comments</section><footer>© News</footer></body></html>`)
	return b.String()
}
