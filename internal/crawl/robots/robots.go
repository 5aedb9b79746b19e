// Package robots fetches, caches and applies robots.txt: rules per origin
// are cached in Redis (shared by every crawler process) with a TTL, parsed
// by github.com/temoto/robotstxt, and give the allow decision, the
// Crawl-delay and the Sitemap: lines.
package robots

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/temoto/robotstxt"
	"golang.org/x/sync/singleflight"

	"github.com/newscrawl/newscrawl/internal/crawl/fetch"
)

// Defaults for Config fields left zero.
const (
	DefaultTTL        = 24 * time.Hour
	DefaultMaxBody    = 512 << 10 // RFC 9309: parse at least the first 500 KiB
	DefaultLocalTTL   = time.Minute
	DefaultLocalHosts = 4096
)

// ErrUnavailable wraps a robots.txt that could not be read (5xx, network):
// the page must wait, not be fetched without knowing the rules.
var ErrUnavailable = errors.New("robots.txt unavailable")

// Config describes a Cache.
type Config struct {
	Prefix     string        // Redis key prefix (STREAM_PREFIX)
	UserAgent  string        // full User-Agent; its product token selects the group
	TTL        time.Duration // how long a fetched robots.txt is trusted
	LocalTTL   time.Duration // how long a parsed copy stays in process memory
	LocalHosts int           // bound on the in-process copies
	// BeforeSend, when set, runs when robots.txt is about to be requested
	// from host (the politeness turn), as fetch.Request.BeforeSend: its error
	// aborts the fetch, its done func runs at the answer's first byte.
	BeforeSend func(ctx context.Context, host string) (done func(), err error)
	Logger     *slog.Logger
}

// Rules are one origin's robots.txt as it applies to our user agent.
type Rules struct {
	data       *robotstxt.RobotsData
	agent      string
	CrawlDelay time.Duration
	Sitemaps   []string
	Fetched    bool // read from the site by this call (not from a cache)
}

// Allowed reports whether pathQuery (path plus "?query") may be fetched.
func (r *Rules) Allowed(pathQuery string) bool { return r.data.TestAgent(pathQuery, r.agent) }

// A Cache answers robots questions, fetching robots.txt when needed.
type Cache struct {
	cfg     Config
	rdb     redis.UniversalClient
	fetcher *fetch.Fetcher
	agent   string
	group   singleflight.Group

	mu    sync.Mutex
	local map[string]localEntry
}

type localEntry struct {
	rules   *Rules
	expires time.Time
}

// New returns a Cache using fetcher for downloads.
func New(rdb redis.UniversalClient, fetcher *fetch.Fetcher, cfg Config) *Cache {
	if cfg.TTL <= 0 {
		cfg.TTL = DefaultTTL
	}
	if cfg.LocalTTL <= 0 {
		cfg.LocalTTL = DefaultLocalTTL
	}
	if cfg.LocalHosts <= 0 {
		cfg.LocalHosts = DefaultLocalHosts
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Cache{cfg: cfg, rdb: rdb, fetcher: fetcher, agent: ProductToken(cfg.UserAgent), local: map[string]localEntry{}}
}

// ProductToken is the robots.txt name of a User-Agent: its first word
// without the version ("NewsCrawlBot/0.1 (+url)" → "newscrawlbot").
func ProductToken(ua string) string {
	tok, _, _ := strings.Cut(strings.TrimSpace(ua), " ")
	tok, _, _ = strings.Cut(tok, "/")
	return strings.ToLower(tok)
}

// Key is the Redis key caching origin's robots.txt.
func (c *Cache) Key(origin string) string { return c.cfg.Prefix + ":crawl:robots:" + origin }

// Get returns the rules of origin ("https://host[:port]"). A 4xx
// robots.txt allows everything; a 5xx or network failure returns an error
// wrapping ErrUnavailable (not cached); ctx's end returns its error.
func (c *Cache) Get(ctx context.Context, origin string) (*Rules, error) {
	if r := c.fromLocal(origin); r != nil {
		return r, nil
	}
	v, err, _ := c.group.Do(origin, func() (any, error) { return c.load(ctx, origin) })
	if err != nil {
		return nil, err
	}
	r := v.(*Rules)
	c.toLocal(origin, r)
	return r, nil
}

func (c *Cache) load(ctx context.Context, origin string) (*Rules, error) {
	raw, err := c.rdb.Get(ctx, c.Key(origin)).Result()
	if err == nil {
		status, body, _ := strings.Cut(raw, "\n")
		code, _ := strconv.Atoi(status)
		return c.parse(origin, code, []byte(body), false), nil
	}
	if !errors.Is(err, redis.Nil) {
		return nil, fmt.Errorf("read cached robots.txt of %s: %w", origin, err)
	}
	code, body, err := c.download(ctx, origin)
	if err != nil {
		return nil, err
	}
	if err := c.rdb.Set(ctx, c.Key(origin), strconv.Itoa(code)+"\n"+string(body), c.cfg.TTL).Err(); err != nil {
		c.cfg.Logger.Warn("cache robots.txt", "origin", origin, "err", err)
	}
	return c.parse(origin, code, body, true), nil
}

func (c *Cache) download(ctx context.Context, origin string) (int, []byte, error) {
	host := strings.TrimPrefix(strings.TrimPrefix(origin, "https://"), "http://")
	req := fetch.Request{URL: origin + "/robots.txt", MaxBody: DefaultMaxBody, Prefix: true}
	if c.cfg.BeforeSend != nil {
		req.BeforeSend = func(ctx context.Context) (func(), error) { return c.cfg.BeforeSend(ctx, host) }
	}
	// A larger file is read up to the limit and what was read applies
	// (RFC 9309 §2.5): its rules are not dropped for its size.
	resp, err := c.fetcher.Fetch(ctx, req)
	switch {
	case errors.Is(err, fetch.ErrBlocked):
		return 0, nil, err
	case err != nil:
		return 0, nil, fmt.Errorf("%w: %s: %w", ErrUnavailable, origin, err)
	case resp.Status >= 500 || resp.Status == http.StatusTooManyRequests:
		return 0, nil, fmt.Errorf("%w: %s answered %d", ErrUnavailable, origin, resp.Status)
	case resp.Status >= 400, resp.Status < 200 || resp.Status > 299:
		return resp.Status, nil, nil
	}
	body := resp.Body
	if len(body) == DefaultMaxBody {
		// Cut at the last whole line: a rule cut in half must not apply.
		if i := bytes.LastIndexByte(body, '\n'); i >= 0 {
			body = body[:i+1]
		}
	}
	return resp.Status, body, nil
}

func (c *Cache) parse(origin string, code int, body []byte, fetched bool) *Rules {
	data, err := robotstxt.FromStatusAndBytes(code, body)
	if err != nil {
		c.cfg.Logger.Warn("unparseable robots.txt; allowing all", "origin", origin, "err", err)
		data, _ = robotstxt.FromStatusAndBytes(http.StatusNotFound, nil)
	}
	r := &Rules{data: data, agent: c.agent, Sitemaps: data.Sitemaps, Fetched: fetched}
	if g := data.FindGroup(c.agent); g != nil {
		r.CrawlDelay = g.CrawlDelay
	}
	return r
}

func (c *Cache) fromLocal(origin string) *Rules {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.local[origin]
	if !ok || time.Now().After(e.expires) {
		return nil
	}
	return e.rules
}

func (c *Cache) toLocal(origin string, r *Rules) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.local) >= c.cfg.LocalHosts {
		clear(c.local) // crude but bounded; Redis still holds every entry
	}
	cp := *r
	cp.Fetched = false
	c.local[origin] = localEntry{rules: &cp, expires: time.Now().Add(c.cfg.LocalTTL)}
}
