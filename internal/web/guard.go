package web

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"math"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/newscrawl/newscrawl/internal/search"
)

// Access levels of a route.
type level int

const (
	public   level = iota // search and document pages: open unless a token guards all
	operator              // pipeline page and stats: open on loopback, else the token
	change                // replay, purge: always the token, and same-origin
)

const sessionCookie = "newscrawl_session"

// access decides who may reach what, from how serve was started.
type access struct {
	token    string // SERVE_TOKEN; "" disables every change
	loopback bool   // serve listens on loopback only
	readOnly bool   // SERVE_PUBLIC_READONLY: public pages open off loopback
}

// session is the cookie value a login sets: derived from the token, so a
// new token ends every session, and the token itself never sits in a cookie.
func (a access) session() string {
	m := hmac.New(sha256.New, []byte(a.token))
	m.Write([]byte("newscrawl web session"))
	return hex.EncodeToString(m.Sum(nil))
}

// authenticated reports whether r carries the token (bearer) or a session.
func (a access) authenticated(r *http.Request) bool {
	if a.token == "" {
		return false
	}
	if h, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		return a.tokenIs(h)
	}
	if c, err := r.Cookie(sessionCookie); err == nil {
		return subtle.ConstantTimeCompare([]byte(c.Value), []byte(a.session())) == 1
	}
	return false
}

// tokenIs reports whether s is the configured token (never when none is).
func (a access) tokenIs(s string) bool {
	return a.token != "" && subtle.ConstantTimeCompare([]byte(s), []byte(a.token)) == 1
}

// allowed reports whether r may reach a route of level l.
func (a access) allowed(r *http.Request, l level) bool {
	switch {
	case a.authenticated(r):
		return true
	case l == change:
		return false
	case a.loopback:
		return true
	default:
		return l == public && a.readOnly
	}
}

// guard wraps h with the access check of level l: a browser is sent to the
// login form, an API client gets 401.
func (s *Server) guard(l level, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if s.access.allowed(r, l) {
			h(w, r)
			return
		}
		if s.access.token == "" {
			s.deny(w, r, http.StatusForbidden, "this needs SERVE_TOKEN, and serve was started without one")
			return
		}
		if r.Method == http.MethodGet && !strings.HasPrefix(r.URL.Path, "/api/") {
			http.Redirect(w, r, "/login?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
			return
		}
		w.Header().Set("WWW-Authenticate", `Bearer realm="newscrawl"`)
		s.deny(w, r, http.StatusUnauthorized, "this needs the token: Authorization: Bearer <SERVE_TOKEN>, or log in at /login")
	}
}

// securityHeaders are on every answer: no inline script, no framing, no sniffing.
// validParams answers 400 to a request whose query parameters are not valid
// UTF-8 or hold a NUL, on every route: JSON under /api/, text elsewhere.
func validParams(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q, err := url.ParseQuery(r.URL.RawQuery)
		if err == nil {
			err = search.CheckParams(q)
		}
		if err != nil {
			if strings.HasPrefix(r.URL.Path, "/api/") {
				search.WriteJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
			} else {
				http.Error(w, err.Error(), http.StatusBadRequest)
			}
			return
		}
		h.ServeHTTP(w, r)
	})
}

func securityHeaders(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		hd.Set("Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "+
			"object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
		hd.Set("X-Content-Type-Options", "nosniff")
		hd.Set("X-Frame-Options", "DENY")
		hd.Set("Referrer-Policy", "same-origin")
		h.ServeHTTP(w, r)
	})
}

// An admission bounds the searches in flight: a few run, a short queue
// waits, the rest are answered 503 at once with Retry-After, so a storm is
// answered quickly and memory stays bounded.
type admission struct {
	slots chan struct{}
	queue chan struct{}
	wait  time.Duration
}

func newAdmission(inFlight, queued int, wait time.Duration) *admission {
	return &admission{slots: make(chan struct{}, inFlight), queue: make(chan struct{}, queued), wait: wait}
}

// enter takes a slot, waiting at most a.wait in the queue; false when full.
func (a *admission) enter(r *http.Request) bool {
	select {
	case a.slots <- struct{}{}:
		return true
	default:
	}
	select {
	case a.queue <- struct{}{}:
	default:
		return false
	}
	defer func() { <-a.queue }()
	t := time.NewTimer(a.wait)
	defer t.Stop()
	select {
	case a.slots <- struct{}{}:
		return true
	case <-t.C:
		return false
	case <-r.Context().Done():
		return false
	}
}

func (a *admission) leave() { <-a.slots }

// admit wraps h with the admission and the per-client rate limit.
func (s *Server) admit(h http.HandlerFunc) http.HandlerFunc { return s.admitBy(s.limits, h) }

// admitBy is admit with the per-client limits of limits.
func (s *Server) admitBy(limits *clientLimits, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !limits.allow(r) {
			s.metrics.rejected.WithLabelValues("rate_limit").Inc()
			w.Header().Set("Retry-After", strconv.Itoa(limits.retryAfter()))
			s.deny(w, r, http.StatusTooManyRequests, "too many requests from this address; retry in "+strconv.Itoa(limits.retryAfter())+" s")
			return
		}
		if !s.admission.enter(r) {
			s.metrics.rejected.WithLabelValues("busy").Inc()
			w.Header().Set("Retry-After", "1")
			s.deny(w, r, http.StatusServiceUnavailable, "the server is busy; retry in a second")
			return
		}
		defer s.admission.leave()
		h(w, r)
	}
}

// clientLimits is a token bucket per client address; loopback is exempt
// unless told otherwise (a benchmark on loopback turns the limit off).
type clientLimits struct {
	perSecond rate.Limit
	burst     int
	loopback  bool // limit loopback clients too

	mu      sync.Mutex
	clients map[string]*client
	swept   time.Time
}

type client struct {
	lim  *rate.Limiter
	seen time.Time
}

// retryAfter is the whole seconds until a client's next token.
func (c *clientLimits) retryAfter() int {
	if c == nil || c.perSecond <= 0 {
		return 1
	}
	return max(1, int(math.Ceil(1/float64(c.perSecond))))
}

func (c *clientLimits) allow(r *http.Request) bool {
	if c == nil || c.perSecond <= 0 {
		return true
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() && !c.loopback {
		return true
	}
	now := time.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.clients == nil {
		c.clients = map[string]*client{}
	}
	if now.Sub(c.swept) > time.Minute { // forget idle clients: the map stays small
		for k, v := range c.clients {
			if now.Sub(v.seen) > time.Minute {
				delete(c.clients, k)
			}
		}
		c.swept = now
	}
	cl := c.clients[host]
	if cl == nil {
		cl = &client{lim: rate.NewLimiter(c.perSecond, c.burst)}
		c.clients[host] = cl
	}
	cl.seen = now
	return cl.lim.Allow()
}
