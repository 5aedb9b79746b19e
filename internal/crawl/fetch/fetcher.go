// Package fetch downloads one URL the way a polite, defensive crawler must:
// a real User-Agent, connect and read timeouts, HTTP/2, gzip/deflate/br
// decoding with a cap on the decoded size, a body size limit, a
// content-type filter, bounded redirects with loop detection, conditional
// GET, and an SSRF guard on every dialled address.
package fetch

import (
	"context"
	"errors"
	"fmt"
	"mime"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/netip"
	"strings"
	"sync"
	"time"
)

// Defaults for Config fields left zero.
const (
	DefaultUserAgent             = "NewsCrawlBot/0.1 (+https://github.com/newscrawl/newscrawl)"
	DefaultMaxBody               = 10 << 20
	DefaultConnectTimeout        = 10 * time.Second
	DefaultResponseHeaderTimeout = 15 * time.Second
	DefaultTimeout               = 30 * time.Second
	DefaultMaxRedirects          = 5
)

// Accept is the Accept header sent with every request.
const Accept = "text/html,application/xhtml+xml,application/rss+xml,application/atom+xml," +
	"application/xml;q=0.9,text/xml;q=0.9,*/*;q=0.5"

// Config describes a Fetcher.
type Config struct {
	UserAgent             string
	MaxBody               int64         // largest body accepted, after decoding
	ConnectTimeout        time.Duration // TCP connect (and TLS handshake) limit
	ResponseHeaderTimeout time.Duration // time to the response headers
	Timeout               time.Duration // whole request including the body
	MaxRedirects          int
	AllowPrivate          bool           // permit loopback/private/link-local targets (tests, local demo)
	AllowCIDRs            []netip.Prefix // non-public ranges permitted even when AllowPrivate is off
	Budget                *Budget        // bytes of bodies held at once, shared by the process (nil: unbounded)
}

func (c *Config) setDefaults() {
	if c.UserAgent == "" {
		c.UserAgent = DefaultUserAgent
	}
	if c.MaxBody <= 0 {
		c.MaxBody = DefaultMaxBody
	}
	if c.ConnectTimeout <= 0 {
		c.ConnectTimeout = DefaultConnectTimeout
	}
	if c.ResponseHeaderTimeout <= 0 {
		c.ResponseHeaderTimeout = DefaultResponseHeaderTimeout
	}
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	if c.MaxRedirects <= 0 {
		c.MaxRedirects = DefaultMaxRedirects
	}
}

// A Request is one URL to fetch with the validators of the previous fetch.
type Request struct {
	URL          string
	ETag         string
	LastModified string
	MaxBody      int64 // overrides Config.MaxBody when > 0 (robots.txt)
	// Prefix takes the first MaxBody bytes of a larger body instead of
	// failing with ErrTooLarge (robots.txt: RFC 9309 parses the first 500 KiB).
	Prefix bool
	// Follow, when set, is asked before each redirect is followed; false
	// stops there and the 3xx is returned, with RedirectTo set (a target
	// the caller already knows need not be fetched again).
	Follow func(target string) bool
	// BeforeSend, when set, is called before the request is sent, outside
	// the fetch's timeout (politeness waits for the host's turn here). Its
	// error aborts the fetch and is returned; the done func it returns is
	// called once, when the first byte of the answer has come or the fetch
	// ends without one.
	BeforeSend func(ctx context.Context) (done func(), err error)
}

type followKey struct{}

// A Response is what came back. Body is set only for a 2xx answer whose
// content type passed the filter (Accepted); it has Content-Encoding
// removed and a gzip'd file unwrapped, but its charset untouched.
type Response struct {
	URL         string // requested
	FinalURL    string // after redirects
	Redirects   int
	RedirectTo  string // the target a Follow hook declined, absolute
	Status      int
	Header      http.Header
	ContentType string // the Content-Type header as sent
	MediaType   string // its lower-cased media type, "" when absent
	Accepted    bool
	Body        []byte
	// What a web archive keeps of the exchange: when the (last) request
	// was sent, its headers, the address dialled and the protocol spoken.
	Sent          time.Time
	RequestHeader http.Header
	IP            string
	Proto         string
	hold          *hold // the body's share of the memory budget
}

// Release returns the body's share of the memory budget; call it once the
// body has been stored or dropped (it is returned anyway when the body is
// garbage collected). Safe to call more than once, and on any response.
func (r *Response) Release() {
	if r != nil {
		r.hold.release()
	}
}

// NotModified reports a 304 answer to a conditional GET.
func (r *Response) NotModified() bool { return r.Status == http.StatusNotModified }

// A Fetcher downloads pages; it is safe for concurrent use.
type Fetcher struct {
	cfg    Config
	client *http.Client
	dialer *net.Dialer
}

// New builds a Fetcher with its own transport.
func New(cfg Config) *Fetcher {
	cfg.setDefaults()
	dialer := &net.Dialer{Timeout: cfg.ConnectTimeout, KeepAlive: 30 * time.Second,
		Control: dialControl(cfg.AllowPrivate, cfg.AllowCIDRs)}
	tr := &http.Transport{
		Proxy:                 nil, // a proxy would hide the dialled address from the SSRF guard
		DialContext:           dialer.DialContext,
		ForceAttemptHTTP2:     true,
		TLSHandshakeTimeout:   cfg.ConnectTimeout,
		ResponseHeaderTimeout: cfg.ResponseHeaderTimeout,
		DisableCompression:    true, // we decode ourselves, with a size cap
		MaxIdleConns:          256,
		MaxIdleConnsPerHost:   4,
		IdleConnTimeout:       90 * time.Second,
	}
	f := &Fetcher{cfg: cfg, dialer: dialer}
	f.client = &http.Client{Transport: tr, CheckRedirect: f.checkRedirect}
	return f
}

// Client is the fetcher's HTTP client, for downloads that are not page
// fetches (a web archive): the same SSRF guard on every address dialled,
// the same redirect limit, no body cap and no whole-request timeout.
func (f *Fetcher) Client() *http.Client { return f.client }

// DialContext dials through the fetcher's SSRF guard, judged on the address
// actually dialled (after DNS), as every fetch is: for a proxy of our own
// (the renderer's) that must reach nothing a fetch could not.
func (f *Fetcher) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	return f.dialer.DialContext(ctx, network, addr)
}

// Config returns the fetcher's configuration with defaults applied.
func (f *Fetcher) Config() Config { return f.cfg }

func (f *Fetcher) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > f.cfg.MaxRedirects {
		return fmt.Errorf("%w (%d) at %s", ErrTooManyRedirects, f.cfg.MaxRedirects, req.URL)
	}
	next := req.URL.String()
	for _, v := range via {
		if v.URL.String() == next {
			return fmt.Errorf("%w: %s", ErrRedirectLoop, next)
		}
	}
	if follow, ok := req.Context().Value(followKey{}).(func(string) bool); ok && !follow(next) {
		return http.ErrUseLastResponse
	}
	return nil
}

// Fetch sends one GET. Non-2xx answers are returned as a Response without
// a body, not as an error. Errors: ErrBlocked (SSRF guard), ErrTooLarge,
// ErrTooManyRedirects, ErrRedirectLoop (all wrapped; test with errors.Is),
// timeouts (IsTimeout), DNS failures (IsDNS) and other connection errors.
func (f *Fetcher) Fetch(ctx context.Context, r Request) (*Response, error) {
	// The host's turn is awaited before the fetch's own time starts: waiting
	// for it is not the host being slow.
	if r.BeforeSend != nil {
		done, err := r.BeforeSend(ctx)
		if done != nil {
			var once sync.Once
			answered := func() { once.Do(done) }
			defer answered()
			ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{GotFirstResponseByte: answered})
		}
		if err != nil {
			return nil, err
		}
	}
	ctx, cancel := context.WithTimeout(ctx, f.cfg.Timeout)
	defer cancel()
	if r.Follow != nil {
		ctx = context.WithValue(ctx, followKey{}, r.Follow)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, r.URL, nil)
	if err != nil {
		return nil, fmt.Errorf("build request for %s: %w", r.URL, err)
	}
	var ip string
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{GotConn: func(ci httptrace.GotConnInfo) {
		if a, ok := ci.Conn.RemoteAddr().(*net.TCPAddr); ok {
			ip = a.IP.String()
		}
	}})
	req = req.WithContext(ctx)
	req.Header.Set("User-Agent", f.cfg.UserAgent)
	req.Header.Set("Accept", Accept)
	req.Header.Set("Accept-Encoding", "gzip, deflate, br")
	if r.ETag != "" {
		req.Header.Set("If-None-Match", r.ETag)
	}
	if r.LastModified != "" {
		req.Header.Set("If-Modified-Since", r.LastModified)
	}
	sent := time.Now()
	resp, err := f.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("get %s: %w", r.URL, err)
	}
	defer resp.Body.Close()

	out := &Response{URL: r.URL, FinalURL: resp.Request.URL.String(), Status: resp.StatusCode,
		Header: resp.Header, ContentType: resp.Header.Get("Content-Type"), Sent: sent,
		RequestHeader: resp.Request.Header, IP: ip, Proto: resp.Proto}
	for p := resp.Request; p != nil && p.Response != nil; p = p.Response.Request {
		out.Redirects++
	}
	if mt, _, err := mime.ParseMediaType(out.ContentType); err == nil {
		out.MediaType = strings.ToLower(mt)
	}
	if resp.StatusCode >= 300 && resp.StatusCode <= 399 && r.Follow != nil {
		if loc, err := resp.Location(); err == nil {
			out.RedirectTo = loc.String()
		}
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return out, nil
	}
	if !Acceptable(out.MediaType) {
		return out, nil
	}
	limit := f.cfg.MaxBody
	if r.MaxBody > 0 {
		limit = r.MaxBody
	}
	if resp.ContentLength > limit && !r.Prefix {
		return out, fmt.Errorf("get %s: %w (Content-Length %d > %d)", r.URL, ErrTooLarge, resp.ContentLength, limit)
	}
	decode := decodeBody
	if r.Prefix {
		decode = decodePrefix
	}
	var reserved int64
	if f.cfg.Budget != nil {
		if reserved, err = f.cfg.Budget.acquire(ctx, reservation(resp, limit)); err != nil {
			return out, err
		}
	}
	body, err := decode(resp.Body, resp.Header.Get("Content-Encoding"), limit)
	if f.cfg.Budget != nil {
		if err != nil {
			f.cfg.Budget.release(reserved)
		} else {
			out.hold = f.cfg.Budget.keep(reserved, body)
		}
	}
	if err != nil {
		if errors.Is(err, ErrTooLarge) {
			return out, fmt.Errorf("get %s: %w", r.URL, err)
		}
		return out, fmt.Errorf("read body of %s: %w", r.URL, err)
	}
	out.Accepted = true
	out.Body = body
	return out, nil
}

// Acceptable reports whether a media type may hold a page, a feed or a
// sitemap; "" (absent) and generic binary types are accepted for sniffing.
func Acceptable(mediaType string) bool {
	switch mediaType {
	case "", "text/html", "application/xhtml+xml", "application/rss+xml", "application/atom+xml",
		"application/rdf+xml", "application/xml", "text/xml", "application/feed+xml",
		"application/gzip", "application/x-gzip", "application/octet-stream", "text/plain":
		return true
	}
	return false
}

// reservation is what reading a body may take: its length when it comes
// uncompressed with one, else the limit (a compressed body decodes to an
// unknown size, a chunked one has none).
func reservation(resp *http.Response, limit int64) int64 {
	enc := strings.TrimSpace(resp.Header.Get("Content-Encoding"))
	if resp.ContentLength >= 0 && (enc == "" || strings.EqualFold(enc, "identity")) {
		return min(resp.ContentLength+1, limit+1)
	}
	return limit + 1
}
