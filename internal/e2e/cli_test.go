package e2e

import (
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/newscrawl/newscrawl/internal/testenv"
	"github.com/newscrawl/newscrawl/pkg/streamkit/streamkittest"
)

// CLI conventions: -h exits 0 for every binary and every newsctl command
// and shows that command's flags only; --version prints the revision; a
// bad value is one line naming the flag, with a pointer to -h.
func TestCLI_HelpVersionAndBadValues(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binaries")
	}
	bin := build(t)
	run := func(name string, args ...string) (string, int) {
		cmd := exec.Command(filepath.Join(bin, name), args...)
		cmd.Env = []string{"PATH=/usr/bin:/bin"}
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		return string(out), code
	}
	rev, err := exec.Command("git", "-C", "../..", "rev-parse", "--short=12", "HEAD").Output()
	if err != nil {
		t.Skipf("no git revision: %v", err)
	}
	for _, w := range append(workers, "newsctl") {
		if out, code := run(w, "-h"); code != 0 {
			t.Errorf("%s -h: exit %d\n%s", w, code, out)
		}
		if out, code := run(w, "--version"); code != 0 || !strings.Contains(out, strings.TrimSpace(string(rev))) {
			t.Errorf("%s --version: exit %d, %q; want the revision %s", w, code, out, rev)
		}
	}
	help, _ := run("newsctl", "help")
	commands := regexp.MustCompile(`(?m)^  ([a-z-]+) `).FindAllStringSubmatch(help, -1)
	if len(commands) < 10 {
		t.Fatalf("newsctl help lists %d commands:\n%s", len(commands), help)
	}
	for _, c := range commands {
		out, code := run("newsctl", c[1], "-h")
		if code != 0 || strings.Contains(out, "-metrics-addr") || strings.Contains(out, "unsupported protocol scheme") {
			t.Errorf("newsctl %s -h: exit %d\n%s", c[1], code, out)
		}
	}
	out, code := run("cleaner", "--clean-visibility", "abc")
	if code == 0 || strings.Count(strings.TrimSpace(out), "\n") != 0 || !strings.Contains(out, "clean-visibility") || !strings.Contains(out, "-h") {
		t.Errorf("a bad value: exit %d, %q; want one line naming the flag and -h", code, out)
	}
}

// seed checks before it queues: a private address without the guard opened,
// a host that does not resolve, and a scheme no crawler fetches are refused
// with the reason and the setting to change; a public-looking one is queued.
func TestCLI_SeedRefusesWhatTheCrawlerWouldNot(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binaries")
	}
	bin := build(t)
	_, prefix := streamkittest.Redis(t)
	// No DATABASE_URL: refusing needs Redis alone (the running crawlers' settings).
	environ := []string{"PATH=/usr/bin:/bin", "STREAM_PREFIX=" + prefix, "REDIS_URL=" + redisURL()}
	cmd := exec.Command(filepath.Join(bin, "newsctl"), "seed", "http://127.0.0.1:18999/", "http://no-such-host.invalid/", "ftp://example.org/x")
	cmd.Env = environ
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("seed of refused URLs: %v\n%s", err, out)
	}
	for _, want := range []string{"queued 0 of 3", "CRAWL_ALLOW_CIDRS=127.0.0.1/32", "CRAWL_ALLOW_PRIVATE=1", "does not resolve", "only http and https"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("seed output lacks %q:\n%s", want, out)
		}
	}
	// Queueing records the seed in the frontier, in PostgreSQL.
	pool := testenv.Postgres(t)
	cmd = exec.Command(filepath.Join(bin, "newsctl"), "seed", "http://127.0.0.1:18999/")
	cmd.Env = append(environ, "CRAWL_ALLOW_CIDRS=127.0.0.1/32", "DATABASE_URL="+testenv.SchemaURL(streamkittest.SchemaOf(pool)))
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "queued 1 of 1") {
		t.Errorf("seed with the guard opened for the address: %v\n%s", err, out)
	}
	var owed string
	if err := pool.QueryRow(context.Background(), `SELECT pending_nonce FROM urls WHERE url = 'http://127.0.0.1:18999/' AND is_seed`).Scan(&owed); err != nil || owed == "" {
		t.Errorf("the seed is not owed a fetch in the frontier: %q %v", owed, err)
	}
}

func redisURL() string {
	if u := os.Getenv("REDIS_URL"); u != "" {
		return u
	}
	return streamkittest.DefaultRedisURL
}

// A fresh worker exports its counters at zero, every label it knows, so
// that rate() and alerts work before the first failure.
func TestWorker_MetricsExistAtZero(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binaries")
	}
	bin := build(t)
	pool := testenv.Postgres(t)
	_, prefix := streamkittest.Redis(t)
	environ := env(t, streamkittest.SchemaOf(pool), prefix)
	cmd := exec.Command(filepath.Join(bin, "cleaner"))
	cmd.Env = append(environ, "METRICS_ADDR=127.0.0.1:0")
	addr, _ := testenv.StartListening(t, cmd, "serving /metrics, /livez and /healthz")
	var body string
	(&testenv.Env{T: t}).Eventually("the cleaner's /metrics", 30*time.Second, func() bool {
		resp, err := http.Get("http://" + addr + "/metrics")
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		body = string(b)
		return strings.Contains(body, "newscrawl_stage_processed_total")
	})
	for _, want := range []string{
		`newscrawl_stage_failed_total{error_type="poison",stage="clean"} 0`,
		`newscrawl_stage_dead_lettered_total{error_type="bad_message",stage="clean"} 0`,
		`newscrawl_stage_deferred_total{stage="clean"} 0`,
		`newscrawl_stage_retried_total{stage="clean"} 0`,
		`newscrawl_stage_paused{stage="clean"} 0`,
		`newscrawl_clean_pages_total{outcome="empty"} 0`,
		`newscrawl_stage_dead_lettered_total{error_type="not_html",stage="clean"} 0`,
		`newscrawl_clean_pages_total{outcome="duplicate"} 0`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}

// newsctl wait rides out a Redis restart (a failover looks the same from
// here): it says so, polls again, and ends when the pipeline is idle; a
// Redis that never answers fails at once.
func TestCLI_WaitRidesOutARedisRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binaries")
	}
	bin := build(t)
	pool := testenv.Postgres(t)
	rs := streamkittest.StartRedis(t)
	environ := append(env(t, streamkittest.SchemaOf(pool), streamkittest.Name("wait")), "REDIS_URL="+rs.URL())

	cmd := exec.Command(filepath.Join(bin, "newsctl"), "wait", "--settle", "3s", "--timeout", "1m")
	cmd.Env = environ
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second) // connected, and settling
	rs.Kill()
	time.Sleep(8 * time.Second) // longer than go-redis' own retries
	rs.Start()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("newsctl wait across a restart: %v\n%s%s", err, stdout.String(), stderr.String())
	}
	for _, want := range []string{"Redis does not answer", "Redis answers again"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
	if !strings.Contains(stdout.String(), "pipeline idle") {
		t.Errorf("stdout:\n%s", stdout.String())
	}

	rs.Kill()
	down := exec.Command(filepath.Join(bin, "newsctl"), "wait", "--timeout", "1m")
	down.Env = environ
	start := time.Now()
	if out, err := down.CombinedOutput(); err == nil || !strings.Contains(string(out), "connect redis") {
		t.Errorf("wait with Redis down from the start: %v\n%s", err, out)
	}
	t.Logf("a Redis down from the start failed the wait in %s", time.Since(start).Round(time.Millisecond))
}
