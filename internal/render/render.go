// Package render builds the DOM of pages whose story only script puts in
// place, in headless Chromium. The browser's only route out is a proxy of
// the renderer's own (one per render, proxy.go) that holds every request to
// the crawler's rules; the browser is disposable: restarted every so many
// pages, past a memory budget, and after a crash or a hang.
package render

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/redis/go-redis/v9"

	"github.com/newscrawl/newscrawl/internal/archive"
	cfetch "github.com/newscrawl/newscrawl/internal/crawl/fetch"
	"github.com/newscrawl/newscrawl/internal/crawl/politeness"
	"github.com/newscrawl/newscrawl/internal/crawl/robots"
	"github.com/newscrawl/newscrawl/internal/sleep"
)

// Defaults of Config.
const (
	DefaultTimeout      = 20 * time.Second
	DefaultIdle         = 300 * time.Millisecond
	DefaultMaxNodes     = 50_000
	DefaultMaxDOMBytes  = 5 << 20
	DefaultMaxBytes     = 20 << 20
	DefaultRecycleEvery = 200
	DefaultMemory       = 1 << 30
	DefaultConcurrency  = 2
	DefaultScrolls      = 3
)

// Config describes a Renderer.
type Config struct {
	ExecPath    string        // Chromium; "" looks for chromium, chromium-browser, google-chrome on PATH
	Concurrency int           // tabs at once
	Timeout     time.Duration // navigation and settle of one render, politeness waits not counted
	Idle        time.Duration // quiet network this long (and the document loaded) settles a page
	Scrolls     int           // scrolls to the bottom for content loaded on scroll, while the page grows
	MaxNodes    int           // elements in the rendered DOM; past it the render fails (dom_too_large)
	MaxDOMBytes int           // bytes of the rendered DOM; past it the render fails
	MaxBytes    int64         // bytes the browser may fetch for one render
	// RecycleEvery restarts the browser after so many renders; Memory, when
	// the browser's processes together hold more memory (proportional set).
	RecycleEvery int
	Memory       int64
	AllowHosts   []string // hosts besides the page's own the browser may reach (none by default)
	HostDelay    time.Duration
	Fetch        cfetch.Config   // UserAgent, AllowPrivate, AllowCIDRs, timeouts: the crawler's own
	Prefix       string          // Redis key prefix, shared with the crawler (politeness, robots.txt)
	Archive      *archive.Writer // when set, the browser's fetches are archived like the crawler's
	Logger       *slog.Logger
}

func (c *Config) setDefaults() {
	if c.Concurrency <= 0 {
		c.Concurrency = DefaultConcurrency
	}
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	if c.Idle <= 0 {
		c.Idle = DefaultIdle
	}
	if c.Scrolls < 0 {
		c.Scrolls = 0
	} else if c.Scrolls == 0 {
		c.Scrolls = DefaultScrolls
	}
	if c.MaxNodes <= 0 {
		c.MaxNodes = DefaultMaxNodes
	}
	if c.MaxDOMBytes <= 0 {
		c.MaxDOMBytes = DefaultMaxDOMBytes
	}
	if c.MaxBytes <= 0 {
		c.MaxBytes = DefaultMaxBytes
	}
	if c.RecycleEvery <= 0 {
		c.RecycleEvery = DefaultRecycleEvery
	}
	if c.Memory <= 0 {
		c.Memory = DefaultMemory
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
}

// Why a render failed (Failure.Reason).
const (
	FailDeadline   = "deadline"      // navigation and settle overran Timeout
	FailCrashed    = "browser_crash" // the browser died or stopped answering
	FailDOMSize    = "dom_too_large"
	FailNavigation = "navigation" // the page itself could not be loaded (refused, unreachable)
	FailStart      = "browser_start"
)

// A Failure is a render that did not give a DOM. Retry says whether another
// try (on a fresh browser) may do better.
type Failure struct {
	Reason string
	Retry  bool
	Err    error
}

func (f *Failure) Error() string { return "render: " + f.Reason + ": " + f.Err.Error() }
func (f *Failure) Unwrap() error { return f.Err }

// A Page is one render's result.
type Page struct {
	HTML     []byte // document.documentElement.outerHTML, UTF-8
	FinalURL string
	Nodes    int
	Requests int
	Refused  map[string]int // requests refused by the proxy, by reason
	Bytes    int64
	Waited   time.Duration // politeness waits, not counted against Timeout
	Took     time.Duration
}

// RefusedTotal is the number of refused requests.
func (p *Page) RefusedTotal() int {
	n := 0
	for _, v := range p.Refused {
		n += v
	}
	return n
}

// A Renderer renders pages in one headless Chromium, Concurrency tabs at
// once; it is safe for concurrent use.
type Renderer struct {
	cfg   Config
	gate  *gate
	tabs  chan struct{}
	slots chan *slot // parked tabs, at most Concurrency
	log   *slog.Logger

	mu     sync.RWMutex // renders hold it shared; a restart exclusively
	b      *browserProc
	starts int
}

// New builds a Renderer over Redis (politeness, robots.txt cache). The
// browser starts at the first render.
func New(rdb redis.UniversalClient, cfg Config) (*Renderer, error) {
	cfg.setDefaults()
	if cfg.ExecPath == "" {
		p, err := FindChromium()
		if err != nil {
			return nil, err
		}
		cfg.ExecPath = p
	}
	f := cfetch.New(cfg.Fetch)
	lim := politeness.New(rdb, cfg.Prefix, 0)
	log := cfg.Logger.With("component", "render")
	g := &gate{fetcher: f, limiter: lim, delay: cfg.HostDelay, allow: map[string]bool{}, archive: cfg.Archive, log: log}
	for _, h := range cfg.AllowHosts {
		g.allow[strings.ToLower(strings.TrimSpace(h))] = true
	}
	g.robots = robots.New(rdb, f, robots.Config{Prefix: cfg.Prefix, UserAgent: f.Config().UserAgent, Logger: log,
		BeforeSend: func(ctx context.Context, host string) (func(), error) {
			res, err := lim.Wait(ctx, host, cfg.HostDelay)
			if err != nil {
				return nil, err
			}
			return res.Release, nil
		}})
	return &Renderer{cfg: cfg, gate: g, tabs: make(chan struct{}, cfg.Concurrency), slots: make(chan *slot, cfg.Concurrency), log: log}, nil
}

// FindChromium looks for Chromium on PATH ($CHROMIUM first).
func FindChromium() (string, error) {
	for _, name := range []string{os.Getenv("CHROMIUM"), "chromium", "chromium-browser", "google-chrome", "headless-shell"} {
		if name == "" {
			continue
		}
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", errors.New("render: no Chromium on PATH (install Debian's chromium, or set CHROMIUM / RENDER_CHROMIUM)")
}

// Close stops the browser.
func (r *Renderer) Close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for len(r.slots) > 0 {
		(<-r.slots).sess.close()
	}
	if r.b != nil {
		r.b.stop()
		r.b = nil
	}
}

// Starts is how many browsers this Renderer started (restarts included).
func (r *Renderer) Starts() int {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.starts
}

// BrowserPID is the running browser's process id, 0 when none runs.
func (r *Renderer) BrowserPID() int {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if r.b == nil {
		return 0
	}
	return r.b.pid()
}

// BrowserMemory is the memory of the browser's processes together, their
// proportional set (shared pages counted once). It takes the kernel tens of
// milliseconds: sample it, do not poll it.
func (r *Renderer) BrowserMemory() int64 {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if r.b == nil {
		return 0
	}
	return treePSS(r.b.pid())
}

// Render loads pageURL in a tab of its own browser context and returns its
// DOM once the page has settled. A *Failure says why not.
func (r *Renderer) Render(ctx context.Context, pageURL string) (*Page, error) {
	u, err := url.Parse(pageURL)
	if err != nil || u.Hostname() == "" {
		return nil, &Failure{Reason: FailNavigation, Err: fmt.Errorf("not a page URL: %q", pageURL)}
	}
	select {
	case r.tabs <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-r.tabs }()
	b, err := r.browser(ctx)
	if err != nil {
		return nil, err
	}
	p, err := r.renderIn(ctx, b, strings.ToLower(u.Hostname()), pageURL)
	r.mu.RUnlock()
	var f *Failure
	if errors.As(err, &f) && f.Reason == FailCrashed {
		r.restart(b, "crashed or hung: "+f.Err.Error())
	} else {
		r.recycleIfDue(b)
	}
	return p, err
}

// renderIn renders in a parked tab of b, or a new one; the tab is parked
// again after a render that went well, and closed after any other.
func (r *Renderer) renderIn(ctx context.Context, b *browserProc, host, pageURL string) (*Page, error) {
	var sl *slot
	for sl == nil {
		select {
		case s := <-r.slots:
			if s.b == b && b.alive() {
				sl = s
			} else {
				s.dispose()
			}
			continue
		default:
		}
		s, err := r.newSlot(ctx, b)
		if err != nil {
			return nil, err
		}
		sl = s
	}
	p, err := r.renderOn(ctx, b, sl, host, pageURL)
	if err == nil && sl.uses < slotUses && sl.park() == nil {
		r.slots <- sl // room: at most Concurrency slots exist, each held by one render
	} else {
		sl.dispose()
	}
	return p, err
}

// browser returns the running browser with r.mu held shared, starting one
// when none runs.
func (r *Renderer) browser(ctx context.Context) (*browserProc, error) {
	for {
		r.mu.RLock()
		if r.b != nil && r.b.alive() {
			return r.b, nil
		}
		r.mu.RUnlock()
		r.mu.Lock()
		if r.b == nil || !r.b.alive() {
			if r.b != nil {
				r.b.stop()
			}
			b, err := startBrowser(ctx, r.cfg)
			if err != nil {
				r.b = nil
				r.mu.Unlock()
				return nil, &Failure{Reason: FailStart, Retry: true, Err: err}
			}
			r.b, r.starts = b, r.starts+1
			r.log.Info("browser started", "pid", b.pid(), "starts", r.starts)
		}
		r.mu.Unlock()
	}
}

// restart stops b (if it is still the running browser) so the next render
// starts a fresh one.
func (r *Renderer) restart(b *browserProc, why string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.b != b {
		return
	}
	r.log.Warn("browser restarted", "pid", b.pid(), "why", why)
	b.stop()
	r.b = nil
}

// recycleIfDue restarts b after RecycleEvery renders or past Memory. It
// takes no lock to decide: a render in the other tab is not waited for
// unless the browser is due.
func (r *Renderer) recycleIfDue(b *browserProc) {
	due := ""
	if n := b.renders.Add(1); n >= int64(r.cfg.RecycleEvery) {
		due = fmt.Sprintf("%d renders", n)
	} else if mem, over := b.overBudget(r.cfg.Memory); over {
		due = fmt.Sprintf("memory %d MB over the budget of %d MB", mem>>20, r.cfg.Memory>>20)
	}
	if due != "" {
		r.restart(b, due)
	}
}

// pageScript runs before any of the page's own: no new windows, no dialogs,
// no beforeunload, no service workers.
const pageScript = `(() => {
  const none = () => null;
  window.open = none; window.alert = none; window.confirm = () => false; window.prompt = none; window.print = none;
  try { Object.defineProperty(window, 'onbeforeunload', {get: none, set: none}); } catch (e) {}
  const add = EventTarget.prototype.addEventListener;
  EventTarget.prototype.addEventListener = function (t, f, o) { if (t === 'beforeunload') return; return add.call(this, t, f, o); };
  if (navigator.serviceWorker) { try { navigator.serviceWorker.register = () => Promise.reject(new Error('no service workers')); } catch (e) {} }
})();`

// blocked are the resource kinds never fetched: the text needs none of them.
var blocked = []network.ResourceType{network.ResourceTypeImage, network.ResourceTypeMedia, network.ResourceTypeFont,
	network.ResourceTypeStylesheet}

// renderOn renders on b in a browser context of its own, whose proxy is
// this render's session.
func (r *Renderer) renderOn(ctx context.Context, b *browserProc, sl *slot, host, pageURL string) (*Page, error) {
	start := time.Now()
	if err := sl.begin(ctx, host); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &Failure{Reason: FailCrashed, Retry: true, Err: err}
	}
	sess := sl.sess
	dl := &deadline{start: start, limit: r.cfg.Timeout, sess: sess}
	dctx, stop := dl.context(ctx, sl.ctx)
	defer stop()

	p := &Page{}
	err := chromedp.Do(dctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		return r.load(ctx, dl, pageURL, p)
	}))
	p.Requests, p.Refused, p.Bytes = int(sess.requests.Load()), sess.refusals(), sess.bytes.Load()
	p.Waited, p.Took = time.Duration(sess.waited.Load()), time.Since(start)
	if err == nil {
		return p, nil
	}
	var f *Failure
	switch {
	case errors.As(err, &f):
	case !b.alive():
		f = &Failure{Reason: FailCrashed, Retry: true, Err: err}
	case ctx.Err() != nil:
		return p, ctx.Err() // the caller gave up (shutdown): not the page's fault
	case dctx.Err() != nil:
		f = &Failure{Reason: FailDeadline, Retry: true, Err: fmt.Errorf("%s: navigation and settle took over %s", pageURL, r.cfg.Timeout)}
	default:
		f = &Failure{Reason: FailNavigation, Retry: true, Err: err}
	}
	return p, f
}

// prepare sets up a new tab: the page script, downloads refused, images,
// media, fonts and stylesheets failed before they are asked for, dialogs
// dismissed.
func (r *Renderer) prepare(ctx, tctx context.Context) error {
	bctx := chromedp.FromContext(tctx).BrowserContextID
	if _, err := chromedp.CallBrowser(ctx, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{
		Behavior: browser.SetDownloadBehaviorBehaviorDeny, BrowserContextID: bctx}); err != nil {
		return fmt.Errorf("refuse downloads: %w", err)
	}
	if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: pageScript}); err != nil {
		return fmt.Errorf("add the page script: %w", err)
	}
	patterns := make([]*fetch.RequestPattern, len(blocked))
	for i, t := range blocked {
		patterns[i] = &fetch.RequestPattern{ResourceType: t, RequestStage: fetch.RequestStageRequest}
	}
	paused := chromedp.Events(tctx, fetch.RequestPaused)
	dialogs := chromedp.Events(tctx, page.JavascriptDialogOpening)
	go func() {
		for ev, err := range paused {
			if err != nil {
				return
			}
			_, _ = chromedp.Call(tctx, fetch.FailRequest, fetch.FailRequestParams{RequestID: ev.RequestID, ErrorReason: network.ErrorReasonBlockedByClient})
		}
	}()
	go func() {
		for _, err := range dialogs {
			if err != nil {
				return
			}
			_, _ = chromedp.Call(tctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: false})
		}
	}()
	if _, err := chromedp.Call(ctx, fetch.Enable, fetch.EnableParams{Patterns: patterns}); err != nil {
		return fmt.Errorf("block images and styles: %w", err)
	}
	return nil
}

// load navigates, waits for the page to settle (the document loaded and the
// network quiet for Idle), scrolls while the page grows, and takes the DOM.
func (r *Renderer) load(ctx context.Context, dl *deadline, pageURL string, p *Page) error {
	nav, err := chromedp.Call(ctx, page.Navigate, page.NavigateParams{URL: pageURL})
	if err != nil {
		return err
	}
	if nav.ErrorText != "" {
		return &Failure{Reason: FailNavigation, Err: fmt.Errorf("%s: %s", pageURL, nav.ErrorText)}
	}
	if err := r.settle(ctx, dl); err != nil {
		return err
	}
	if why := dl.sess.refusedAs(pageURL); why != "" {
		return &Failure{Reason: FailNavigation, Err: fmt.Errorf("%s: the page itself was refused (%s)", pageURL, why)}
	}
	height := 0
	for range r.cfg.Scrolls {
		// Counted before the scroll: a slow answer can carry the request
		// the scroll set off, and counting after it missed that request.
		before := dl.sess.requests.Load()
		asked := time.Now()
		h, err := chromedp.Run(ctx, chromedp.Evaluate[int](scrollToEnd, chromedp.EvalAwaitPromise))
		if err != nil {
			return err
		}
		if h <= height {
			break
		}
		height = h
		// Content loaded on scroll asks for it at once; a page that asks
		// for nothing within a moment is done. The moment stretches with
		// how long the page took to answer the scroll: on a busy machine
		// its scroll handler runs late (seen in CI: a second half lost).
		grace := min(max(scrollGrace, 4*time.Since(asked)), maxScrollGrace)
		if err := sleep.For(ctx, grace); err != nil {
			return err
		}
		if dl.sess.requests.Load() == before && dl.sess.idleFor() >= grace {
			break
		}
		if err := r.settle(ctx, dl); err != nil {
			return err
		}
	}
	type snapshot struct {
		Nodes int    `json:"nodes"`
		URL   string `json:"url"`
		HTML  string `json:"html"`
	}
	snap, err := chromedp.Run(ctx, chromedp.Evaluate[snapshot](fmt.Sprintf(`(() => {
  const n = document.getElementsByTagName('*').length;
  if (n > %d) return {nodes: n, url: location.href, html: ''};
  const h = document.documentElement ? document.documentElement.outerHTML : '';
  return {nodes: n, url: location.href, html: h.length > %d ? '' : h};
})()`, r.cfg.MaxNodes, r.cfg.MaxDOMBytes)))
	if err != nil {
		return err
	}
	p.Nodes, p.FinalURL = snap.Nodes, snap.URL
	switch {
	case snap.Nodes > r.cfg.MaxNodes:
		return &Failure{Reason: FailDOMSize, Err: fmt.Errorf("%d elements, over the cap of %d", snap.Nodes, r.cfg.MaxNodes)}
	case snap.HTML == "":
		return &Failure{Reason: FailDOMSize, Err: fmt.Errorf("the DOM is over the cap of %d bytes", r.cfg.MaxDOMBytes)}
	}
	p.HTML = []byte("<!DOCTYPE html>\n" + snap.HTML)
	return nil
}

// scrollToEnd scrolls to the bottom and answers the height it scrolled
// to once the page has had the scroll: a scroll event is dispatched with
// the next frame, so after two frames and a task its handlers have run
// (on a busy machine that is late, and timing the grace from the scroll
// itself lost a second half in CI). A page that draws no frames answers
// after half a second.
const scrollToEnd = `new Promise(done => {
  const h = document.documentElement.scrollHeight;
  window.scrollTo(0, h);
  const ran = () => setTimeout(() => done(h), 0);
  requestAnimationFrame(() => requestAnimationFrame(ran));
  setTimeout(() => done(h), 500);
})`

// scrollGrace is how long a scroll is given to start loading more, at
// least; maxScrollGrace, at most, however slow the page answers.
const (
	scrollGrace    = 150 * time.Millisecond
	maxScrollGrace = time.Second
)

// settle waits until the document has loaded and the proxy has been idle for
// Idle. A page that never goes quiet settles when its deadline is near: the
// DOM it has then is taken rather than nothing.
func (r *Renderer) settle(ctx context.Context, dl *deadline) error {
	sess := dl.sess
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
		if dl.left() < time.Second {
			return nil // busy to the end: take what is there
		}
		if sess.idleFor() < r.cfg.Idle {
			continue
		}
		state, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.readyState`))
		if err != nil {
			return err
		}
		if state == "complete" || (state == "interactive" && sess.idleFor() >= 2*r.cfg.Idle) {
			return nil
		}
	}
}
