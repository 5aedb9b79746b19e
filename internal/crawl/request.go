package crawl

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"golang.org/x/net/publicsuffix"

	"github.com/newscrawl/newscrawl/internal/crawl/urlnorm"
	"github.com/newscrawl/newscrawl/internal/pipeline"
	"github.com/newscrawl/newscrawl/pkg/streamkit"
)

// Fields of a crawl request (the crawl stream's messages). Only url is
// required; the rest default from the crawler's Config.
const (
	FieldURL      = pipeline.FieldURL
	FieldDepth    = "depth"     // links followed from the seed so far
	FieldMaxDepth = "max_depth" // deepest link depth to follow
	FieldHosts    = "hosts"     // comma-separated allowed hosts (a host allows its subdomains; "*" any)
	FieldRecrawl  = "recrawl"   // Go duration: how often a hub is fetched again ("0" never)
	FieldSeed     = "seed"      // "1" for a seed
	FieldHint     = "hint"      // "feed" or "sitemap" when the link said so (the response decides)
	FieldNonce    = "nonce"     // makes the idempotency key: a new nonce is a new fetch
	FieldFrom     = "from"      // the URL the link was found on
	FieldHubs     = "hubs"      // feeds and sitemaps followed in a row to reach this request
)

// Error types of dead-lettered crawl requests.
const (
	ErrTypeBadURL      = "bad_url"
	ErrTypeSSRF        = "ssrf_blocked"
	ErrTypeTimeout     = "fetch_timeout"
	ErrTypeDNS         = "dns"
	ErrTypeConnection  = "connection"
	ErrTypeServer      = "http_5xx"
	ErrTypeRateLimited = "http_429"
	ErrTypeRobots      = "robots_unavailable"
	ErrTypeStore       = "store"
)

// ErrorTypes lists the crawler's error types, for counters that exist at
// zero from the start.
var ErrorTypes = []string{ErrTypeBadURL, ErrTypeSSRF, ErrTypeTimeout, ErrTypeDNS, ErrTypeConnection,
	ErrTypeServer, ErrTypeRateLimited, ErrTypeRobots, ErrTypeStore}

// A request is one parsed crawl message.
type request struct {
	URL      string   // normalized
	u        *url.URL // parsed URL
	DocID    string
	Host     string // host[:port]: the politeness and robots unit
	Depth    int
	MaxDepth int
	Hosts    []string
	Recrawl  time.Duration // <= 0: never
	Seed     bool
	Hint     string
	Hubs     int // hubs in a row that led here
	Nonce    string
	From     string
}

// Key is the crawler's streamkit.KeyFunc: crawl:<doc_id>:<nonce>. A
// redelivered request has the same key (absorbed by the ledger); a recrawl
// or a new seeding carries a new nonce. Messages without a nonce fall back
// to their entry id; an unparseable URL still gets a key, so the handler
// can dead-letter it as bad_url.
func Key(stage, version string, m *streamkit.Message) (string, error) {
	raw, err := m.Require(FieldURL)
	if err != nil {
		return "", err
	}
	doc := "bad-" + pipeline.DocID(raw)
	if n, err := urlnorm.Normalize(raw); err == nil {
		doc = pipeline.DocID(n)
	}
	nonce := m.Get(FieldNonce)
	if nonce == "" {
		nonce = m.ID
	}
	k := stage + ":" + doc + ":" + nonce
	if version != "" {
		k += ":" + version
	}
	return k, nil
}

// LedgerKey is the idempotency key Key gives a request for rawURL with nonce.
func LedgerKey(rawURL, nonce string) string {
	return pipeline.Crawl + ":" + pipeline.DocID(NormalizedURL(rawURL)) + ":" + nonce
}

// NormalizedURL is rawURL as the frontier stores it; a URL that does not
// normalize is returned as it is.
func NormalizedURL(rawURL string) string {
	if n, err := urlnorm.Normalize(rawURL); err == nil {
		return n
	}
	return rawURL
}

// parseRequest reads a message; a bad URL or field is a Permanent error.
func parseRequest(m *streamkit.Message, cfg *Config) (*request, error) {
	raw, err := m.Require(FieldURL)
	if err != nil {
		return nil, err
	}
	u, err := urlnorm.Parse(raw)
	if err != nil {
		return nil, streamkit.Permanent(ErrTypeBadURL, fmt.Errorf("crawl request %s: %w", m.ID, err))
	}
	r := &request{URL: u.String(), u: u, Host: u.Host, MaxDepth: cfg.MaxDepth, Recrawl: cfg.RecrawlInterval,
		Seed: m.Get(FieldSeed) == "1", Hint: m.Get(FieldHint), Nonce: m.Get(FieldNonce), From: m.Get(FieldFrom)}
	r.DocID = pipeline.DocID(r.URL)
	bad := func(field string, err error) error {
		return streamkit.Permanent(streamkit.ErrorTypeBadMessage, fmt.Errorf("crawl request %s: field %s: %w", m.ID, field, err))
	}
	if v := m.Get(FieldDepth); v != "" {
		if r.Depth, err = strconv.Atoi(v); err != nil || r.Depth < 0 {
			return nil, bad(FieldDepth, fmt.Errorf("not a depth: %q", v))
		}
	}
	if v := m.Get(FieldHubs); v != "" {
		if r.Hubs, err = strconv.Atoi(v); err != nil || r.Hubs < 0 {
			return nil, bad(FieldHubs, fmt.Errorf("not a count: %q", v))
		}
	}
	if v := m.Get(FieldMaxDepth); v != "" {
		if r.MaxDepth, err = strconv.Atoi(v); err != nil || r.MaxDepth < 0 {
			return nil, bad(FieldMaxDepth, fmt.Errorf("not a depth: %q", v))
		}
	}
	if v := m.Get(FieldRecrawl); v != "" {
		if r.Recrawl, err = time.ParseDuration(v); err != nil {
			return nil, bad(FieldRecrawl, err)
		}
	}
	r.Hosts = SplitHosts(m.Get(FieldHosts))
	if len(r.Hosts) == 0 {
		r.Hosts = []string{DefaultHost(u.Hostname())}
	}
	return r, nil
}

// SplitHosts parses a comma-separated host list, lower-cased, without
// empties or ports.
func SplitHosts(s string) []string {
	var out []string
	for _, h := range strings.Split(s, ",") {
		h = strings.ToLower(strings.TrimSpace(h))
		if i := strings.LastIndexByte(h, ':'); i >= 0 && !strings.Contains(h[i:], "]") && strings.Count(h, ":") == 1 {
			h = h[:i]
		}
		h = strings.TrimSuffix(h, ".")
		if h != "" {
			out = append(out, h)
		}
	}
	return out
}

// DefaultHost is the allowed host of a seed that names none: its
// registrable domain (news.bbc.co.uk → bbc.co.uk), or the host itself for
// IP addresses and single-label names.
func DefaultHost(hostname string) string {
	hostname = strings.ToLower(strings.TrimSuffix(hostname, "."))
	if d, err := publicsuffix.EffectiveTLDPlusOne(hostname); err == nil {
		return d
	}
	return hostname
}

// HostAllowed reports whether hostname is one of hosts or a subdomain of one.
func HostAllowed(hostname string, hosts []string) bool {
	hostname = strings.ToLower(hostname)
	for _, h := range hosts {
		if h == "*" || hostname == h || strings.HasSuffix(hostname, "."+h) {
			return true
		}
	}
	return false
}

// NewNonce returns a random request nonce.
func NewNonce() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// LinkNonce is the nonce of the request for a link first discovered on
// page from: derived from both, so that republishing the frontier (newsctl
// reconcile) makes the same idempotency key as the crawler's own request.
func LinkNonce(from, link string) string {
	sum := sha256.Sum256([]byte(from + "\x00" + link))
	return "l" + hex.EncodeToString(sum[:8])
}

// RequestFields builds a crawl request's fields; zero values are left out
// (so the crawler's defaults apply), except depth. The doc_id places the
// request on its partition of a partitioned crawl stage; rawURL is the
// frontier's (normalized) form, so it is not normalized again here, on the
// path of every link queued (the crawler's Key derives its own).
func RequestFields(rawURL string, depth, maxDepth int, hosts []string, recrawl *time.Duration, seed bool, hint, nonce, from string) map[string]string {
	f := map[string]string{FieldURL: rawURL, FieldDepth: strconv.Itoa(depth), FieldNonce: nonce,
		pipeline.FieldDocID: pipeline.DocID(rawURL)}
	if maxDepth > 0 {
		f[FieldMaxDepth] = strconv.Itoa(maxDepth)
	}
	if len(hosts) > 0 {
		f[FieldHosts] = strings.Join(hosts, ",")
	}
	if recrawl != nil {
		f[FieldRecrawl] = recrawl.String()
	}
	if seed {
		f[FieldSeed] = "1"
	}
	if hint != "" {
		f[FieldHint] = hint
	}
	if from != "" {
		f[FieldFrom] = from
	}
	return f
}
