// Command render measures the renderer on the script-only site (host delay
// 10 ms): renders per second, CPU seconds per render (the Go process and
// Chromium's processes together) and peak resident memory, beside the
// static fetch of the twins through the crawler's fetcher and politeness in
// the same run. Its last line:
//
//	renders R/s, C CPU-s per render, peak RSS M MB, static twins S pages/s
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newscrawl/newscrawl/internal/crawl/fetch"
	"github.com/newscrawl/newscrawl/internal/crawl/politeness"
	"github.com/newscrawl/newscrawl/internal/proctree"
	"github.com/newscrawl/newscrawl/internal/render"
	"github.com/newscrawl/newscrawl/internal/render/scriptsite"
)

func main() {
	n := flag.Int("n", 200, "articles rendered")
	tabs := flag.Int("tabs", 2, "RENDER_CONCURRENCY")
	delay := flag.Duration("delay", 10*time.Millisecond, "host delay")
	profile := flag.String("cpuprofile", "", "write the renderer process's CPU profile of the rendering phase here")
	flag.Parse()
	cpuProfile = *profile
	if err := run(*n, *tabs, *delay); err != nil {
		fmt.Fprintln(os.Stderr, "bench-render:", err)
		os.Exit(1)
	}
}

var cpuProfile string

func run(n, tabs int, delay time.Duration) error {
	url := os.Getenv("REDIS_URL")
	if url == "" {
		url = "redis://127.0.0.1:6379/0"
	}
	opt, err := redis.ParseURL(url)
	if err != nil {
		return err
	}
	rdb := redis.NewClient(opt)
	defer rdb.Close()
	prefix := "bench-render-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	defer cleanup(rdb, prefix)

	site := &scriptsite.Site{N: n, Canary: "http://127.0.0.1:9"}
	ln, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		return err
	}
	srv := &httptest.Server{Listener: ln, Config: &http.Server{Handler: site.Handler()}}
	srv.Start()
	defer srv.Close()
	allow := []netip.Prefix{netip.MustParsePrefix("127.0.0.2/32")}

	// The static twins, as the crawler fetches them: one host, its delay.
	f := fetch.New(fetch.Config{AllowCIDRs: allow})
	lim := politeness.New(rdb, prefix+"-static", 0)
	start := time.Now()
	for i := range n {
		res, err := lim.Wait(context.Background(), "127.0.0.2", delay)
		if err != nil {
			return err
		}
		resp, err := f.Fetch(context.Background(), fetch.Request{URL: fmt.Sprintf("%s/static/article/%d", srv.URL, i)})
		res.Release()
		if err != nil {
			return err
		}
		resp.Release()
	}
	static := float64(n) / time.Since(start).Seconds()

	r, err := render.New(rdb, render.Config{Concurrency: tabs, HostDelay: delay, Prefix: prefix, RecycleEvery: 1 << 30,
		Fetch: fetch.Config{AllowCIDRs: allow}})
	if err != nil {
		return err
	}
	defer r.Close()
	if _, err := r.Render(context.Background(), srv.URL+"/article/0"); err != nil { // the browser's start is not a render
		return fmt.Errorf("warm up: %w", err)
	}
	var peak atomic.Int64
	stop := make(chan struct{})
	var sampler sync.WaitGroup
	sampler.Go(func() {
		t := time.NewTicker(2 * time.Second) // a reading costs the kernel tens of ms, counted in the Go process's CPU
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				if rss := r.BrowserMemory() + selfRSS(); rss > peak.Load() {
					peak.Store(rss)
				}
			}
		}
	})
	if cpuProfile != "" {
		f, err := os.Create(cpuProfile)
		if err != nil {
			return err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	cpu0, self0 := proctree.CPUSeconds(proctree.Tree(os.Getpid())), proctree.CPUSeconds([]int{os.Getpid()})
	start = time.Now()
	var next atomic.Int64
	var failed, spent, waited, requests atomic.Int64
	var wg sync.WaitGroup
	for range tabs {
		wg.Go(func() {
			for {
				i := next.Add(1) - 1
				if i >= int64(n) {
					return
				}
				p, err := r.Render(context.Background(), fmt.Sprintf("%s/article/%d", srv.URL, i))
				if err != nil {
					failed.Add(1)
					fmt.Fprintln(os.Stderr, "render", i, err)
				}
				if p != nil {
					spent.Add(int64(p.Took))
					waited.Add(int64(p.Waited))
					requests.Add(int64(p.Requests))
				}
			}
		})
	}
	wg.Wait()
	took := time.Since(start)
	cpu, self := proctree.CPUSeconds(proctree.Tree(os.Getpid()))-cpu0, proctree.CPUSeconds([]int{os.Getpid()})-self0
	close(stop)
	sampler.Wait()
	fmt.Printf("rendered %d of %d articles with %d tabs in %.1f s (%d failed), %d browser start(s), Go %s, %d cores\n",
		n-int(failed.Load()), n, tabs, took.Seconds(), failed.Load(), r.Starts(), runtime.Version(), runtime.NumCPU())
	fmt.Printf("per render: %.0f ms in the tab, of which %.0f ms waiting for the host's turn; %.1f requests\n",
		float64(spent.Load())/float64(n)/1e6, float64(waited.Load())/float64(n)/1e6, float64(requests.Load())/float64(n))
	fmt.Printf("CPU per render: %.3f s the renderer's Go process (proxy, CDP), %.3f s Chromium\n", self/float64(n), (cpu-self)/float64(n))
	over, err := overrun(rdb, prefix, srv.URL, allow)
	if err != nil {
		return err
	}
	fmt.Printf("deadline 3 s: the pages that never settle (endless script, endless load, refresh loop, memory hog) overran it by at most %d ms\n", over.Milliseconds())
	fmt.Printf("renders %.2f/s, %.3f CPU-s per render, peak RSS %d MB, static twins %.1f pages/s\n",
		float64(n)/took.Seconds(), cpu/float64(n), peak.Load()>>20, static)
	return nil
}

// overrun renders the hostile pages that end at their deadline, three
// times each, and returns the most any overran it.
func overrun(rdb *redis.Client, prefix, base string, allow []netip.Prefix) (time.Duration, error) {
	const limit = 3 * time.Second
	r, err := render.New(rdb, render.Config{Timeout: limit, Prefix: prefix, Fetch: fetch.Config{AllowCIDRs: allow}})
	if err != nil {
		return 0, err
	}
	defer r.Close()
	if _, err := r.Render(context.Background(), base+"/article/0"); err != nil {
		return 0, err
	}
	var worst time.Duration
	for range 3 {
		for _, kind := range []string{"loop", "neverload", "refresh", "memhog"} {
			start := time.Now()
			_, _ = r.Render(context.Background(), base+"/hostile/"+kind)
			worst = max(worst, time.Since(start)-limit)
		}
	}
	return worst, nil
}

func selfRSS() int64 { return proctree.Sum([]int{os.Getpid()}, "status", "VmRSS:") }

func cleanup(rdb *redis.Client, prefix string) {
	ctx := context.Background()
	for _, pat := range []string{prefix + ":*", prefix + "-static:*"} {
		keys, _ := rdb.Keys(ctx, pat).Result()
		if len(keys) > 0 {
			rdb.Del(ctx, keys...)
		}
	}
}
