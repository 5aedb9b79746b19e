// Package chaos runs the whole pipeline — two processes per stage, the built
// binaries — on a generated site against a Redis and a PostgreSQL of its
// own, through worker kills, a stalled worker, a Redis crash, a database
// outage and a Redis FLUSHALL followed by newsctl reconcile, and checks the
// end state. `make test` runs a short schedule; `make chaos` the long one.
package chaos

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/newscrawl/newscrawl/internal/gazette"
	"github.com/newscrawl/newscrawl/internal/testenv"
	"github.com/newscrawl/newscrawl/pkg/streamkit"
	"github.com/newscrawl/newscrawl/pkg/streamkit/streamkittest"
)

var long = flag.Bool("chaos.long", false, "run the long fault schedule (make chaos)")

// A schedule is one run's sizes and fault durations.
type schedule struct {
	articles   int
	hostDelay  time.Duration
	visibility time.Duration
	kills      int           // random worker SIGKILLs (each restarted)
	killEvery  time.Duration // pause between two kills
	stall      time.Duration // SIGSTOP of a crawler
	redisDown  time.Duration // Redis SIGKILLed, restarted from its AOF after this
	pgDown     time.Duration // PostgreSQL stopped for this long
}

var (
	short = schedule{articles: 120, hostDelay: 350 * time.Millisecond, visibility: 3 * time.Second,
		kills: 3, killEvery: 3 * time.Second, stall: 9 * time.Second, redisDown: 3 * time.Second, pgDown: 10 * time.Second}
	full = schedule{articles: 300, hostDelay: 650 * time.Millisecond, visibility: 5 * time.Second,
		kills: 8, killEvery: 8 * time.Second, stall: 15 * time.Second, redisDown: 30 * time.Second, pgDown: 90 * time.Second}
)

var workers = []string{"crawler", "cleaner", "extractor", "embedder"}

// A proc is one worker process, restarted after a kill.
type proc struct {
	name, binary string
	cmd          *exec.Cmd
	expected     bool // its exit was caused by the test
	exited       chan struct{}
}

// A cluster is the running pipeline and its services.
type cluster struct {
	t       *testing.T
	bin     string
	environ []string
	logs    string
	pg      *streamkittest.PostgresServer
	rd      *streamkittest.RedisServer

	mu         sync.Mutex
	procs      map[string]*proc
	unexpected []string
	kills      int
}

func (c *cluster) start(name, binary string) {
	c.t.Helper()
	f, err := os.OpenFile(filepath.Join(c.logs, name+".log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		c.t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(c.bin, binary))
	cmd.Env = append(c.environ, strings.ToUpper(workerStage(binary))+"_CONSUMER="+name+fmt.Sprintf("-%d", time.Now().UnixNano()))
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Start(); err != nil {
		c.t.Fatalf("start %s: %v", name, err)
	}
	p := &proc{name: name, binary: binary, cmd: cmd, exited: make(chan struct{})}
	c.mu.Lock()
	c.procs[name] = p
	c.mu.Unlock()
	go func() {
		err := cmd.Wait()
		f.Close()
		c.mu.Lock()
		if !p.expected {
			c.unexpected = append(c.unexpected, fmt.Sprintf("%s exited on its own: %v", name, err))
		}
		c.mu.Unlock()
		close(p.exited)
	}()
}

func workerStage(binary string) string {
	return map[string]string{"crawler": "crawl", "cleaner": "clean", "extractor": "extract", "embedder": "embed"}[binary]
}

func (c *cluster) proc(name string) *proc {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.procs[name]
}

// kill SIGKILLs a worker and starts it again.
func (c *cluster) kill(name string) {
	p := c.proc(name)
	c.mu.Lock()
	p.expected = true
	c.kills++
	c.mu.Unlock()
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.exited
	c.start(name, p.binary)
}

// stopAll sends SIGTERM to every worker; each must exit 0.
func (c *cluster) stopAll() {
	for name := range c.procs {
		p := c.proc(name)
		c.mu.Lock()
		p.expected = true
		c.mu.Unlock()
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.exited:
			if code := p.cmd.ProcessState.ExitCode(); code != 0 {
				c.t.Errorf("%s exited %d after SIGTERM", name, code)
			}
		case <-time.After(60 * time.Second):
			_ = p.cmd.Process.Kill()
			c.t.Errorf("%s did not stop within 60 s of SIGTERM", name)
		}
	}
}

func (c *cluster) newsctl(args ...string) string {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(c.bin, "newsctl"), args...)
	cmd.Env = c.environ
	out, err := cmd.CombinedOutput()
	if err != nil {
		c.t.Fatalf("newsctl %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func (c *cluster) logf(format string, args ...any) {
	c.t.Logf("[%s] %s", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}

// eventually polls cond for up to timeout (testenv's poll).
func (c *cluster) eventually(what string, timeout time.Duration, cond func() bool) {
	c.t.Helper()
	(&testenv.Env{T: c.t}).Eventually(what, timeout, cond)
}

func (c *cluster) count(conn *pgx.Conn, sql string) int {
	var n int
	if err := conn.QueryRow(context.Background(), sql).Scan(&n); err != nil {
		return -1
	}
	return n
}

func TestChaos(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the whole pipeline through faults")
	}
	sch := short
	if *long {
		sch = full
	}
	started := time.Now()
	pg := streamkittest.StartPostgres(t)
	rd := streamkittest.StartRedis(t)
	s := gazette.New(sch.articles)
	defer s.Close()
	c := &cluster{t: t, bin: testenv.Build(t, "../.."), logs: t.TempDir(), pg: pg, rd: rd, procs: map[string]*proc{}}
	vis := sch.visibility.String()
	c.environ = append(os.Environ(),
		"DATABASE_URL="+pg.URL(), "REDIS_URL="+rd.URL(), "STREAM_PREFIX=nc", "METRICS_ADDR=0", "LOG_LEVEL=info",
		"OPENAI_BASE_URL=", "CRAWL_ALLOW_PRIVATE=1", "CRAWL_HOST_DELAY="+sch.hostDelay.String(), "CRAWL_MAX_DEPTH=2",
		"CRAWL_RECRAWL_INTERVAL=0", "CRAWL_VISIBILITY="+vis, "CLEAN_VISIBILITY="+vis, "EXTRACT_VISIBILITY="+vis, "EMBED_VISIBILITY="+vis,
		"CRAWL_GRACE=10s", "CLEAN_GRACE=10s", "EXTRACT_GRACE=10s", "EMBED_GRACE=10s")
	defer func() {
		for name := range c.procs {
			if p := c.proc(name); p.cmd.ProcessState == nil {
				p.expected = true
				_ = p.cmd.Process.Kill()
			}
		}
		if t.Failed() {
			for name := range c.procs {
				b, _ := os.ReadFile(filepath.Join(c.logs, name+".log"))
				lines := strings.Split(string(b), "\n")
				t.Logf("%s log (last 40 lines):\n%s", name, strings.Join(lines[max(0, len(lines)-40):], "\n"))
			}
		}
	}()
	c.newsctl("migrate")
	for _, w := range workers {
		for i := range 2 {
			c.start(fmt.Sprintf("%s-%d", w, i), w)
		}
	}
	c.newsctl("seed", s.URL())
	c.eventually("the first articles fetched", 2*time.Minute, func() bool { return s.Fetched() >= 10 })

	// Kills: one random worker at a time, restarted at once.
	names := make([]string, 0, 8)
	for _, w := range workers {
		names = append(names, w+"-0", w+"-1")
	}
	for range sch.kills {
		victim := names[rand.IntN(len(names))]
		c.logf("SIGKILL %s (fetched %d)", victim, s.Fetched())
		c.kill(victim)
		time.Sleep(sch.killEvery)
	}

	// A crawler stalled past its visibility: the other keeps crawling.
	stalled := c.proc("crawler-0")
	before := s.Requests()
	stallStart := time.Now()
	c.logf("SIGSTOP crawler-0 for %s", sch.stall)
	_ = stalled.cmd.Process.Signal(syscall.SIGSTOP)
	time.Sleep(sch.stall)
	duringStall := s.Requests() - before
	_ = stalled.cmd.Process.Signal(syscall.SIGCONT)
	stallEnd := time.Now().Add(2 * sch.visibility)
	c.logf("SIGCONT crawler-0; %d requests reached the site during the stall", duringStall)

	c.logf("Redis SIGKILL for %s", sch.redisDown)
	rd.Kill()
	time.Sleep(sch.redisDown)
	rd.Start()
	c.logf("Redis back from its AOF")

	time.Sleep(2 * time.Second)
	c.logf("PostgreSQL stopped for %s", sch.pgDown)
	pg.Stop()
	time.Sleep(sch.pgDown)
	pg.Start()
	c.logf("PostgreSQL back")

	// Redis loses everything; PostgreSQL knows what is owed.
	time.Sleep(3 * time.Second)
	rdb := rd.Client(t)
	if err := rdb.FlushAll(context.Background()).Err(); err != nil {
		t.Fatal(err)
	}
	c.logf("FLUSHALL (fetched %d); reconcile:\n%s", s.Fetched(), c.newsctl("reconcile"))

	conn, err := pgx.Connect(context.Background(), pg.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	drainStart := time.Now()
	for round := 0; ; round++ {
		// The FLUSHALL may also have dropped messages emitted while reconcile
		// ran; reconcile is idempotent, so run it until nothing is owed.
		c.newsctl("wait", "--timeout", "10m", "--settle", "3s")
		c.checkNoDeadLetters()
		var counts []struct{ Owed, Published int }
		if err := json.Unmarshal([]byte(c.newsctl("reconcile", "--json")), &counts); err != nil {
			t.Fatal(err)
		}
		owed := 0
		for _, n := range counts {
			owed += n.Owed
		}
		if owed == 0 {
			break
		}
		if round == 5 {
			t.Fatalf("still %d owed after %d reconciles", owed, round+1)
		}
		c.logf("reconcile round %d published %d", round+2, owed)
	}
	drain := time.Since(drainStart)

	embedded := c.count(conn, `SELECT count(DISTINCT doc_id) FROM chunks`)
	extracted := c.count(conn, `SELECT count(DISTINCT doc_id) FROM extractions`)
	articles := c.count(conn, `SELECT count(*) FROM cleaned WHERE is_article AND duplicate_of IS NULL`)
	dups := c.count(conn, `SELECT count(*) FROM cleaned WHERE duplicate_of IS NOT NULL`)
	extractRows := c.count(conn, `SELECT count(*) FROM stage_results WHERE stage = 'extract'`)
	embedRows := c.count(conn, `SELECT count(*) FROM stage_results WHERE stage = 'embed'`)
	refetches, stallRefetches := s.Refetches(stallStart, stallEnd)
	c.logf("figures: %d articles, %d kills, stall %s (%d requests during it), Redis down %s, PostgreSQL down %s, "+
		"%d refetches (%d in the stall window), drain after the last fault %s, total %s",
		sch.articles, c.kills, sch.stall, duringStall, sch.redisDown, sch.pgDown, refetches, stallRefetches,
		drain.Round(time.Second), time.Since(started).Round(time.Second))

	if articles != sch.articles || embedded != sch.articles || extracted != sch.articles || dups != 0 {
		t.Errorf("%d articles cleaned (%d duplicates), %d extracted, %d embedded; want %d each and no duplicates",
			articles, dups, extracted, embedded, sch.articles)
	}
	if extractRows != sch.articles || embedRows != sch.articles {
		t.Errorf("ledger: %d extract rows, %d embed rows; want %d each (one per article and model)", extractRows, embedRows, sch.articles)
	}
	if duringStall == 0 {
		t.Error("no request reached the site while crawler-0 was stalled: the stage froze")
	}
	if stallRefetches > 16 { // the stalled crawler's handlers that were mid-fetch (CRAWL_CONCURRENCY)
		t.Errorf("%d refetches in the stall window; only the stalled crawler's in-flight requests may be", stallRefetches)
	}
	c.stopAll()
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.unexpected) > 0 {
		t.Errorf("workers exited on their own: %v", c.unexpected)
	}
}

// checkNoDeadLetters fails the test if any stage has a dead letter.
func (c *cluster) checkNoDeadLetters() {
	c.t.Helper()
	var stats []streamkit.StageStats
	if err := json.Unmarshal([]byte(c.newsctl("stats", "--json")), &stats); err != nil {
		c.t.Fatal(err)
	}
	for _, s := range stats {
		if s.DLQ != 0 {
			c.t.Errorf("%d dead letters in %s:\n%s", s.DLQ, s.Stage, c.newsctl("dlq", "list", "--stage", s.Stage))
		}
	}
}
