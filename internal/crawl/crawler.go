package crawl

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/newscrawl/newscrawl/internal/archive"
	"github.com/newscrawl/newscrawl/internal/crawl/discover"
	"github.com/newscrawl/newscrawl/internal/crawl/fetch"
	"github.com/newscrawl/newscrawl/internal/crawl/politeness"
	"github.com/newscrawl/newscrawl/internal/crawl/robots"
	"github.com/newscrawl/newscrawl/internal/crawl/urlnorm"
	"github.com/newscrawl/newscrawl/internal/pipeline"
	"github.com/newscrawl/newscrawl/internal/retryafter"
	"github.com/newscrawl/newscrawl/internal/version"
	"github.com/newscrawl/newscrawl/pkg/streamkit"
)

// A Crawler handles crawl requests: robots check, politeness slot, fetch,
// store, discovery, and the messages for the cleaner and the frontier.
type Crawler struct {
	cfg     Config
	pool    *pgxpool.Pool
	fetcher *fetch.Fetcher
	robots  *robots.Cache
	limiter *politeness.Limiter
	log     *slog.Logger
	metrics *metrics
	win     *streamkit.Window // the crawl stage's window, the feeder's way onto the stream
	feed    chan struct{}     // wakes the feeder: links were left in the frontier
	via     redirected        // pages just fetched through a redirect
	priors  *priorLoader      // what the frontier knows of a request, batched across handlers
	warc    *archive.Writer   // every fetch archived (Config.WARCDir); nil: none
}

// New builds a Crawler over Redis (politeness, robots cache) and Postgres
// (urls, documents). reg may be nil.
func New(rdb redis.UniversalClient, pool *pgxpool.Pool, cfg Config, reg prometheus.Registerer) (*Crawler, error) {
	cfg.setDefaults()
	f := fetch.New(fetch.Config{UserAgent: cfg.UserAgent, MaxBody: cfg.MaxBody, ConnectTimeout: cfg.ConnectTimeout,
		ResponseHeaderTimeout: cfg.ResponseHeaderTimeout, Timeout: cfg.FetchTimeout, MaxRedirects: cfg.MaxRedirects,
		AllowPrivate: cfg.AllowPrivate, AllowCIDRs: cfg.AllowCIDRs, Budget: fetch.NewBudget(cfg.MaxInflightBytes)})
	c := &Crawler{cfg: cfg, pool: pool, fetcher: f, limiter: politeness.New(rdb, cfg.Prefix, cfg.MaxWait),
		log: cfg.Logger.With("component", "crawl"), win: newWindow(rdb, cfg), feed: make(chan struct{}, 1),
		priors: &priorLoader{pool: pool}}
	c.robots = robots.New(rdb, f, robots.Config{Prefix: cfg.Prefix, UserAgent: cfg.UserAgent, TTL: cfg.RobotsTTL,
		Logger: c.log, BeforeSend: func(ctx context.Context, host string) (func(), error) {
			return c.wait(ctx, host, c.cfg.HostDelay)
		}})
	m, err := newMetrics(reg)
	if err != nil {
		return nil, err
	}
	c.metrics = m
	if cfg.WARCDir != "" {
		if c.warc, err = archive.NewWriter(archive.WriterConfig{Dir: cfg.WARCDir, MaxSize: cfg.WARCMaxSize,
			Software: "NewsCrawl " + version.Release, Logger: c.log}); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// Handle processes one crawl request. Outcomes that are facts about the
// URL (gone, disallowed, too large, skipped, redirect loop) are recorded
// and acked; 429/503 ask for a retry after Retry-After; other 5xx,
// timeouts and network errors are retryable; a bad URL or an SSRF refusal
// is permanent.
func (c *Crawler) Handle(ctx context.Context, m *streamkit.Message) (streamkit.Result, error) {
	r, err := parseRequest(m, &c.cfg)
	if err != nil {
		c.metrics.outcome(streamkit.ErrorType(err))
		return streamkit.Result{}, err
	}
	// Looked up before the slot, not after: once the host's turn is taken,
	// a database round trip would only hold the host longer.
	prev, gone, err := c.priors.lookup(ctx, r.URL, r.DocID)
	switch {
	case err != nil:
		return streamkit.Result{}, streamkit.Retryable(ErrTypeStore, err)
	case gone: // forgotten (a takedown): never fetched or stored again
		return streamkit.Result{}, nil
	}
	rules, err := c.robots.Get(ctx, r.u.Scheme+"://"+r.Host)
	if err != nil {
		return streamkit.Result{}, c.classifyErr(r, err)
	}
	var links []link
	if r.Seed || rules.Fetched {
		for _, s := range rules.Sitemaps {
			if u, ok := urlnorm.Resolve(r.u, s); ok {
				links = c.addLink(links, r, u, r.Depth, discover.KindSitemap)
			}
		}
	}
	c.metrics.discovered.Add(float64(len(links)))
	if !rules.Allowed(pathQuery(r.u)) {
		c.metrics.outcome(StateDisallowed)
		return c.result(ctx, r, &outcome{State: StateDisallowed, Links: uniqueLinks(links)})
	}
	// A page fetched through a redirect while its own link was being queued
	// (the redirect's target was not known yet when it was followed) is not
	// fetched again: it is that redirect's alias. Seeds and hubs always go.
	aliasable := !r.Seed && !prev.IsHub && r.Hint == ""
	if prev.FetchedSince && aliasable {
		c.metrics.outcome(StateAlias)
		return c.result(ctx, r, &outcome{State: StateAlias})
	}
	send, err := c.claim(ctx, r, holdID(r, m), max(c.cfg.HostDelay, rules.CrawlDelay))
	if err != nil {
		return streamkit.Result{}, err
	}
	turn := func(ctx context.Context) (done func(), err error) {
		if send != nil {
			if done, err = send(ctx); err != nil {
				return done, err
			}
		}
		if aliasable && c.via.wait(ctx, r.URL) {
			return done, errReachedByRedirect
		}
		return done, nil
	}
	var ends []func(final string)
	follow := func(target string) bool {
		if c.known(ctx, target) {
			return false
		}
		if n := mustNormalize(target); n != "" {
			end, ok := c.via.follow(ctx, n)
			if !ok {
				return false // another redirect to it got it moments ago
			}
			ends = append(ends, end)
		}
		return true
	}
	resp, err := c.fetcher.Fetch(ctx, fetch.Request{URL: r.URL, ETag: prev.ETag, LastModified: prev.LastModified, BeforeSend: turn,
		Follow: follow})
	final := ""
	if err == nil && resp.Status >= 200 && resp.Status <= 299 {
		final = mustNormalize(resp.FinalURL)
	}
	for _, end := range ends {
		end(final)
	}
	if errors.Is(err, errReachedByRedirect) {
		c.metrics.outcome(StateAlias)
		return c.result(ctx, r, &outcome{State: StateAlias})
	}
	o, oerr := c.outcomeOf(r, prev, resp, err)
	c.archiveFetch(resp, prev, o, err)
	if err = oerr; err != nil {
		resp.Release()
		c.metrics.outcome(streamkit.ErrorType(err))
		return streamkit.Result{}, err
	}
	if o.Doc == nil {
		resp.Release()
	} else {
		o.release = resp.Release // once the body is stored
	}
	c.metrics.discovered.Add(float64(len(o.Links)))
	if o.Links, err = c.capLinks(ctx, o.Links); err != nil { // the new links alone from here
		resp.Release()
		return streamkit.Result{}, streamkit.Retryable(ErrTypeStore, err)
	}
	o.Links = uniqueLinks(append(links, o.Links...))
	c.metrics.outcome(o.State)
	return c.result(ctx, r, o)
}

// known reports whether the frontier has target (normalised) already,
// fetched or queued: a redirect there is recorded as an alias instead of
// being followed. A failed lookup follows the redirect (a refetch at worst).
func (c *Crawler) known(ctx context.Context, target string) bool {
	n, err := urlnorm.Normalize(target)
	if err != nil {
		return false
	}
	var ok bool
	if err := c.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM urls WHERE url = $1)`, n).Scan(&ok); err != nil {
		return false
	}
	return ok
}

// wait takes a politeness slot for host; delay <= 0 disables politeness.
func (c *Crawler) wait(ctx context.Context, host string, delay time.Duration) (func(), error) {
	if delay <= 0 {
		return nil, nil
	}
	res, err := c.limiter.Wait(ctx, host, delay)
	if err != nil {
		return nil, err
	}
	if c.cfg.OnReserve != nil {
		c.cfg.OnReserve(res)
	}
	return res.Release, nil
}

// classifyErr turns a failure before or during the fetch into streamkit's terms.
func (c *Crawler) classifyErr(r *request, err error) error {
	var tl *politeness.TooLongError
	switch {
	case errors.As(err, &tl) && tl.Busy: // the host is busy with another request: a deferral
		return streamkit.Later(tl.Wait, fmt.Sprintf("%s is busy with another request: stepping aside", r.Host))
	case errors.As(err, &tl):
		return streamkit.RetryAfter(tl.Wait, fmt.Errorf("politeness slot for %s: %w", r.Host, err))
	}
	switch {
	case errors.Is(err, fetch.ErrBlocked):
		return streamkit.Permanent(ErrTypeSSRF, err)
	case errors.Is(err, robots.ErrUnavailable):
		return streamkit.Retryable(ErrTypeRobots, err)
	case fetch.IsTimeout(err):
		return streamkit.Retryable(ErrTypeTimeout, err)
	case fetch.IsDNS(err):
		return streamkit.Retryable(ErrTypeDNS, err)
	}
	return streamkit.Retryable(ErrTypeConnection, err)
}

// outcomeOf turns a fetch into an outcome to record, or an error for streamkit.
func (c *Crawler) outcomeOf(r *request, prev prior, resp *fetch.Response, err error) (*outcome, error) {
	o := &outcome{Fetched: resp != nil}
	if resp != nil {
		o.Status, o.ContentType, o.FinalURL = resp.Status, resp.ContentType, resp.FinalURL
	}
	switch {
	case errors.Is(err, fetch.ErrTooLarge):
		o.State, o.Err = StateTooLarge, err.Error()
		return o, nil
	case errors.Is(err, fetch.ErrRedirectLoop), errors.Is(err, fetch.ErrTooManyRedirects):
		o.State, o.Err, o.Fetched = StateRedirectError, err.Error(), true
		return o, nil
	case err != nil:
		var ue *url.Error
		if errors.As(err, &ue) && strings.Contains(ue.Err.Error(), "unsupported protocol scheme") {
			o.State, o.Err, o.Fetched = StateRedirectError, err.Error(), true
			return o, nil
		}
		return nil, c.classifyErr(r, err)
	}
	switch s := resp.Status; {
	case s == http.StatusNotModified:
		o.State, o.ETag, o.LastModified, o.BodyHash = StateNotModified, prev.ETag, prev.LastModified, prev.BodyHash
		o.Hub = r.Seed || r.Hint != "" || prev.IsHub
		return o, nil
	case s == http.StatusNotFound || s == http.StatusGone:
		o.State = StateGone
		return o, nil
	case s == http.StatusTooManyRequests || s == http.StatusServiceUnavailable:
		cause := fmt.Errorf("get %s: status %d", r.URL, s)
		if d, ok := retryafter.Parse(resp.Header, time.Now()); ok && d > 0 {
			return nil, streamkit.RetryAfter(min(d, c.cfg.MaxRetryAfter), cause)
		}
		return nil, streamkit.Retryable(ErrTypeRateLimited, cause)
	case s >= 500:
		return nil, streamkit.Retryable(ErrTypeServer, fmt.Errorf("get %s: status %d", r.URL, s))
	case s >= 400:
		o.State = StateClientError
		return o, nil
	case s >= 300 && s <= 399 && resp.RedirectTo != "":
		// A redirect to a URL the frontier already has (fetched or queued):
		// this URL is an alias of it, and the target is not fetched again.
		o.State, o.FinalURL = StateAlias, mustNormalize(resp.RedirectTo)
		return o, nil
	case s < 200 || s > 299:
		o.State = StateRedirectError // a 3xx without a usable Location
		return o, nil
	case !resp.Accepted:
		o.State = StateSkipped
		return o, nil
	}
	o.ETag, o.LastModified = resp.Header.Get("ETag"), resp.Header.Get("Last-Modified")
	o.Kind = discover.Sniff(resp.MediaType, resp.Body)
	switch o.Kind {
	case discover.KindHTML:
		return c.htmlOutcome(r, prev, resp, o)
	case discover.KindFeed, discover.KindSitemap:
		return c.hubOutcome(r, prev, resp, o), nil
	}
	o.State = StateSkipped
	return o, nil
}

// htmlOutcome converts a page to UTF-8, keys it on its canonical (or
// final) URL when that is an allowed host, and takes its links.
func (c *Crawler) htmlOutcome(r *request, prev prior, resp *fetch.Response, o *outcome) (*outcome, error) {
	body, cs, err := fetch.ToUTF8(resp.Body, resp.ContentType)
	if err != nil {
		o.State, o.Err = StateSkipped, err.Error()
		return o, nil
	}
	o.BodyHash = pipeline.BodyHash(body)
	o.Hub = r.Seed || prev.IsHub
	base := r.u
	if fu, err := url.Parse(resp.FinalURL); err == nil {
		base = fu
	}
	page := discover.HTML(base, body)
	docURL := r.URL
	if n, err := urlnorm.Normalize(resp.FinalURL); err == nil && n != r.URL && c.allowed(r, n) {
		docURL = n
	}
	if page.Canonical != "" && c.allowed(r, page.Canonical) {
		docURL = page.Canonical
	}
	for _, a := range []string{docURL, mustNormalize(resp.FinalURL)} {
		if a != "" && a != r.URL {
			o.Aliases = c.addLink(o.Aliases, r, a, r.Depth, "")
		}
	}
	if page.NoIndex {
		o.State = StateNoIndex
	} else {
		o.State = StateFetched
		du, _ := url.Parse(docURL)
		o.Doc = &document{DocID: pipeline.DocID(docURL), RequestedAs: pipeline.DocID(r.URL), URL: docURL, FinalURL: resp.FinalURL, Host: du.Host,
			ContentType: resp.ContentType, Kind: discover.KindHTML, Charset: cs, BodyHash: o.BodyHash, ETag: o.ETag,
			LastModified: o.LastModified, Status: resp.Status, Body: body, Headers: keptHeaders(resp.Header)}
	}
	if prev.BodyHash == o.BodyHash {
		return o, nil // same page as last time: its links are known already
	}
	// A link that said "feed" or "sitemap" but answered HTML is a page: it
	// counts one level of depth (else pages posing as feeds would chain at
	// a constant depth), and what it links to is not a hub's.
	depth, pr := r.Depth, *r
	if r.Hint != "" {
		depth, pr.Hubs = r.Depth+1, 0
		if depth > r.MaxDepth {
			return o, nil
		}
	}
	for _, f := range page.Feeds {
		o.Links = c.addLink(o.Links, &pr, f, depth, discover.KindFeed)
	}
	for _, l := range page.Links {
		o.Links = c.addLink(o.Links, &pr, l, depth+1, "")
	}
	return o, nil
}

// hubOutcome parses a feed or sitemap for URLs; hubs are recrawled.
func (c *Crawler) hubOutcome(r *request, prev prior, resp *fetch.Response, o *outcome) *outcome {
	o.BodyHash = pipeline.BodyHash(resp.Body)
	o.Hub = true
	o.State = StateFetched
	if prev.BodyHash == o.BodyHash {
		o.State = StateUnchanged
		return o
	}
	base := r.u
	if fu, err := url.Parse(resp.FinalURL); err == nil {
		base = fu
	}
	if o.Kind == discover.KindFeed {
		items, err := discover.Feed(base, resp.Body)
		if err != nil {
			o.State, o.Err = StateParseError, err.Error()
			return o
		}
		for _, u := range items {
			o.Links = c.addLink(o.Links, r, u, r.Depth+1, "")
		}
		return o
	}
	sm, err := discover.ParseSitemap(base, resp.Body)
	if err != nil {
		o.State, o.Err = StateParseError, err.Error()
		return o
	}
	for _, u := range sm.Children {
		o.Links = c.addLink(o.Links, r, u, r.Depth, discover.KindSitemap)
	}
	for _, u := range sm.Pages {
		o.Links = c.addLink(o.Links, r, u, r.Depth+1, "")
	}
	return o
}

// addLink appends a normalized URL when its host is allowed and its depth
// within the request's limit; hub hints (feeds, sitemaps) keep the depth.
// Repeats are removed once, by uniqueLinks.
func (c *Crawler) addLink(links []link, r *request, u string, depth int, hint string) []link {
	hubs := 0
	if hint != "" { // a hub keeps the page depth, so its nesting has a limit of its own
		hubs = r.Hubs + 1
	}
	if depth > r.MaxDepth || hubs > c.cfg.MaxHubDepth || !c.allowed(r, u) {
		return links
	}
	pu, err := url.Parse(u)
	if err != nil {
		return links
	}
	return append(links, link{URL: u, DocID: pipeline.DocID(u), Host: pu.Host, Hint: hint, Depth: depth, Hubs: hubs, Hub: hint != ""})
}

// uniqueLinks keeps the first link to each URL: a page, its feeds and
// robots.txt's Sitemap lines may name the same URL, and each copy would be
// its own crawl request (a set, since a sitemap can hold 50,000 URLs).
func uniqueLinks(links []link) []link {
	seen := make(map[string]bool, len(links))
	out := links[:0]
	for _, l := range links {
		if !seen[l.URL] {
			seen[l.URL] = true
			out = append(out, l)
		}
	}
	return out
}

func (c *Crawler) allowed(r *request, u string) bool {
	pu, err := url.Parse(u)
	return err == nil && HostAllowed(pu.Hostname(), r.Hosts)
}

// result packages an outcome: Commit records it, with the discovered URLs
// the seen-set did not hold owed a fetch in the frontier (decided inside the
// same transaction, so concurrent workers never both enqueue a URL); then
// EmitFunc sends the cleaner's message if the document is new or changed,
// and wakes the feeder, which publishes the new requests through the
// window.
func (c *Crawler) result(ctx context.Context, r *request, o *outcome) (streamkit.Result, error) {
	var recrawl *time.Duration
	if r.Recrawl != c.cfg.RecrawlInterval {
		recrawl = &r.Recrawl
	}
	fresh := 0 // discovered URLs the frontier lacked: owed now, for the feeder
	if links := discovered(r, o); len(links) > 0 {
		var err error
		if fresh, err = addLinks(ctx, c.pool, r, links, recrawl); err != nil {
			if o.release != nil {
				o.release()
			}
			return streamkit.Result{}, streamkit.Retryable(ErrTypeStore, err)
		}
	}
	var changed bool
	return streamkit.Result{
		DocID: r.DocID,
		Commit: func(ctx context.Context, tx pgx.Tx) error {
			var err error
			changed, err = commit(ctx, tx, r, o)
			if err == nil && o.release != nil {
				o.release()
			}
			return err
		},
		EmitFunc: func() []streamkit.Emit {
			var emits []streamkit.Emit
			if o.Doc != nil && changed {
				emits = append(emits, streamkit.Emit{Stage: pipeline.Clean, Fields: map[string]string{
					pipeline.FieldDocID: o.Doc.DocID, pipeline.FieldBodyHash: o.Doc.BodyHash, pipeline.FieldURL: o.Doc.URL}})
			}
			if fresh > 0 {
				select { // the feeder publishes them when there is room
				case c.feed <- struct{}{}:
				default:
				}
			}
			return emits
		},
	}, nil
}

// discovered is o's links but the page's own URL and aliases: those are
// written by its commit, which comes after the links now, and a link to
// itself (a logo to the home page) must not owe the page a second fetch.
func discovered(r *request, o *outcome) []link {
	out := o.Links[:0:0]
	for _, l := range o.Links {
		if l.URL != r.URL && !slices.ContainsFunc(o.Aliases, func(a link) bool { return a.URL == l.URL }) {
			out = append(out, l)
		}
	}
	return out
}

func pathQuery(u *url.URL) string {
	p := u.EscapedPath()
	if u.RawQuery != "" {
		p += "?" + u.RawQuery
	}
	return p
}

func mustNormalize(s string) string {
	n, err := urlnorm.Normalize(s)
	if err != nil {
		return ""
	}
	return n
}

// keptHeaders are the response headers stored with a document.
func keptHeaders(h http.Header) map[string]string {
	out := map[string]string{}
	for _, k := range []string{"Content-Type", "Content-Language", "Last-Modified", "ETag", "Date", "Cache-Control", "Link", "X-Robots-Tag"} {
		if v := h.Get(k); v != "" {
			out[k] = v
		}
	}
	return out
}
