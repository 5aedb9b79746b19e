// Command serve is the storm benchmark of `newsctl serve`: it loads a small
// embedded corpus into a scratch database, starts the real binary with the
// per-client limit off, measures one search at a time (the ceiling), then
// sends a burst of concurrent searches on loopback and prints p50/p99, how
// many were answered 200, 503 (admission) or otherwise, the share answered
// within 1 s, and serve's peak RSS. Run it with `make bench-serve`.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/newscrawl/newscrawl/internal/embed"
	"github.com/newscrawl/newscrawl/internal/embed/chunk"
	"github.com/newscrawl/newscrawl/internal/embed/embedtest"
	"github.com/newscrawl/newscrawl/internal/embed/local"
	"github.com/newscrawl/newscrawl/internal/store"
)

type options struct {
	databaseURL string
	newsctl     string
	requests    int
	docs        int
	maxSearches int
}

func main() {
	var o options
	flag.StringVar(&o.databaseURL, "db", envOr("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/newscrawl_bench?sslmode=disable"), "scratch database (its bench_serve schema is recreated)")
	flag.StringVar(&o.newsctl, "newsctl", "bin/newsctl", "the newsctl binary to run")
	flag.IntVar(&o.requests, "n", 10000, "requests in the burst, all at once")
	flag.IntVar(&o.docs, "docs", 500, "articles in the corpus")
	flag.IntVar(&o.maxSearches, "max-searches", 0, "SERVE_MAX_SEARCHES for serve (0: its default)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, o); err != nil {
		fmt.Fprintln(os.Stderr, "bench-serve:", err)
		os.Exit(1)
	}
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

var words = strings.Fields(`harbour bridge council repair traffic comet astronomers sky evening train drivers strike pay
union talks regional services library exam students election mayor budget river flood rain school hospital nurses
market prices energy wind farm port ships festival music museum police court trial football final league weather`)

func corpus(n int) []embedtest.Article {
	rng := rand.New(rand.NewPCG(1, 2))
	out := make([]embedtest.Article, n)
	for i := range out {
		var b strings.Builder
		for p := range 6 {
			if p > 0 {
				b.WriteString("\n\n")
			}
			for w := range 40 {
				if w > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(words[rng.IntN(len(words))])
			}
			b.WriteByte('.')
		}
		out[i] = embedtest.Article{DocID: fmt.Sprintf("doc-%05d", i), Host: "bench.example", Language: "en",
			Published: time.Date(2026, 11, 1+i%28, 8, 0, 0, 0, time.UTC),
			Title:     fmt.Sprintf("%s %s %s", words[rng.IntN(len(words))], words[rng.IntN(len(words))], words[rng.IntN(len(words))]),
			Text:      b.String()}
	}
	return out
}

func run(ctx context.Context, o options) error {
	const schema = "bench_serve"
	admin, err := pgx.Connect(ctx, o.databaseURL)
	if err != nil {
		return err
	}
	_, err = admin.Exec(ctx, "DROP SCHEMA IF EXISTS "+schema+" CASCADE; CREATE SCHEMA "+schema)
	admin.Close(ctx)
	if err != nil {
		return err
	}
	u := o.databaseURL + sep(o.databaseURL) + "search_path=" + schema + ",public"
	pool, err := store.Open(ctx, u)
	if err != nil {
		return err
	}
	defer pool.Close()
	if _, err := store.Migrate(ctx, pool); err != nil {
		return err
	}
	st, err := embed.NewStage(pool, embed.Config{Embedder: local.New(local.Config{}), Chunk: chunk.Config{}})
	if err != nil {
		return err
	}
	docs := corpus(o.docs)
	t0 := time.Now()
	if err := embedtest.InsertAll(ctx, pool, docs...); err != nil {
		return err
	}
	if err := embedtest.EmbedAll(ctx, pool, st, docs...); err != nil {
		return err
	}
	fmt.Printf("corpus: %d articles embedded in %s\n", len(docs), time.Since(t0).Round(time.Millisecond))

	addr, err := freeAddr()
	if err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, o.newsctl, "serve", "--addr", addr)
	cmd.Env = append(os.Environ(), "DATABASE_URL="+u, "SERVE_RATE_LIMIT=0", "LOG_LEVEL=warn",
		"STREAM_PREFIX=bench-serve-"+strconv.Itoa(os.Getpid()))
	if o.maxSearches > 0 {
		cmd.Env = append(cmd.Env, "SERVE_MAX_SEARCHES="+strconv.Itoa(o.maxSearches))
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return err
	}
	defer func() { _ = cmd.Process.Signal(syscall.SIGTERM); _ = cmd.Wait() }()
	base := "http://" + addr
	if err := waitUp(ctx, base+"/healthz"); err != nil {
		return err
	}
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 16}}
	query := func(i int) string {
		return base + "/api/search?q=" + words[i%len(words)] + "+" + words[(i*7)%len(words)] + "&k=10"
	}

	// the ceiling: one search at a time
	var single []time.Duration
	for i := range 200 {
		d, code, err := get(client, query(i))
		if err != nil || code != 200 {
			return fmt.Errorf("a single search answered %d: %v", code, err)
		}
		single = append(single, d)
	}
	idleRSS := rss(cmd.Process.Pid, "VmRSS")
	fmt.Printf("one at a time: p50 %s, p99 %s over %d searches; serve RSS %d MB\n",
		pct(single, 50), pct(single, 99), len(single), idleRSS>>10)

	// the ceiling of the machine: the same burst on a static answer (no
	// search, no database), then the storm on search
	floor := burst(cmd.Process.Pid, o.requests, func(int) string { return base + "/api/openapi.json" })
	fmt.Printf("burst of %d on a static answer (the machine's ceiling): answered in %s; p50 %s, p99 %s; within 1 s: %.1f%%\n",
		o.requests, floor.wall.Round(time.Millisecond), pct(floor.all, 50), pct(floor.all, 99), 100*float64(floor.within)/float64(o.requests))
	b := burst(cmd.Process.Pid, o.requests, query)
	results, wall, peakRSS := b.results, b.wall, b.peakRSS
	codes := map[int]int{}
	var errs int
	var firstErr error
	all, within := b.all, b.within
	for _, r := range results {
		if r.err != nil {
			errs++
			if firstErr == nil {
				firstErr = r.err
			}
			continue
		}
		codes[r.code]++
	}
	share := func(n int) string { return fmt.Sprintf("%d (%.1f%%)", n, 100*float64(n)/float64(o.requests)) }
	fmt.Printf("burst of %d at once: answered in %s; 200 %s, 503 %s, other %s, connection errors %s\n",
		o.requests, wall.Round(time.Millisecond), share(codes[200]), share(codes[503]),
		share(len(all)-codes[200]-codes[503]), share(errs))
	if firstErr != nil {
		fmt.Printf("first connection error: %v\n", firstErr)
	}
	fmt.Printf("latency of answered requests: p50 %s, p99 %s, max %s; answered within 1 s: %s\n",
		pct(all, 50), pct(all, 99), pct(all, 100), share(within))
	fmt.Printf("serve RSS: %d MB idle, %d MB peak in the burst, high-water %d MB\n",
		idleRSS>>10, peakRSS>>10, rss(cmd.Process.Pid, "VmHWM")>>10)
	fmt.Printf("result: %d requests, %.1f%% answered (200 or 503) within 1 s, p99 %s, peak RSS %d MB (single search p50 %s)\n",
		o.requests, 100*float64(within)/float64(o.requests), pct(all, 99), peakRSS>>10, pct(single, 50))
	return nil
}

func get(c *http.Client, u string) (time.Duration, int, error) {
	start := time.Now()
	res, err := c.Get(u)
	if err != nil {
		return 0, 0, err
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return time.Since(start), res.StatusCode, nil
}

func pct(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := min(len(s)-1, (len(s)*p)/100)
	return s[i].Round(100 * time.Microsecond)
}

// rss reads a process's memory figure (kB) from /proc.
func rss(pid int, field string) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	return 0
}

func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

func waitUp(ctx context.Context, u string) error {
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if res, err := http.Get(u); err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	return errors.New("newsctl serve did not answer /healthz within 20 s")
}

func sep(u string) string {
	if strings.Contains(u, "?") {
		return "&"
	}
	return "?"
}

type result struct {
	d    time.Duration
	code int
	err  error
}

type burstResult struct {
	results []result
	all     []time.Duration // of the answered
	within  int             // answered within 1 s
	wall    time.Duration
	peakRSS int64 // kB
}

// burst sends n requests at once, each on its own connection, sampling
// the RSS of pid meanwhile.
func burst(pid, n int, url func(i int) string) burstResult {
	stopRSS := make(chan struct{})
	peak := make(chan int64)
	go func() {
		var hi int64
		t := time.NewTicker(10 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stopRSS:
				peak <- hi
				return
			case <-t.C:
				hi = max(hi, rss(pid, "VmRSS"))
			}
		}
	}()
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	out := burstResult{results: make([]result, n)}
	var wg sync.WaitGroup
	gate := make(chan struct{})
	start := time.Now()
	for i := range n {
		wg.Go(func() {
			<-gate
			d, code, err := get(client, url(i))
			out.results[i] = result{d, code, err}
		})
	}
	close(gate)
	wg.Wait()
	out.wall = time.Since(start)
	close(stopRSS)
	out.peakRSS = <-peak
	for _, r := range out.results {
		if r.err == nil {
			out.all = append(out.all, r.d)
			if r.d <= time.Second {
				out.within++
			}
		}
	}
	return out
}
