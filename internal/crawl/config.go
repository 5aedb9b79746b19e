// Package crawl is the crawler stage: it turns crawl requests from the
// crawl stream into fetched documents in Postgres and messages for the
// cleaner, discovering more URLs as it goes, politely and resumably.
package crawl

import (
	"log/slog"
	"net/netip"
	"time"

	"github.com/newscrawl/newscrawl/internal/crawl/fetch"
	"github.com/newscrawl/newscrawl/internal/crawl/politeness"
	"github.com/newscrawl/newscrawl/internal/crawl/robots"
	"github.com/newscrawl/newscrawl/pkg/streamkit"
)

// Defaults for Config fields left zero.
const (
	DefaultHostDelay       = time.Second
	DefaultMaxDepth        = 2
	DefaultMaxHubDepth     = 4 // robots.txt → sitemap index → sitemap → a nested one
	DefaultMaxURLsPerHost  = 1_000_000
	DefaultMaxHubsPerHost  = 5_000 // feeds, sitemaps and indexes discovered per host
	DefaultRecrawlInterval = time.Hour
	DefaultMaxWait         = politeness.DefaultMaxWait
	DefaultDeferAfter      = 50 * time.Millisecond
	DefaultMaxAhead        = time.Hour
	DefaultPromoteInterval = 10 * time.Millisecond
	DefaultMaxRetryAfter   = time.Hour
	DefaultSchedulePeriod  = 30 * time.Second
	DefaultScheduleBatch   = 500
	DefaultWindow          = 1000
	DefaultFeedInterval    = 200 * time.Millisecond
	// DefaultCommitLinger is how long the crawler's group commit waits to
	// fill a batch (streamkit's default is 2 ms). A polite crawl finishes
	// pages a few milliseconds apart and its transactions queue on one
	// advisory lock anyway, so at 2 ms each page paid a transaction of its
	// own; the wait costs a page 20 ms on its way to the cleaner, nothing
	// else (the host's turn is released at the answer, not the commit).
	DefaultCommitLinger = 20 * time.Millisecond
)

// Config describes the crawler stage. Zero fields take the defaults above
// or those of the fetch, robots and politeness packages.
type Config struct {
	Prefix string // Redis key prefix (STREAM_PREFIX)
	// Partitions are the stages' partition counts (<STAGE>_PARTITIONS): the
	// feeder publishes each request on its partition of the crawl stage.
	Partitions streamkit.Partitions
	UserAgent  string // sent with every request; its first word names us in robots.txt

	// HostDelay is the minimum gap between two requests to one host, across
	// every crawler process; robots.txt Crawl-delay raises it, never lowers
	// it. Zero is none (benchmarks only): unlike the other fields it has no
	// default here, the binary's CRAWL_HOST_DELAY carries it.
	HostDelay time.Duration
	MaxWait   time.Duration // longest wait for a host slot for a robots.txt fetch before the request is re-queued

	// DeferAfter: a page request whose host slot is further away than this
	// holds the slot and steps aside (streamkit.RetryAfter) until shortly
	// before it, so handlers never sit waiting on one host while other
	// hosts have work. MaxAhead caps how far ahead one request may hold a
	// slot; beyond it the request is re-queued without one.
	DeferAfter time.Duration
	MaxAhead   time.Duration
	// PromoteInterval is the period of the crawl consumer's retry promoter
	// (app.Worker.PromoteInterval): a stepped-aside request is due shortly
	// before its slot, and streamkit's default (1s) would bring it back late.
	PromoteInterval time.Duration

	MaxDepth        int           // link depth from the seed, for seeds that name none
	MaxHubDepth     int           // feeds and sitemaps followed in a row (hub links keep the page depth)
	MaxURLsPerHost  int64         // discovered URLs the frontier takes per host; more are dropped
	MaxHubsPerHost  int64         // of those, discovered hubs (feeds, sitemaps, indexes); more are dropped
	RecrawlInterval time.Duration // hubs (feeds, sitemaps, seed pages) are fetched again after this; zero: never (no default here either)
	MaxRetryAfter   time.Duration // cap on a server's Retry-After

	MaxBody               int64
	MaxInflightBytes      int64 // body bytes held at once by the process (fetch.DefaultMaxInflightBytes)
	ConnectTimeout        time.Duration
	ResponseHeaderTimeout time.Duration
	FetchTimeout          time.Duration
	MaxRedirects          int
	AllowPrivate          bool           // fetch loopback/private addresses (tests, local demo)
	AllowCIDRs            []netip.Prefix // non-public ranges allowed anyway
	RobotsTTL             time.Duration

	SchedulePeriod time.Duration // how often the scheduler looks for due hubs
	ScheduleBatch  int           // due hubs re-enqueued per pass

	// Window is how many requests the crawl stream holds at most (waiting
	// and in flight); the rest of the frontier waits in the urls table.
	Window int64
	// Retain is how many finished requests the crawl stream keeps for
	// inspection (CRAWL_RETAIN); the window trims past them as it adds.
	Retain       int64
	FeedInterval time.Duration // how often the feeder looks for room on the stream

	// WARCDir, when set, archives every fetch there as WARC/1.1 (request
	// and response records, gzip per record), in files of this process's
	// own rotated at WARCMaxSize (archive.DefaultMaxFileSize).
	WARCDir     string
	WARCMaxSize int64

	// OnReserve, when set, is called with every politeness slot granted
	// before a fetch (observability and tests).
	OnReserve func(politeness.Reservation)
	Logger    *slog.Logger
}

func (c *Config) setDefaults() {
	if c.UserAgent == "" {
		c.UserAgent = fetch.DefaultUserAgent
	}
	if c.MaxWait <= 0 {
		c.MaxWait = DefaultMaxWait
	}
	if c.DeferAfter <= 0 {
		c.DeferAfter = DefaultDeferAfter
	}
	if c.MaxInflightBytes <= 0 {
		c.MaxInflightBytes = fetch.DefaultMaxInflightBytes
	}
	if c.MaxAhead <= 0 {
		c.MaxAhead = DefaultMaxAhead
	}
	if c.PromoteInterval <= 0 {
		c.PromoteInterval = DefaultPromoteInterval
	}
	if c.MaxDepth <= 0 {
		c.MaxDepth = DefaultMaxDepth
	}
	if c.MaxURLsPerHost <= 0 {
		c.MaxURLsPerHost = DefaultMaxURLsPerHost
	}
	if c.MaxHubsPerHost <= 0 {
		c.MaxHubsPerHost = DefaultMaxHubsPerHost
	}
	if c.MaxHubDepth <= 0 {
		c.MaxHubDepth = DefaultMaxHubDepth
	}
	if c.MaxRetryAfter <= 0 {
		c.MaxRetryAfter = DefaultMaxRetryAfter
	}
	if c.RobotsTTL <= 0 {
		c.RobotsTTL = robots.DefaultTTL
	}
	if c.SchedulePeriod <= 0 {
		c.SchedulePeriod = DefaultSchedulePeriod
	}
	if c.ScheduleBatch <= 0 {
		c.ScheduleBatch = DefaultScheduleBatch
	}
	if c.Window <= 0 {
		c.Window = DefaultWindow
	}
	if c.FeedInterval <= 0 {
		c.FeedInterval = DefaultFeedInterval
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
}
