// Command crawler is the pipeline's first stage: it reads crawl requests,
// fetches pages politely (robots.txt, per-host delays shared through
// Redis), stores them in PostgreSQL, sends new or changed pages to the
// cleaner and enqueues the URLs it discovers. It also re-enqueues hubs
// (feeds, sitemaps, seed pages) when their recrawl interval has passed.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime/debug"
	"strconv"
	"sync"
	"time"

	"github.com/newscrawl/newscrawl/internal/app"
	"github.com/newscrawl/newscrawl/internal/archive"
	"github.com/newscrawl/newscrawl/internal/config"
	"github.com/newscrawl/newscrawl/internal/crawl"
	"github.com/newscrawl/newscrawl/internal/crawl/fetch"
	"github.com/newscrawl/newscrawl/internal/pipeline"
	"github.com/newscrawl/newscrawl/pkg/streamkit"
)

// Defaults of the crawler binary.
const (
	defaultMetricsAddr = "127.0.0.1:9101"
	defaultConcurrency = 16
	defaultVisibility  = 30 * time.Second
	// defaultMemoryLimit is the Go runtime's soft limit when GOMEMLIMIT is
	// unset: bodies are large and short-lived, and with the default GC pace
	// the heap doubled past them (24 pages of 9.5 MB with the 64 MiB body
	// budget: peak RSS 305 MiB without a limit, 205 MiB at 192 MiB, 179 MiB
	// at 160 MiB — under the crawler's 200 MiB budget).
	defaultMemoryLimit = 160 << 20
)

func main() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(defaultMemoryLimit)
	}
	app.Main("crawler", run)
}

func run(args []string) error {
	s := config.NewSet(flag.NewFlagSet("crawler", flag.ContinueOnError))
	common := config.BindCommon(s, defaultMetricsAddr)
	stage := config.BindStage(s, "CRAWL", defaultConcurrency, defaultVisibility)
	hostDelay := s.Duration("CRAWL_HOST_DELAY", crawl.DefaultHostDelay, "minimum gap between requests to one host, across all crawlers; robots.txt Crawl-delay raises it; 0 disables (benchmarks only)")
	maxDepth := s.Int("CRAWL_MAX_DEPTH", crawl.DefaultMaxDepth, "link depth followed from a seed that names none")
	maxURLsPerHost := s.Int64("CRAWL_MAX_URLS_PER_HOST", crawl.DefaultMaxURLsPerHost, "discovered URLs the frontier takes per host; further new links of that host are dropped (logged)")
	maxHubsPerHost := s.Int64("CRAWL_MAX_HUBS_PER_HOST", crawl.DefaultMaxHubsPerHost, "discovered hubs (feeds, sitemaps, sitemap indexes) the frontier takes per host; further new hub links of that host are dropped (counted, newsctl stats); seeds are never capped")
	maxHubDepth := s.Int("CRAWL_MAX_HUB_DEPTH", crawl.DefaultMaxHubDepth, "feeds and sitemaps followed in a row (a hub's links keep the page depth, so they have a limit of their own)")
	userAgent := s.String("CRAWL_USER_AGENT", fetch.DefaultUserAgent, "User-Agent sent; its first word is our name in robots.txt")
	maxBody := s.Int64("CRAWL_MAX_BODY", fetch.DefaultMaxBody, "largest body in bytes after decoding; larger pages are recorded too_large")
	maxInflight := s.Int64("CRAWL_MAX_INFLIGHT_BYTES", fetch.DefaultMaxInflightBytes, "body bytes the process holds at once; requests wait for room (a body of unknown size reserves CRAWL_MAX_BODY)")
	allowPrivate := s.Bool("CRAWL_ALLOW_PRIVATE", false, "fetch loopback/private/link-local addresses (local demo and tests only)")
	allowCIDRs := s.String("CRAWL_ALLOW_CIDRS", "", "comma-separated non-public ranges allowed even without CRAWL_ALLOW_PRIVATE")
	recrawl := s.Duration("CRAWL_RECRAWL_INTERVAL", crawl.DefaultRecrawlInterval, "hubs (feeds, sitemaps, seed pages) are fetched again after this; 0 disables")
	connectTimeout := s.Duration("CRAWL_CONNECT_TIMEOUT", fetch.DefaultConnectTimeout, "TCP connect and TLS handshake timeout")
	headerTimeout := s.Duration("CRAWL_HEADER_TIMEOUT", fetch.DefaultResponseHeaderTimeout, "time allowed until response headers")
	fetchTimeout := s.Duration("CRAWL_FETCH_TIMEOUT", fetch.DefaultTimeout, "whole request timeout, body included")
	maxRedirects := s.Int("CRAWL_MAX_REDIRECTS", fetch.DefaultMaxRedirects, "redirects followed per fetch")
	maxWait := s.Duration("CRAWL_MAX_WAIT", crawl.DefaultMaxWait, "longest wait for a host slot for a robots.txt fetch before the request is re-queued")
	deferAfter := s.Duration("CRAWL_DEFER_AFTER", crawl.DefaultDeferAfter, "a page request whose host slot is further away holds the slot and is re-queued until just before it")
	maxAhead := s.Duration("CRAWL_MAX_AHEAD", crawl.DefaultMaxAhead, "furthest ahead one request may hold a host slot; beyond, it is re-queued without one")
	promote := s.Duration("CRAWL_PROMOTE_INTERVAL", crawl.DefaultPromoteInterval, "how often the crawler moves due retries (requests back for their slot) onto the crawl stream")
	schedule := s.Duration("CRAWL_SCHEDULE_PERIOD", crawl.DefaultSchedulePeriod, "how often due hubs are looked for")
	window := s.Int64("CRAWL_WINDOW", crawl.DefaultWindow, "crawl requests on the crawl stream at most (waiting and in flight); the rest of the frontier waits in PostgreSQL")
	warcDir := s.String("CRAWL_WARC_DIR", "", "archive every fetch here as WARC/1.1 (request and response records, gzip per record, files of this process's own); empty: off")
	warcMaxSize := s.Int64("CRAWL_WARC_MAX_SIZE", archive.DefaultMaxFileSize, "bytes at which a WARC file is closed and the next begun")
	commitLinger := s.Duration("CRAWL_COMMIT_LINGER", crawl.DefaultCommitLinger, "how long a group commit waits to gather finished pages into one transaction")
	feedInterval := s.Duration("CRAWL_FEED_INTERVAL", crawl.DefaultFeedInterval, "how often the frontier is checked for requests to put on the crawl stream")
	if err := s.Parse(args); err != nil {
		return err
	}
	cidrs, err := fetch.ParseCIDRs(*allowCIDRs)
	if err != nil {
		return err
	}
	cfg := crawl.Config{Prefix: *common.StreamPrefix, Partitions: common.Partitions(), UserAgent: *userAgent, HostDelay: *hostDelay,
		MaxWait: *maxWait, DeferAfter: *deferAfter, MaxAhead: *maxAhead, PromoteInterval: *promote, MaxDepth: *maxDepth, MaxHubDepth: *maxHubDepth, MaxURLsPerHost: *maxURLsPerHost, MaxHubsPerHost: *maxHubsPerHost, RecrawlInterval: *recrawl, MaxBody: *maxBody, MaxInflightBytes: *maxInflight,
		ConnectTimeout: *connectTimeout, ResponseHeaderTimeout: *headerTimeout, FetchTimeout: *fetchTimeout,
		MaxRedirects: *maxRedirects, AllowPrivate: *allowPrivate, AllowCIDRs: cidrs, SchedulePeriod: *schedule,
		Window: *window, Retain: *stage.Retain, FeedInterval: *feedInterval, WARCDir: *warcDir, WARCMaxSize: *warcMaxSize}

	w := app.Worker{
		Name: "crawler", Stage: pipeline.Crawl, Group: pipeline.CrawlerGroup, Downstream: pipeline.Clean,
		Key: crawl.Key, Common: common, Settings: stage, ErrorTypes: crawl.ErrorTypes,
		PromoteInterval: *promote, // requests that stepped aside for a host slot come back on time
		CommitLinger:    *commitLinger,
		// Published in the status record, so newsctl seed judges an address
		// with the running crawlers' settings rather than its own.
		Status: map[string]string{"allow_private": strconv.FormatBool(*allowPrivate), "allow_cidrs": *allowCIDRs,
			crawl.StatusWindow: strconv.FormatInt(*window, 10)},
	}
	var crawler *crawl.Crawler // built before Background runs
	w.Background = func(ctx context.Context, d app.Deps) {
		var wg sync.WaitGroup
		if *recrawl > 0 {
			cfg := cfg
			cfg.Logger = d.Log
			wg.Go(func() { crawl.NewScheduler(d.DB, cfg).Run(ctx) })
		}
		crawl.NewFeeder(d.DB, crawler).Run(ctx)
		wg.Wait()
	}
	defer func() { // after the last fetch: the open WARC files take their final names
		if crawler != nil {
			if err := crawler.Close(); err != nil {
				fmt.Fprintln(os.Stderr, "crawler: close warc files:", err)
			}
		}
	}()
	return w.Run(func(d app.Deps) (streamkit.Handler, error) {
		cfg.Logger = d.Log
		c, err := crawl.New(d.Redis, d.DB, cfg, d.Registry)
		if err != nil {
			return nil, err
		}
		crawler = c
		d.Log.Info("crawler configured", "host_delay", *hostDelay, "max_depth", *maxDepth,
			"allow_private", *allowPrivate, "recrawl", *recrawl, "user_agent", *userAgent, "warc_dir", *warcDir)
		return c, nil
	})
}
