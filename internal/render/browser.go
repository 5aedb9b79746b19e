package render

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/chromedp/chromedp"

	cfetch "github.com/newscrawl/newscrawl/internal/crawl/fetch"
	"github.com/newscrawl/newscrawl/internal/proctree"
)

// browserProc is one running Chromium.
type browserProc struct {
	ctx     context.Context // the browser's chromedp context: tabs are its children
	cancel  func()
	dir     string // its profile, removed with it
	renders atomic.Int64
	hung    atomic.Bool  // a tab would not close: the browser no longer answers
	memAt   atomic.Int64 // unix nanos of the last memory reading
}

// deadRoute is the proxy of the browser's default context: nothing listens
// there, so a request outside a render's own context goes nowhere.
const deadRoute = "http://127.0.0.1:9"

// startBrowser starts a headless Chromium in a profile of its own. Its
// network is shut by default (a dead proxy, no DNS of its own, no WebRTC
// outside the proxy, no background traffic); each render opens it to its
// own proxy.
func startBrowser(ctx context.Context, cfg Config) (*browserProc, error) {
	dir, err := os.MkdirTemp("", "newscrawl-render-")
	if err != nil {
		return nil, fmt.Errorf("browser profile: %w", err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(cfg.ExecPath), chromedp.UserDataDir(dir), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.ProxyServer(deadRoute),
		chromedp.Flag("proxy-bypass-list", "<-loopback>"),
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"),
		chromedp.Flag("force-webrtc-ip-handling-policy", "disable_non_proxied_udp"),
		chromedp.Flag("webrtc-ip-handling-policy", "disable_non_proxied_udp"),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("dns-prefetch-disable", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-domain-reliability", true),
		chromedp.Flag("disable-notifications", true),
		chromedp.Flag("blink-settings", "imagesEnabled=false"),
		chromedp.Flag("js-flags", "--max-old-space-size=512"),
	)
	ua := cfg.Fetch.UserAgent
	if ua == "" {
		ua = cfetch.DefaultUserAgent
	}
	opts = append(opts, chromedp.UserAgent(ua)) // the crawler's name, not a browser's: robots.txt and logs see who asks
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	bctx, cancelBrowser := chromedp.NewContext(actx)
	b := &browserProc{ctx: bctx, dir: dir, cancel: func() {
		cancelBrowser()
		cancelAlloc()
	}}
	started := make(chan error, 1)
	go func() { started <- chromedp.Do(bctx) }() // the first Run starts the browser; bctx must carry no deadline
	select {
	case err = <-started:
	case <-time.After(30 * time.Second):
		err = fmt.Errorf("chromium did not start within 30s")
	case <-ctx.Done():
		err = ctx.Err()
	}
	if err != nil {
		b.stop()
		return nil, fmt.Errorf("start chromium %s: %w", cfg.ExecPath, err)
	}
	return b, nil
}

// alive reports whether the browser still runs and answers.
func (b *browserProc) alive() bool {
	if b.hung.Load() || b.ctx.Err() != nil {
		return false
	}
	pid := b.pid()
	if pid == 0 {
		return false
	}
	_, err := os.Stat(filepath.Join("/proc", strconv.Itoa(pid)))
	return err == nil
}

func (b *browserProc) pid() int {
	c := chromedp.FromContext(b.ctx)
	if c == nil || c.Browser == nil || c.Browser.Process() == nil {
		return 0
	}
	return c.Browser.Process().Pid
}

// stop ends the browser and every process it started, and removes its
// profile. A browser that will not close within a few seconds is killed.
func (b *browserProc) stop() {
	pids := proctree.Tree(b.pid())
	done := make(chan struct{})
	go func() { b.cancel(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
	}
	for _, p := range pids { // Chromium's children outlive a killed parent for a moment; end them now
		if proc, err := os.FindProcess(p); err == nil {
			_ = proc.Kill()
		}
	}
	_ = os.RemoveAll(b.dir)
}

// treePSS is the memory of pid and its descendants together, in bytes:
// each process's proportional share (Pss, smaps_rollup), so the pages
// Chromium's processes share are counted once, not once per process. It
// is dear (the kernel walks every mapping: tens of milliseconds for a
// browser), so treeRSS screens for it.
func treePSS(pid int) int64 { return proctree.Sum(proctree.Tree(pid), "smaps_rollup", "Pss:") }

// treeRSS is the resident memory of pid and its descendants summed, shared
// pages once per process: never below treePSS, and cheap.
func treeRSS(pid int) int64 { return proctree.Sum(proctree.Tree(pid), "status", "VmRSS:") }

// memoryEvery is how often a browser's memory is read against its budget.
const memoryEvery = 2 * time.Second

// overBudget reports the browser's memory when it is past budget, read at
// most every memoryEvery: the summed resident memory first, the
// proportional set only when that is over.
func (b *browserProc) overBudget(budget int64) (int64, bool) {
	now := time.Now().UnixNano()
	last := b.memAt.Load()
	if now-last < int64(memoryEvery) || !b.memAt.CompareAndSwap(last, now) {
		return 0, false
	}
	if treeRSS(b.pid()) <= budget {
		return 0, false
	}
	pss := treePSS(b.pid())
	return pss, pss > budget
}

// deadline is a render's time limit: Timeout of the render's own time, the
// politeness waits of its proxy not counted.
type deadline struct {
	start time.Time
	limit time.Duration
	sess  *session
}

// left is the time the render has left.
func (d *deadline) left() time.Duration {
	return d.limit - (time.Since(d.start) - time.Duration(d.sess.waited.Load()))
}

// context derives from the tab's context one that ends when the render's
// time is up or the caller's context ends.
func (d *deadline) context(caller, tab context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancel(tab)
	stopCaller := context.AfterFunc(caller, cancel)
	go func() {
		for {
			left := d.left()
			if left <= 0 {
				cancel()
				return
			}
			t := time.NewTimer(left)
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
		}
	}()
	return ctx, func() { stopCaller(); cancel() }
}
