package render

import (
	"context"
	"fmt"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/storage"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// slotUses is how many renders a tab serves before it is closed for a
// fresh one (its renderer process's heap only grows).
const slotUses = 50

// A slot is a tab kept between renders, in a browser context of its own
// whose proxy is its session. Opening a tab costs Chromium about four
// times what a render in an open one does (a renderer process, a context),
// so tabs are reused: parked on about:blank after each render, its
// cookies and the storage of every origin it reached cleared before a page
// of another host; closed after a failure.
type slot struct {
	b      *browserProc
	ctx    context.Context // the tab's chromedp context
	cancel func()
	sess   *session
	host   string // the host of the last page rendered in it
	uses   int
}

// newSlot opens a tab on b with its own proxy and sets it up (prepare).
func (r *Renderer) newSlot(ctx context.Context, b *browserProc) (*slot, error) {
	sess, err := newSession(r.gate, r.cfg.MaxBytes)
	if err != nil {
		return nil, &Failure{Reason: FailStart, Retry: true, Err: err}
	}
	tctx, cancel := chromedp.NewContext(b.ctx, chromedp.WithNewBrowserContext(func(p *target.CreateBrowserContextParams) {
		p.ProxyServer = sess.URL()
		p.ProxyBypassList = "<-loopback>" // loopback goes through the proxy (and its guard) too
	}))
	s := &slot{b: b, ctx: tctx, cancel: cancel, sess: sess}
	// The first Run opens the tab and ties it to the context it is given:
	// that must be the tab's own, so the wait is bounded from outside.
	opened := make(chan error, 1)
	go func() {
		opened <- chromedp.Do(tctx, chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
			return r.prepare(ctx, tctx)
		}))
	}()
	select {
	case err = <-opened:
	case <-time.After(15 * time.Second):
		err = fmt.Errorf("no answer within 15s")
	case <-ctx.Done():
		err = ctx.Err()
	}
	if err != nil {
		s.dispose()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		// A browser that cannot open a tab is crashed or hung.
		return nil, &Failure{Reason: FailCrashed, Retry: true, Err: fmt.Errorf("open a tab: %w", err)}
	}
	return s, nil
}

// begin readies the slot for a page on host: counts reset and, when the
// last page was another host's, its cookies and storage cleared.
func (s *slot) begin(ctx context.Context, host string) error {
	s.uses++
	origins := s.sess.reset(host)
	if s.host == "" || s.host == host {
		s.host = host
		return nil
	}
	s.host = host
	cctx, stop := context.WithTimeout(s.ctx, 5*time.Second)
	defer stop()
	defer context.AfterFunc(ctx, stop)()
	bctx := chromedp.FromContext(s.ctx).BrowserContextID
	if _, err := chromedp.CallBrowser(cctx, storage.ClearCookies, storage.ClearCookiesParams{BrowserContextID: bctx}); err != nil {
		return fmt.Errorf("clear cookies: %w", err)
	}
	for _, o := range origins {
		if _, err := chromedp.Call(cctx, storage.ClearDataForOrigin, storage.ClearDataForOriginParams{Origin: o, StorageTypes: "all"}); err != nil {
			return fmt.Errorf("clear the storage of %s: %w", o, err)
		}
	}
	return nil
}

// park leaves the page (its scripts, timers and sockets end with it).
func (s *slot) park() error {
	pctx, stop := context.WithTimeout(s.ctx, 3*time.Second)
	defer stop()
	_, err := chromedp.Call(pctx, page.Navigate, page.NavigateParams{URL: "about:blank"})
	return err
}

// dispose closes the tab, which disposes its browser context (cookies,
// storage, workers), and stops its proxy. It is not waited for past a
// moment (a tab stuck in a script closes slowly); a browser that has not
// closed it within a few seconds is hung, and the next render starts a
// fresh one.
func (s *slot) dispose() {
	closed := make(chan struct{})
	go func() { s.cancel(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(300 * time.Millisecond):
		go func() {
			select {
			case <-closed:
			case <-time.After(5 * time.Second):
				s.b.hung.Store(true)
			}
		}()
	}
	s.sess.close()
}
