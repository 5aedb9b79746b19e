package crawl_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/newscrawl/newscrawl/internal/pipeline"
	"github.com/newscrawl/newscrawl/internal/testenv"
	"github.com/newscrawl/newscrawl/pkg/streamkit"
	"github.com/newscrawl/newscrawl/pkg/streamkit/streamkittest"
)

// crawlerBinary is cmd/crawler built once for the package's process-level
// tests, in a directory TestMain removes.
var crawlerBinary struct {
	once sync.Once
	dir  string
	path string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if crawlerBinary.dir != "" {
		os.RemoveAll(crawlerBinary.dir)
	}
	os.Exit(code)
}

// buildCrawler returns the path of a freshly built cmd/crawler.
func buildCrawler(t testing.TB) string {
	t.Helper()
	b := &crawlerBinary
	b.once.Do(func() {
		if b.dir, b.err = os.MkdirTemp("", "crawler-test"); b.err != nil {
			return
		}
		b.path = filepath.Join(b.dir, "crawler")
		out, err := exec.Command("go", "build", "-o", b.path, "github.com/newscrawl/newscrawl/cmd/crawler").CombinedOutput()
		if err != nil {
			b.err = fmt.Errorf("go build cmd/crawler: %w: %s", err, out)
		}
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}

// A proc is a crawler binary running against the test's schema and prefix.
type proc struct {
	t    testing.TB
	name string
	cmd  *exec.Cmd
	out  *lockedBuffer
	done chan struct{}
	err  error // Wait's result, once done is closed
}

// startCrawler runs bin/crawler with the test's Redis prefix and Postgres
// schema, private addresses allowed, metrics off; env adds or overrides
// settings (KEY=value). The process is killed when the test ends.
func (e *env) startCrawler(name string, env ...string) *proc {
	e.T.Helper()
	bin := buildCrawler(e.T)
	redisURL := os.Getenv("REDIS_URL")
	if redisURL == "" {
		redisURL = streamkittest.DefaultRedisURL
	}
	dbURL := testenv.SchemaURL(streamkittest.SchemaOf(e.Pool))
	p := &proc{t: e.T, name: name, out: &lockedBuffer{}, done: make(chan struct{})}
	p.cmd = exec.Command(bin)
	p.cmd.Env = append(os.Environ(), "REDIS_URL="+redisURL, "DATABASE_URL="+dbURL, "STREAM_PREFIX="+e.Prefix,
		"METRICS_ADDR=0", "LOG_LEVEL=info", "CRAWL_ALLOW_PRIVATE=1", "CRAWL_RECRAWL_INTERVAL=0",
		"CRAWL_USER_AGENT=TestBot/1.0", "CRAWL_MAX_DEPTH=3")
	p.cmd.Env = append(p.cmd.Env, env...)
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
	if err := p.cmd.Start(); err != nil {
		e.T.Fatalf("start crawler %s: %v", name, err)
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	e.T.Cleanup(func() {
		p.kill()
		if e.T.Failed() {
			e.T.Logf("crawler %s output:\n%s", name, p.out.String())
		}
	})
	return p
}

// kill sends SIGKILL and waits for the process to be gone.
func (p *proc) kill() {
	select {
	case <-p.done:
		return
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
}

// stop sends SIGTERM and waits for a clean exit.
func (p *proc) stop() {
	p.t.Helper()
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
		if p.err != nil {
			p.t.Errorf("crawler %s exited with %v after SIGTERM", p.name, p.err)
		}
	case <-time.After(20 * time.Second):
		p.t.Errorf("crawler %s did not stop within 20s of SIGTERM", p.name)
		p.kill()
	}
}

// waitFor polls cond until it holds; a crawler process that exits first
// fails the test.
func (e *env) waitFor(what string, timeout time.Duration, cond func() bool, procs ...*proc) {
	e.T.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if cond() {
			return
		}
		for _, p := range procs {
			select {
			case <-p.done:
				e.T.Fatalf("crawler %s exited (%v) while waiting for %s", p.name, p.err, what)
			default:
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	e.T.Fatalf("timed out after %s waiting for %s", timeout, what)
}

// groupReady reports whether a crawler has created the crawl group.
func (e *env) groupReady() bool {
	g, err := e.RDB.XInfoGroups(context.Background(), streamkit.KeysFor(e.Prefix, pipeline.Crawl).Stream()).Result()
	return err == nil && len(g) > 0
}

// lockedBuffer collects a child's output safely.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
