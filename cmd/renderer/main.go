// Command renderer is the pipeline's optional fifth binary: it renders the
// pages the cleaner finds script-built (RENDER=auto or always on the
// cleaner) in headless Chromium, stores the DOM beside the static page and
// sends it back to the cleaner. Every request the browser makes goes
// through a proxy of its own held to the crawler's rules (docs/RENDERER.md).
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/newscrawl/newscrawl/internal/app"
	"github.com/newscrawl/newscrawl/internal/archive"
	"github.com/newscrawl/newscrawl/internal/config"
	"github.com/newscrawl/newscrawl/internal/crawl"
	"github.com/newscrawl/newscrawl/internal/crawl/fetch"
	"github.com/newscrawl/newscrawl/internal/pipeline"
	"github.com/newscrawl/newscrawl/internal/render"
	"github.com/newscrawl/newscrawl/internal/version"
	"github.com/newscrawl/newscrawl/pkg/streamkit"
)

func main() { app.Main("renderer", run) }

func run(args []string) error {
	s := config.NewSet(flag.NewFlagSet("renderer", flag.ContinueOnError))
	common := config.BindCommon(s, "127.0.0.1:9105")
	stage := config.BindStage(s, "RENDER", render.DefaultConcurrency, 90*time.Second)
	chromium := s.String("RENDER_CHROMIUM", "", "Chromium to run; empty: $CHROMIUM, then chromium, chromium-browser, google-chrome on PATH")
	timeout := s.Duration("RENDER_TIMEOUT", render.DefaultTimeout, "deadline of one render's navigation and settle; politeness waits are not counted")
	idle := s.Duration("RENDER_IDLE", render.DefaultIdle, "network quiet this long (and the document loaded) settles a page")
	tries := s.Int("RENDER_TRIES", render.DefaultTries, "renders of a page before its static version stands, labelled with the reason")
	maxNodes := s.Int("RENDER_MAX_NODES", render.DefaultMaxNodes, "elements in a rendered DOM; past it the render fails dom_too_large")
	maxDOM := s.Int("RENDER_MAX_DOM_BYTES", render.DefaultMaxDOMBytes, "bytes of a rendered DOM; past it the render fails dom_too_large")
	maxBytes := s.Int64("RENDER_MAX_BYTES", render.DefaultMaxBytes, "bytes the browser may fetch for one render; past it requests are refused")
	recycle := s.Int("RENDER_RECYCLE_PAGES", render.DefaultRecycleEvery, "renders after which the browser is restarted")
	memory := s.Int64("RENDER_MEMORY", render.DefaultMemory, "bytes the browser's processes hold together (proportional set size) past which it is restarted")
	allowHosts := s.String("RENDER_ALLOW_HOSTS", "", "comma-separated hosts besides the page's own the browser may reach (a CDN of scripts); none by default")
	hostDelay := s.Duration("CRAWL_HOST_DELAY", crawl.DefaultHostDelay, "the crawler's gap between requests to one host: a render's requests take their turns with the crawler's")
	userAgent := s.String("CRAWL_USER_AGENT", fetch.DefaultUserAgent, "User-Agent the browser sends (the crawler's name)")
	allowPrivate := s.Bool("CRAWL_ALLOW_PRIVATE", false, "let the browser reach loopback/private/link-local addresses (local demo and tests only)")
	allowCIDRs := s.String("CRAWL_ALLOW_CIDRS", "", "comma-separated non-public ranges allowed even without CRAWL_ALLOW_PRIVATE")
	warcDir := s.String("CRAWL_WARC_DIR", "", "archive the browser's plain-HTTP fetches here as WARC/1.1, as the crawler archives its own")
	warcMaxSize := s.Int64("CRAWL_WARC_MAX_SIZE", archive.DefaultMaxFileSize, "bytes at which a WARC file is closed and the next begun")
	if err := s.Parse(args); err != nil {
		return err
	}
	cidrs, err := fetch.ParseCIDRs(*allowCIDRs)
	if err != nil {
		return err
	}
	var warc *archive.Writer
	if *warcDir != "" {
		if warc, err = archive.NewWriter(archive.WriterConfig{Dir: *warcDir, MaxSize: *warcMaxSize, Software: "NewsCrawl renderer " + version.Release}); err != nil {
			return err
		}
		defer func() {
			if err := warc.Close(); err != nil {
				fmt.Fprintln(os.Stderr, "renderer: close warc files:", err)
			}
		}()
	}
	var hosts []string
	for _, h := range strings.Split(*allowHosts, ",") {
		if h = strings.TrimSpace(h); h != "" {
			hosts = append(hosts, h)
		}
	}
	var renderer *render.Renderer
	defer func() {
		if renderer != nil {
			renderer.Close()
		}
	}()
	w := app.Worker{Name: "renderer", Stage: pipeline.Render, Group: pipeline.RendererGroup, Downstream: pipeline.Clean,
		Version: render.Version, Key: render.Key, Common: common, Settings: stage,
		ErrorTypes: []string{"missing_input", "database", "interrupted"}}
	return w.Run(func(d app.Deps) (streamkit.Handler, error) {
		r, err := render.New(d.Redis, render.Config{ExecPath: *chromium, Concurrency: *stage.Concurrency, Timeout: *timeout,
			Idle: *idle, MaxNodes: *maxNodes, MaxDOMBytes: *maxDOM, MaxBytes: *maxBytes, RecycleEvery: *recycle, Memory: *memory,
			AllowHosts: hosts, HostDelay: *hostDelay, Prefix: *common.StreamPrefix, Archive: warc, Logger: d.Log,
			Fetch: fetch.Config{UserAgent: *userAgent, AllowPrivate: *allowPrivate, AllowCIDRs: cidrs}})
		if err != nil {
			return nil, err
		}
		renderer = r
		d.Log.Info("renderer configured", "timeout", *timeout, "tabs", *stage.Concurrency, "memory_mb", *memory>>20,
			"allow_hosts", hosts, "allow_private", *allowPrivate)
		return render.NewStage(d.DB, r, *tries, d.Registry, d.Log), nil
	})
}
