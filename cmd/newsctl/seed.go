package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/netip"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/newscrawl/newscrawl/internal/config"
	"github.com/newscrawl/newscrawl/internal/crawl"
	"github.com/newscrawl/newscrawl/internal/crawl/fetch"
	"github.com/newscrawl/newscrawl/internal/crawl/urlnorm"
	"github.com/newscrawl/newscrawl/internal/pipeline"
	"github.com/newscrawl/newscrawl/internal/store"
	"github.com/newscrawl/newscrawl/pkg/streamkit"
)

// hostList collects repeatable --allow-host values.
type hostList []string

func (h *hostList) String() string { return strings.Join(*h, ",") }
func (h *hostList) Set(v string) error {
	*h = append(*h, crawl.SplitHosts(v)...)
	return nil
}

// runSeed records the seed URLs in the frontier, where the crawlers' feeder
// takes them onto the crawl stream as it has room: seed returns at once,
// whatever the number. A URL already waiting for a fetch is left as it is;
// one fetched before is owed a new fetch (conditional). A URL the crawler
// would not fetch — one that does not normalize, a host that does not
// resolve, an address its SSRF guard refuses — is refused with the
// reason, and seed then exits 1 after queueing the others.
func runSeed(ctx context.Context, args []string) error {
	s, c := settings("seed")
	fs := s.FlagSet()
	file := fs.String("file", "", "read seed URLs from this file (one per line, # comments; - for stdin)")
	maxDepth := fs.Int("max-depth", 0, "link depth to follow from each seed (default: the crawler's CRAWL_MAX_DEPTH)")
	recrawl := fs.Duration("recrawl", 0, "recrawl interval of hubs from these seeds (default: the crawler's CRAWL_RECRAWL_INTERVAL)")
	allowPrivate := s.Bool("CRAWL_ALLOW_PRIVATE", false, "judge seeds as a crawler with this setting would, when no crawler is running")
	allowCIDRs := s.String("CRAWL_ALLOW_CIDRS", "", "judge seeds as a crawler with this setting would, when no crawler is running")
	var hosts hostList
	fs.Var(&hosts, "allow-host", "host the crawl may follow links to, subdomains included (repeatable; default: each seed's registrable domain)")
	if err := s.Parse(args); err != nil {
		return err
	}
	seeds, err := positional(fs)
	if err != nil {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if *file != "" {
		more, err := readSeeds(*file)
		if err != nil {
			return err
		}
		seeds = append(seeds, more...)
	}
	if len(seeds) == 0 {
		return errors.New("no seed URLs: give them as arguments or with --file")
	}
	rdb, err := redisOnly(ctx, c)
	if err != nil {
		return err
	}
	defer rdb.Close()
	var rc *time.Duration
	if set["recrawl"] { // --recrawl 0: never recrawl these hubs
		rc = recrawl
	}
	depth := -1           // the crawler's default
	if set["max-depth"] { // --max-depth 0: the seed alone
		depth = *maxDepth
	}
	guard, err := crawlerGuard(ctx, adminOf(rdb, c), *allowPrivate, *allowCIDRs)
	if err != nil {
		return err
	}
	var ok []crawl.Seed
	var refused []string
	for _, u := range seeds {
		if why := guard.check(ctx, u); why != "" {
			refused = append(refused, fmt.Sprintf("  %s: %s", u, why))
			continue
		}
		ok = append(ok, crawl.Seed{URL: u, MaxDepth: depth, Hosts: hosts, Recrawl: rc})
	}
	var rep crawl.SeedReport
	if len(ok) > 0 {
		if rep, err = recordSeeds(ctx, c, ok); err != nil {
			return err
		}
	}
	fmt.Printf("queued %d of %d URL(s): %d new to the frontier, %d fetched before and owed a new fetch, %d already waiting\n",
		len(ok), len(seeds), rep.New, rep.Again, rep.Owed)
	if len(refused) > 0 {
		fmt.Fprintf(os.Stderr, "refused %d (the crawler would not fetch them; judged with %s):\n%s\n", len(refused), guard.source, strings.Join(refused, "\n"))
		return exitCode(1)
	}
	return nil
}

// recordSeeds puts the seeds in the frontier, in PostgreSQL.
func recordSeeds(ctx context.Context, c config.Common, seeds []crawl.Seed) (crawl.SeedReport, error) {
	pool, err := store.Open(ctx, *c.DatabaseURL)
	if err != nil {
		return crawl.SeedReport{}, err
	}
	defer pool.Close()
	if _, err := store.Migrate(ctx, pool); err != nil { // the frontier may be older than this newsctl
		return crawl.SeedReport{}, err
	}
	return crawl.SeedFrontier(ctx, pool, seeds)
}

// A seedGuard judges a seed as the running crawlers would: its host must
// resolve, and every address it resolves to must pass their SSRF guard.
type seedGuard struct {
	allowPrivate bool
	allow        []netip.Prefix
	source       string // whose settings: the running crawlers', or this shell's
	resolved     map[string][]netip.Addr
}

// crawlerGuard takes the SSRF settings from the running crawlers' status
// records, falling back to this command's own environment without any.
func crawlerGuard(ctx context.Context, admin *streamkit.Admin, allowPrivate bool, allowCIDRs string) (*seedGuard, error) {
	g := &seedGuard{source: "this shell's CRAWL_ALLOW_PRIVATE/CRAWL_ALLOW_CIDRS: no crawler is running", resolved: map[string][]netip.Addr{}}
	if sts, err := admin.Consumers(ctx, pipeline.Crawl); err == nil && len(sts) > 0 {
		allowPrivate, allowCIDRs = sts[0].Settings["allow_private"] == "true", sts[0].Settings["allow_cidrs"]
		g.source = fmt.Sprintf("the running crawler's settings (CRAWL_ALLOW_PRIVATE=%v, CRAWL_ALLOW_CIDRS=%q)", allowPrivate, allowCIDRs)
	}
	g.allowPrivate = allowPrivate
	for _, f := range strings.FieldsFunc(allowCIDRs, func(r rune) bool { return r == ',' || r == ' ' }) {
		p, err := netip.ParsePrefix(f)
		if err != nil {
			return nil, fmt.Errorf("CRAWL_ALLOW_CIDRS: %q: %w", f, err)
		}
		g.allow = append(g.allow, p)
	}
	return g, nil
}

// check returns why raw would not be fetched, or "".
func (g *seedGuard) check(ctx context.Context, raw string) string {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return "only http and https URLs are crawled"
	}
	if _, err := urlnorm.Normalize(raw); err != nil {
		return err.Error()
	}
	host := u.Hostname()
	addrs, ok := g.resolved[host]
	if !ok {
		rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		found, err := net.DefaultResolver.LookupNetIP(rctx, "ip", host)
		cancel()
		if err != nil {
			return fmt.Sprintf("%s does not resolve from here (%v)", host, err)
		}
		addrs = found
		g.resolved[host] = addrs
	}
	for _, a := range addrs {
		a = a.Unmap()
		if g.allowPrivate || !fetch.Blocked(a) || slices.ContainsFunc(g.allow, func(p netip.Prefix) bool { return p.Contains(a) }) {
			continue
		}
		return fmt.Sprintf("%s is %s, a private, loopback or link-local address the SSRF guard refuses; "+
			"start the crawler with CRAWL_ALLOW_CIDRS=%s (that range only) or CRAWL_ALLOW_PRIVATE=1", host, a, netip.PrefixFrom(a, a.BitLen()))
	}
	return ""
}

// readSeeds reads one URL per line; blank lines and # comments are skipped.
func readSeeds(path string) ([]string, error) {
	var r io.Reader = os.Stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, fmt.Errorf("open seed file: %w", err)
		}
		defer f.Close()
		r = f
	}
	var out []string
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		if i := strings.Index(line, "#"); i == 0 || (i > 0 && (line[i-1] == ' ' || line[i-1] == '\t')) {
			line = line[:i]
		}
		if line = strings.TrimSpace(line); line != "" {
			out = append(out, line)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read seed file %s: %w", path, err)
	}
	return out, nil
}
