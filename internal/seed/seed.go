// Package seed takes seed URLs into the crawl frontier as the crawlers would
// judge them, at the scale of a seed file of millions: each host is judged
// once (its name resolved, every address checked against the SSRF guard),
// many hosts at once under one deadline for the whole run, and a host's URLs
// are stored in batches as soon as it passes. A host that does not resolve
// is refused once, with its count of URLs.
package seed

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"net/url"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/newscrawl/newscrawl/internal/crawl"
	"github.com/newscrawl/newscrawl/internal/crawl/fetch"
	"github.com/newscrawl/newscrawl/internal/crawl/urlnorm"
)

// Defaults for Config fields left zero.
const (
	DefaultLookups       = 64               // host names resolved at once
	DefaultLookupTimeout = 5 * time.Second  // one name's lookup
	DefaultDeadline      = 60 * time.Second // every lookup of the run
	DefaultBatch         = 5000             // URLs stored per frontier write
	DefaultProgress      = time.Second
)

// A Guard is the crawlers' SSRF settings a seed is judged by.
type Guard struct {
	AllowPrivate bool
	Allow        []netip.Prefix
}

// refuses returns why a is refused, or "".
func (g Guard) refuses(host string, a netip.Addr) string {
	a = a.Unmap()
	if g.AllowPrivate || !fetch.Blocked(a) || slices.ContainsFunc(g.Allow, func(p netip.Prefix) bool { return p.Contains(a) }) {
		return ""
	}
	return fmt.Sprintf("%s is %s, a private, loopback or link-local address the SSRF guard refuses; "+
		"start the crawler with CRAWL_ALLOW_CIDRS=%s (that range only) or CRAWL_ALLOW_PRIVATE=1", host, a, netip.PrefixFrom(a, a.BitLen()))
}

// Config describes one seeding run.
type Config struct {
	Guard         Guard
	Template      crawl.Seed    // MaxDepth, Hosts and Recrawl of every seed; URL is ignored
	Resolver      *net.Resolver // nil: the system's
	Lookups       int           // host names resolved at once
	LookupTimeout time.Duration // one name's lookup
	Deadline      time.Duration // all lookups of the run; hosts not judged by then are refused
	Batch         int           // URLs per frontier write
	Progress      io.Writer     // a progress line every ProgressEvery; nil: none
	ProgressEvery time.Duration
}

func (c *Config) setDefaults() {
	if c.Resolver == nil {
		c.Resolver = net.DefaultResolver
	}
	if c.Lookups <= 0 {
		c.Lookups = DefaultLookups
	}
	if c.LookupTimeout <= 0 {
		c.LookupTimeout = DefaultLookupTimeout
	}
	if c.Deadline <= 0 {
		c.Deadline = DefaultDeadline
	}
	if c.Batch <= 0 {
		c.Batch = DefaultBatch
	}
	if c.ProgressEvery <= 0 {
		c.ProgressEvery = DefaultProgress
	}
}

// A Refusal is a URL, or a host with all its URLs, that the crawler would
// not fetch.
type Refusal struct {
	What string // the URL, or the host name
	URLs int    // 1 for a URL, the host's count for a host
	Why  string
	Host bool
}

// Report is what a run did: URLs read, queued and refused, and what the
// frontier said of the queued ones.
type Report struct {
	Read, Queued int
	Frontier     crawl.SeedReport
	Refused      []Refusal
	Hosts        int
}

// RefusedURLs counts the URLs refused.
func (r Report) RefusedURLs() int {
	n := 0
	for _, f := range r.Refused {
		n += f.URLs
	}
	return n
}

// A StoreFunc records a batch of seeds in the frontier (crawl.SeedFrontier
// on a pool, opened when the first batch comes).
type StoreFunc func(ctx context.Context, seeds []crawl.Seed) (crawl.SeedReport, error)

// Into is the StoreFunc of pool.
func Into(pool *pgxpool.Pool) StoreFunc {
	return func(ctx context.Context, seeds []crawl.Seed) (crawl.SeedReport, error) {
		return crawl.SeedFrontier(ctx, pool, seeds)
	}
}

// Run judges urls and stores the accepted ones with store, a batch at a
// time while hosts are still being judged. It returns the report and the
// first error storing them; URLs stored before an error stay stored
// (seeding again is harmless: a URL already waiting is left as it is).
func Run(ctx context.Context, urls []string, store StoreFunc, cfg Config) (Report, error) {
	cfg.setDefaults()
	rep := Report{Read: len(urls)}
	byHost, order := map[string][]string{}, []string(nil)
	for _, raw := range urls {
		host, why := parse(raw)
		if why != "" {
			rep.Refused = append(rep.Refused, Refusal{What: raw, URLs: 1, Why: why})
			continue
		}
		if _, ok := byHost[host]; !ok {
			order = append(order, host)
		}
		byHost[host] = append(byHost[host], raw)
	}
	rep.Hosts = len(order)

	verdicts := judge(ctx, order, cfg)
	w := newWriter(ctx, store)
	var batch []crawl.Seed
	progress := time.NewTicker(cfg.ProgressEvery)
	defer progress.Stop()
	start, judged, refusedHosts := time.Now(), 0, 0
	say := func() {
		if cfg.Progress != nil {
			fmt.Fprintf(cfg.Progress, "seed: %d of %d hosts judged (%d refused), %d of %d URLs stored, %.0fs\n",
				judged, len(order), refusedHosts, w.stored(), rep.Read, time.Since(start).Seconds())
		}
	}
	for pending := len(order); pending > 0; {
		select {
		case v := <-verdicts:
			pending--
			judged++
			if v.why != "" {
				refusedHosts++
				rep.Refused = append(rep.Refused, Refusal{What: v.host, URLs: len(byHost[v.host]), Why: v.why, Host: true})
				continue
			}
			for _, u := range byHost[v.host] {
				s := cfg.Template
				s.URL = u
				batch = append(batch, s)
			}
			rep.Queued += len(byHost[v.host])
			if len(batch) >= cfg.Batch {
				w.send(batch)
				batch = nil
			}
		case <-progress.C:
			say()
		}
	}
	if len(batch) > 0 {
		w.send(batch)
	}
	frontier, err := w.close()
	rep.Frontier = frontier
	if rep.Read > cfg.Batch {
		say()
	}
	return rep, err
}

// parse returns the URL's host name, or why the crawler would not fetch it.
func parse(raw string) (host, why string) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return "", "only http and https URLs are crawled"
	}
	n, err := urlnorm.Normalize(raw)
	if err != nil {
		return "", err.Error()
	}
	if nu, err := url.Parse(n); err == nil { // the host as the crawler asks for it (lower case, punycode)
		return nu.Hostname(), ""
	}
	return u.Hostname(), ""
}

type verdict struct{ host, why string }

// judge resolves every host once, cfg.Lookups at a time, and sends each
// verdict. Hosts still unjudged when the run's deadline passes are refused
// as such, without waiting for their lookups.
func judge(ctx context.Context, hosts []string, cfg Config) <-chan verdict {
	out := make(chan verdict, len(hosts))
	ctx, cancel := context.WithTimeout(ctx, cfg.Deadline)
	todo := make(chan string)
	var wg sync.WaitGroup
	for range min(cfg.Lookups, len(hosts)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for h := range todo {
				out <- verdict{h, judgeHost(ctx, h, cfg)}
			}
		}()
	}
	go func() {
		defer cancel()
		defer wg.Wait()
		defer close(todo)
		for i, h := range hosts {
			select {
			case todo <- h:
			case <-ctx.Done():
				for _, rest := range hosts[i:] {
					out <- verdict{rest, fmt.Sprintf("not judged: the run's DNS deadline (%s) passed first", cfg.Deadline)}
				}
				return
			}
		}
	}()
	return out
}

// judgeHost returns why the crawler would not fetch from host, or "".
func judgeHost(ctx context.Context, host string, cfg Config) string {
	lctx, cancel := context.WithTimeout(ctx, cfg.LookupTimeout)
	defer cancel()
	addrs, err := cfg.Resolver.LookupNetIP(lctx, "ip", host)
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return fmt.Sprintf("not judged: the run's DNS deadline (%s) passed first", cfg.Deadline)
		}
		return fmt.Sprintf("does not resolve from here (%v)", err)
	}
	for _, a := range addrs {
		if why := cfg.Guard.refuses(host, a); why != "" {
			return why
		}
	}
	return ""
}

// A writer stores batches of seeds in the frontier, one batch at a time, in
// the background while hosts are still being judged.
type writer struct {
	batches chan []crawl.Seed
	done    chan struct{}
	mu      sync.Mutex
	n       int
	rep     crawl.SeedReport
	err     error
}

func newWriter(ctx context.Context, store StoreFunc) *writer {
	w := &writer{batches: make(chan []crawl.Seed, 2), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		for b := range w.batches {
			if w.failed() {
				continue // drain: the first error ends the run
			}
			r, err := store(ctx, b)
			w.mu.Lock()
			w.rep.New, w.rep.Again, w.rep.Owed = w.rep.New+r.New, w.rep.Again+r.Again, w.rep.Owed+r.Owed
			w.n += len(b)
			if err != nil {
				w.err = fmt.Errorf("store seeds: %w", err)
			}
			w.mu.Unlock()
		}
	}()
	return w
}

func (w *writer) send(b []crawl.Seed) { w.batches <- b }

func (w *writer) failed() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err != nil
}

func (w *writer) stored() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.n
}

func (w *writer) close() (crawl.SeedReport, error) {
	close(w.batches)
	<-w.done
	return w.rep, w.err
}
