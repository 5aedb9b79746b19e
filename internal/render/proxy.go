package render

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/newscrawl/newscrawl/internal/archive"
	"github.com/newscrawl/newscrawl/internal/crawl/fetch"
	"github.com/newscrawl/newscrawl/internal/crawl/politeness"
	"github.com/newscrawl/newscrawl/internal/crawl/robots"
)

// Why the proxy refused a request (Page.Refusals, the refused metric).
const (
	RefusedScope  = "scope"  // another host, not on the allow list
	RefusedScheme = "scheme" // not http(s) or ws(s)
	RefusedRobots = "robots" // robots.txt disallows the path, or could not be read
	RefusedGuard  = "guard"  // the SSRF guard refused the address dialled
	RefusedBytes  = "bytes"  // the render's byte cap is spent
)

// gate is what every session shares: how a request may leave the machine.
type gate struct {
	fetcher *fetch.Fetcher
	robots  *robots.Cache
	limiter *politeness.Limiter
	delay   time.Duration // the host delay (robots.txt's crawl-delay when longer)
	allow   map[string]bool
	archive *archive.Writer // nil: the browser's fetches are not archived
	log     *slog.Logger
}

// A session is one render's only route out of the browser: an HTTP proxy on
// loopback, set on the render's own browser context. Every request the page
// makes — the document, scripts, XHR and fetch, iframes, redirects (each hop
// is a request of its own), websockets and service workers (tunnelled with
// CONNECT) — comes here, where it is held to the crawler's rules: the page's
// own host (or an allowed one), robots.txt for its paths, the host's
// politeness turn, and the SSRF guard on the address actually dialled
// (Chromium hands the proxy host names, so DNS is resolved here, and a
// name that answers a private address is refused at dial).
type session struct {
	g       *gate
	maxByte int64
	srv     *http.Server
	ln      net.Listener

	bytes    atomic.Int64
	requests atomic.Int64
	refused  atomic.Int64
	waited   atomic.Int64 // nanoseconds spent waiting for the host's turn
	inflight atomic.Int64
	lastSeen atomic.Int64 // unix nanos of the last request start, end or tunnelled byte

	mu      sync.Mutex
	host    string          // the page's host (the render's, set by reset)
	origins map[string]bool // scheme://host[:port] of every request admitted since reset
	reasons map[string]int
	tunnels map[net.Conn]bool
	closed  bool
	// refusedURL: why each refused URL was refused (a render whose page
	// itself was refused fails rather than keep the proxy's answer).
	refusedURL map[string]string
}

func newSession(g *gate, maxBytes int64) (*session, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("render proxy: %w", err)
	}
	s := &session{g: g, maxByte: maxBytes, ln: ln, tunnels: map[net.Conn]bool{}}
	s.reset("")
	s.srv = &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second, ErrorLog: nil}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// URL is the proxy's address, for the browser context's proxyServer.
func (s *session) URL() string { return "http://" + s.ln.Addr().String() }

// reset starts a render of a page on host: the counts start again, the
// tunnels of the render before are cut, and the origins it reached are
// returned (their storage is to be cleared before another host's page).
func (s *session) reset(host string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.tunnels {
		c.Close()
	}
	var origins []string
	for o := range s.origins {
		origins = append(origins, o)
	}
	s.host, s.origins, s.reasons, s.refusedURL = host, map[string]bool{}, map[string]int{}, map[string]string{}
	s.bytes.Store(0)
	s.requests.Store(0)
	s.refused.Store(0)
	s.waited.Store(0)
	s.touch()
	return origins
}

// close stops the proxy and cuts its tunnels.
func (s *session) close() {
	s.mu.Lock()
	s.closed = true
	for c := range s.tunnels {
		c.Close()
	}
	s.mu.Unlock()
	_ = s.srv.Close()
}

func (s *session) touch() { s.lastSeen.Store(time.Now().UnixNano()) }

// idleFor is how long no request has been in flight and nothing moved.
func (s *session) idleFor() time.Duration {
	if s.inflight.Load() > 0 {
		return 0
	}
	return time.Since(time.Unix(0, s.lastSeen.Load()))
}

func (s *session) refuse(w http.ResponseWriter, u *url.URL, reason string, detail error) {
	s.refused.Add(1)
	s.mu.Lock()
	s.reasons[reason]++
	if s.refusedURL[u.String()] == "" {
		s.refusedURL[u.String()] = reason
	}
	page := s.host
	s.mu.Unlock()
	s.g.log.Debug("render proxy refused a request", "page_host", page, "url", u.String(), "reason", reason, "err", detail)
	http.Error(w, "refused by NewsCrawl's renderer: "+reason, http.StatusForbidden)
}

// refusedAs says why the proxy refused u, "" when it did not.
func (s *session) refusedAs(u string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.refusedURL[u]
}

// Refusals counts the refused requests by reason.
func (s *session) refusals() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]int, len(s.reasons))
	for k, v := range s.reasons {
		out[k] = v
	}
	return out
}

func (s *session) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.requests.Add(1)
	s.inflight.Add(1)
	s.touch()
	defer func() { s.inflight.Add(-1); s.touch() }()
	if r.Method == http.MethodConnect {
		s.tunnel(w, r)
		return
	}
	s.forward(w, r)
}

// admit applies the rules that need no dial: the scheme, the host's scope,
// robots.txt on the page's own host. It returns the reason to refuse, or
// "", and the host delay to keep.
func (s *session) admit(ctx context.Context, u *url.URL) (string, time.Duration, error) {
	switch u.Scheme {
	case "http", "https", "ws", "wss":
	default:
		return RefusedScheme, 0, nil
	}
	host := strings.ToLower(u.Hostname())
	s.mu.Lock()
	own := host == s.host
	s.mu.Unlock()
	if !own && !s.g.allow[host] {
		return RefusedScope, 0, nil
	}
	if s.bytes.Load() >= s.maxByte {
		return RefusedBytes, 0, nil
	}
	scheme := u.Scheme
	switch scheme {
	case "ws":
		scheme = "http"
	case "wss":
		scheme = "https"
	}
	// The origin as the crawler names it (no default port): one robots.txt
	// cache entry for both, and the origin the browser's storage is kept by.
	origin := scheme + "://" + hostKey(&url.URL{Scheme: scheme, Host: u.Host})
	rules, err := s.g.robots.Get(ctx, origin)
	if err != nil {
		return RefusedRobots, 0, err
	}
	if u.Path != "" && !rules.Allowed(u.RequestURI()) {
		return RefusedRobots, 0, nil
	}
	s.mu.Lock()
	s.origins[origin] = true
	s.mu.Unlock()
	return "", max(s.g.delay, rules.CrawlDelay), nil
}

// hostKey is u's politeness unit as the crawler names it: host[:port], the
// scheme's default port left out (a CONNECT names it always).
func hostKey(u *url.URL) string {
	host, port := strings.ToLower(u.Hostname()), u.Port()
	switch {
	case port == "", port == "443" && (u.Scheme == "https" || u.Scheme == "wss"), port == "80" && (u.Scheme == "http" || u.Scheme == "ws"):
		return host
	}
	return net.JoinHostPort(host, port)
}

// turn waits for the host's politeness turn, outside the render's deadline
// (the time waited is added to it), and returns the func that ends the turn.
func (s *session) turn(ctx context.Context, host string, delay time.Duration) (func(), error) {
	start := time.Now()
	defer func() { s.waited.Add(int64(time.Since(start))) }()
	for {
		res, err := s.g.limiter.Wait(ctx, host, delay)
		if wait, ok := politeness.IsTooLong(err); ok {
			t := time.NewTimer(min(wait, 5*time.Second))
			select {
			case <-ctx.Done():
				t.Stop()
				return nil, ctx.Err()
			case <-t.C:
			}
			continue
		}
		if err != nil {
			return nil, err
		}
		return res.Release, nil
	}
}

// forward sends a plain-HTTP request on and copies the answer back, whole
// and within the byte cap; with an archive, the exchange is written to it.
func (s *session) forward(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if !r.URL.IsAbs() {
		http.Error(w, "not a proxy request", http.StatusBadRequest)
		return
	}
	reason, delay, err := s.admit(ctx, r.URL)
	if reason != "" {
		s.refuse(w, r.URL, reason, err)
		return
	}
	out := r.Clone(ctx)
	out.RequestURI = ""
	for _, h := range []string{"Proxy-Connection", "Proxy-Authorization", "Connection", "Keep-Alive", "Te", "Trailer", "Upgrade"} {
		out.Header.Del(h)
	}
	// Asked for plainly, so the answer can be archived as it is decoded
	// and its bytes counted once (a server may still encode it).
	out.Header.Del("Accept-Encoding")
	release, err := s.turn(ctx, hostKey(r.URL), delay)
	if err != nil {
		http.Error(w, "render ended", http.StatusServiceUnavailable)
		return
	}
	sent := time.Now()
	var ip string
	out = out.WithContext(withDialled(ctx, &ip))
	resp, err := s.g.fetcher.Client().Transport.RoundTrip(out)
	release()
	if err != nil {
		if errors.Is(err, fetch.ErrBlocked) {
			s.refuse(w, r.URL, RefusedGuard, err)
			return
		}
		http.Error(w, "upstream: "+err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	left := s.maxByte - s.bytes.Load()
	body, err := io.ReadAll(io.LimitReader(resp.Body, max(left, 0)+1))
	s.bytes.Add(int64(len(body)))
	if int64(len(body)) > left {
		s.refuse(w, r.URL, RefusedBytes, fmt.Errorf("%s: more than the %d bytes left", r.URL, left))
		return
	}
	if err != nil {
		http.Error(w, "upstream: "+err.Error(), http.StatusBadGateway)
		return
	}
	s.archive(r, out, resp, body, sent, ip)
	for k, vs := range resp.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	w.WriteHeader(resp.StatusCode)
	_, _ = w.Write(body)
}

// archive writes the exchange to the WARC files, the body decoded.
func (s *session) archive(r *http.Request, out *http.Request, resp *http.Response, body []byte, sent time.Time, ip string) {
	if s.g.archive == nil {
		return
	}
	f := archive.Fetch{URL: r.URL.String(), Date: sent, IP: ip, RequestHeader: out.Header, Status: resp.StatusCode,
		Proto: resp.Proto, Header: resp.Header, Body: body}
	if enc := resp.Header.Get("Content-Encoding"); enc != "" && enc != "identity" {
		if dec, err := fetch.Decode(bytes.NewReader(body), enc, s.maxByte); err == nil {
			f.Body = dec
		} else {
			f.Body, f.Truncated = nil, "unspecified"
		}
	}
	if _, err := s.g.archive.Write(f); err != nil {
		s.g.log.Error("archive a rendered fetch", "url", f.URL, "err", err)
	}
}

// tunnel serves CONNECT (https, wss): the host is judged and its turn taken
// once per tunnel, the dial goes through the guard, and the bytes both ways
// count against the cap. What runs inside (TLS) is not seen, so robots.txt
// is judged on the host's root; paths inside a tunnel are not.
func (s *session) tunnel(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	u := &url.URL{Scheme: "https", Host: r.Host, Path: "/"}
	reason, delay, err := s.admit(ctx, u)
	if reason != "" {
		s.refuse(w, u, reason, err)
		return
	}
	release, err := s.turn(ctx, hostKey(u), delay)
	if err != nil {
		http.Error(w, "render ended", http.StatusServiceUnavailable)
		return
	}
	up, err := s.g.fetcher.DialContext(ctx, "tcp", r.Host)
	release()
	if err != nil {
		if errors.Is(err, fetch.ErrBlocked) {
			s.refuse(w, u, RefusedGuard, err)
			return
		}
		http.Error(w, "upstream: "+err.Error(), http.StatusBadGateway)
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		up.Close()
		http.Error(w, "no tunnel", http.StatusInternalServerError)
		return
	}
	down, buf, err := hj.Hijack()
	if err != nil {
		up.Close()
		return
	}
	if !s.track(up, down) {
		return
	}
	_, _ = down.Write([]byte("HTTP/1.1 200 Connection established\r\n\r\n"))
	s.inflight.Add(-1) // a held tunnel is not a request in flight: its bytes say it is busy
	defer s.inflight.Add(1)
	done := make(chan struct{}, 2)
	go s.pipe(up, buf.Reader, done)
	go s.pipe(down, up, done)
	<-done
	up.Close()
	down.Close()
	<-done
	s.untrack(up, down)
}

func (s *session) track(conns ...net.Conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		for _, c := range conns {
			c.Close()
		}
		return false
	}
	for _, c := range conns {
		s.tunnels[c] = true
	}
	return true
}

func (s *session) untrack(conns ...net.Conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range conns {
		delete(s.tunnels, c)
	}
}

// pipe copies src to dst, counting the bytes against the cap; past it the
// tunnel is cut.
func (s *session) pipe(dst io.Writer, src io.Reader, done chan<- struct{}) {
	defer func() { done <- struct{}{} }()
	b := make([]byte, 32<<10)
	for {
		n, err := src.Read(b)
		if n > 0 {
			s.touch()
			if s.bytes.Add(int64(n)) > s.maxByte {
				s.mu.Lock()
				s.reasons[RefusedBytes]++
				s.mu.Unlock()
				s.refused.Add(1)
				return
			}
			if _, werr := dst.Write(b[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// withDialled notes the address the transport dials into *ip (for the
// archive's WARC-IP-Address).
func withDialled(ctx context.Context, ip *string) context.Context {
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{GotConn: func(c httptrace.GotConnInfo) {
		if host, _, err := net.SplitHostPort(c.Conn.RemoteAddr().String()); err == nil {
			*ip = host
		}
	}})
}
