package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/newscrawl/newscrawl/internal/crawl"
	"github.com/newscrawl/newscrawl/internal/crawl/fetch"
	"github.com/newscrawl/newscrawl/internal/pipeline"
	"github.com/newscrawl/newscrawl/internal/seed"
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
// takes them onto the crawl stream as it has room. A URL already waiting
// for a fetch is left as it is; one fetched before is owed a new fetch
// (conditional). A URL the crawler would not fetch — one that does not
// normalize, a host that does not resolve, an address its SSRF guard
// refuses — is refused with the reason (a host once, with its count of
// URLs), and seed then exits 1 after queueing the others. Hosts are judged
// concurrently, each once, under --resolve-deadline for the whole run, and
// URLs are stored in batches as their hosts pass (internal/seed).
func runSeed(ctx context.Context, args []string) error {
	s, c := settings("seed")
	fs := s.FlagSet()
	file := fs.String("file", "", "read seed URLs from this file (one per line, # comments; - for stdin)")
	maxDepth := fs.Int("max-depth", 0, "link depth to follow from each seed (default: the crawler's CRAWL_MAX_DEPTH)")
	recrawl := fs.Duration("recrawl", 0, "recrawl interval of hubs from these seeds (default: the crawler's CRAWL_RECRAWL_INTERVAL)")
	deadline := fs.Duration("resolve-deadline", seed.DefaultDeadline, "time for resolving every host name of the run; hosts not judged by then are refused")
	lookups := fs.Int("lookups", seed.DefaultLookups, "host names resolved at once")
	allowPrivate := s.Bool("CRAWL_ALLOW_PRIVATE", false, "judge seeds as a crawler with this setting would, when no crawler is running")
	allowCIDRs := s.String("CRAWL_ALLOW_CIDRS", "", "judge seeds as a crawler with this setting would, when no crawler is running")
	var hosts hostList
	fs.Var(&hosts, "allow-host", "host the crawl may follow links to, subdomains included (repeatable; default: each seed's registrable domain)")
	if err := s.Parse(args); err != nil {
		return err
	}
	urls, err := positional(fs)
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
		urls = append(urls, more...)
	}
	if len(urls) == 0 {
		return errors.New("no seed URLs: give them as arguments or with --file")
	}
	rdb, err := redisOnly(ctx, c)
	if err != nil {
		return err
	}
	defer rdb.Close()
	tmpl := crawl.Seed{MaxDepth: -1, Hosts: hosts} // -1: the crawler's default depth
	if set["recrawl"] {                            // --recrawl 0: never recrawl these hubs
		tmpl.Recrawl = recrawl
	}
	if set["max-depth"] { // --max-depth 0: the seed alone
		tmpl.MaxDepth = *maxDepth
	}
	guard, source, err := crawlerGuard(ctx, adminOf(rdb, c), *allowPrivate, *allowCIDRs)
	if err != nil {
		return err
	}
	var pool *pgxpool.Pool // opened for the first batch: refusing everything needs no database
	defer func() {
		if pool != nil {
			pool.Close()
		}
	}()
	into := func(ctx context.Context, seeds []crawl.Seed) (crawl.SeedReport, error) {
		if pool == nil {
			p, err := store.Open(ctx, *c.DatabaseURL)
			if err != nil {
				return crawl.SeedReport{}, err
			}
			pool = p
			if _, err := store.Migrate(ctx, pool); err != nil { // the frontier may be older than this newsctl
				return crawl.SeedReport{}, err
			}
		}
		return crawl.SeedFrontier(ctx, pool, seeds)
	}
	rep, err := seed.Run(ctx, urls, into, seed.Config{Guard: guard, Template: tmpl, Deadline: *deadline, Lookups: *lookups, Progress: os.Stderr})
	if err != nil {
		return err
	}
	fmt.Printf("queued %d of %d URL(s): %d new to the frontier, %d fetched before and owed a new fetch, %d already waiting\n",
		rep.Queued, rep.Read, rep.Frontier.New, rep.Frontier.Again, rep.Frontier.Owed)
	if len(rep.Refused) > 0 {
		printRefused(rep, source)
		return exitCode(1)
	}
	return nil
}

// maxRefusedURLs bounds the single URLs listed as refused; the rest are
// counted. Refused hosts are each listed, once, with their count of URLs.
const maxRefusedURLs = 50

func printRefused(rep seed.Report, source string) {
	fmt.Fprintf(os.Stderr, "refused %d URL(s) (the crawler would not fetch them; judged with %s):\n", rep.RefusedURLs(), source)
	urls := 0
	for _, r := range rep.Refused {
		switch {
		case r.Host:
			fmt.Fprintf(os.Stderr, "  %s (%d URL(s)): %s\n", r.What, r.URLs, r.Why)
		case urls < maxRefusedURLs:
			fmt.Fprintf(os.Stderr, "  %s: %s\n", r.What, r.Why)
			urls++
		default:
			urls++
		}
	}
	if urls > maxRefusedURLs {
		fmt.Fprintf(os.Stderr, "  … and %d more URL(s) that do not parse or are not http(s)\n", urls-maxRefusedURLs)
	}
}

// crawlerGuard takes the SSRF settings from the running crawlers' status
// records, falling back to this command's own environment without any; it
// says whose they are.
func crawlerGuard(ctx context.Context, admin *streamkit.Admin, allowPrivate bool, allowCIDRs string) (seed.Guard, string, error) {
	source := "this shell's CRAWL_ALLOW_PRIVATE/CRAWL_ALLOW_CIDRS: no crawler is running"
	if sts, err := admin.Consumers(ctx, pipeline.Crawl); err == nil && len(sts) > 0 {
		allowPrivate, allowCIDRs = sts[0].Settings["allow_private"] == "true", sts[0].Settings["allow_cidrs"]
		source = fmt.Sprintf("the running crawler's settings (CRAWL_ALLOW_PRIVATE=%v, CRAWL_ALLOW_CIDRS=%q)", allowPrivate, allowCIDRs)
	}
	allow, err := fetch.ParseCIDRs(allowCIDRs)
	if err != nil {
		return seed.Guard{}, "", err
	}
	return seed.Guard{AllowPrivate: allowPrivate, Allow: allow}, source, nil
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
