// Command benchcrawler measures the crawler stage end to end: it serves a
// generated news site on 127.0.0.1 (several hosts, hubs, articles with
// boilerplate, tracking/fragment duplicate links, feeds, sitemaps), runs
// the real bin/crawler as a child process through Redis Streams and
// Postgres (its own servers by default; a scratch schema and key prefix,
// CRAWL_ALLOW_PRIVATE=1), seeds
// it, and waits until the crawl stream is idle — once with politeness off
// and once with a per-host delay, for each site size. The peer, colly v2
// from the nested module bench/colly, crawls the same site in the same run.
//
// Per run it prints pages/s, CPU per page and peak RSS of the crawler
// process alone, the total CPU per page of the crawler and the Redis and
// PostgreSQL it runs of its own (-own-servers; the site server is never
// counted) with the Redis commands and PostgreSQL statements per page
// (counts the machine's load does not blur, as it does CPU), and
// the duplicate fetches the site counted (requests per URL with tracking
// parameters removed, minus one); with a delay, the gaps between requests
// to one host as the site saw them, and the rate against the ceiling
// hosts / (delay + the site's median answer time, measured in the run).
// Its last line sums up against the targets of issue 3. BENCH_DEBUG=1
// keeps each crawler's log (debug level) in $TMPDIR/<prefix>.log, lists
// the URLs fetched twice and each host's gaps over 30 ms, and prints the
// servers' Redis commandstats and busiest statements.
// Settings of the crawler not set here (CRAWL_MAX_WAIT, …) pass through
// from the environment.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newscrawl/newscrawl/internal/config"
)

// maxDepth is the seed's link depth: the deepest page of the site (a
// related article of an article of a section of another edition) is at 4.
const maxDepth = 5

// options are the bench's settings.
type options struct {
	sizes       []int
	delay       time.Duration
	hosts       int
	concurrency int
	timeout     time.Duration
	redisURL    string
	databaseURL string
	crawlerBin  string
	collyDir    string
	collyBin    string
	colly       bool
	padKB       int
	hostile     bool
	window      time.Duration // > 0: measure the polite crawl over this long, not to its end
	servers     *servers      // the bench's own Redis and PostgreSQL, nil when -own-servers=false
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "benchcrawler:", err)
		os.Exit(1)
	}
}

func run() error {
	s := config.NewSet(flag.CommandLine)
	common := config.BindCommon(s, "")
	sizes := flag.String("n", "2000,10000", "site sizes in articles, comma-separated")
	delay := flag.Duration("delay", 20*time.Millisecond, "per-host delay of the polite runs (0: skip them)")
	hosts := flag.Int("hosts", 8, "hosts (listeners on 127.0.0.1) the site is spread over")
	concurrency := flag.Int("concurrency", 16, "CRAWL_CONCURRENCY, and colly's parallelism per host")
	timeout := flag.Duration("timeout", 10*time.Minute, "longest time one crawl may take")
	crawlerBin := flag.String("crawler", "", "crawler binary to run (default: go build ./cmd/crawler into a temp dir)")
	collyDir := flag.String("colly-dir", "bench/colly", "directory of the colly peer's module")
	withColly := flag.Bool("colly", true, "run the colly peer too")
	padKB := flag.Int("pad-kb", 0, "pad every article page to about this many KiB more (the memory case: -n 24 -pad-kb 9728)")
	window := flag.Duration("for", 0, "measure the polite crawl for this long instead of to its end, with its memory every 30 s, and skip the no-delay run (the many-hosts case: -n 60000 -hosts 200 -delay 1s -for 5m -colly=false)")
	ownServers := flag.Bool("own-servers", true, "run a Redis and a PostgreSQL of the bench's own, so the total CPU per page counts no other tenant's work (false: REDIS_URL and DATABASE_URL, crawler CPU only)")
	hostile := flag.Bool("hostile", false, "host 0 also serves gzip bombs, 500,000-link, 9.5 MB, 1.2M-tag and 100,000-deep pages, four of each (the hostile memory case: -n 200 -delay 0 -colly=false -hostile)")
	if err := s.Parse(os.Args[1:]); err != nil {
		return err
	}
	o := &options{delay: *delay, hosts: *hosts, concurrency: *concurrency, timeout: *timeout,
		redisURL: *common.RedisURL, databaseURL: *common.DatabaseURL, crawlerBin: *crawlerBin,
		collyDir: *collyDir, colly: *withColly, padKB: *padKB, hostile: *hostile, window: *window}
	for _, f := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < o.hosts {
			return fmt.Errorf("-n: %q is not a size of at least %d", f, o.hosts)
		}
		o.sizes = append(o.sizes, n)
	}
	ctx := context.Background()
	fmt.Println(machineLine(o))
	if *ownServers {
		sv, err := startServers()
		if err != nil {
			return err
		}
		defer sv.close()
		o.servers, o.redisURL, o.databaseURL = sv, sv.redis.URL(), sv.pg.URL("postgres")
		fmt.Printf("servers: the bench's own Redis (port %d) and PostgreSQL (port %d); total = the crawler + both servers\n", sv.redis.Port, sv.pg.Port)
	}

	tmp, err := os.MkdirTemp("", "benchcrawler")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if o.crawlerBin == "" {
		o.crawlerBin = filepath.Join(tmp, "crawler")
		if out, err := exec.CommandContext(ctx, goTool(), "build", "-o", o.crawlerBin, "./cmd/crawler").CombinedOutput(); err != nil {
			return fmt.Errorf("go build ./cmd/crawler (run from the repository root): %w: %s", err, out)
		}
	}
	if o.colly {
		if o.collyBin, err = buildPeer(ctx, o.collyDir, tmp); err != nil {
			fmt.Printf("colly: not measured here (%v)\n", err)
			fmt.Println("colly v2.3.0, reference from issue 3, not measured here: ~250 pages/s, ~3.2 ms CPU/page, 8% duplicate fetches, peak RSS 50 MB at 2k pages and 143-207 MB at 10k")
			o.colly = false
		}
	}

	opt, err := redis.ParseURL(o.redisURL)
	if err != nil {
		return fmt.Errorf("parse REDIS_URL: %w", err)
	}
	rdb := redis.NewClient(opt)
	if o.servers != nil {
		rdb.AddHook(&o.servers.benchCmds)
	}
	defer rdb.Close()
	if err := rdb.Ping(ctx).Err(); err != nil {
		return fmt.Errorf("connect redis: %w", err)
	}

	delays := []time.Duration{0}
	if o.delay > 0 {
		delays = append(delays, o.delay)
	}
	if o.window > 0 && o.delay > 0 {
		delays = delays[1:] // a window measures the polite crawl alone
	}
	fmt.Printf("definitions: pages = distinct URLs fetched (tracking parameters removed); dup = requests - pages; " +
		"cpu = user+system CPU of the crawler process alone during the crawl, per page; RSS = its peak resident set\n")
	var results []result
	for _, n := range o.sizes {
		st, err := newSite(n, o.hosts, o.padKB, o.hostile)
		if err != nil {
			return err
		}
		fmt.Printf("site n=%d: %d articles on %d hosts, %d URLs to fetch (hubs, feeds, sitemaps, robots.txt included), %d tracking/fragment variant links, %d disallowed URLs\n",
			n, n, o.hosts, st.pageCount(), st.variants, o.hosts)
		for _, d := range delays {
			st.reset()
			r, err := ours(ctx, o, rdb, st, d)
			if err != nil {
				st.close()
				return fmt.Errorf("newscrawl n=%d delay=%s: %w", n, d, err)
			}
			fmt.Println(r.line(o))
			results = append(results, r)
			if o.colly {
				st.reset()
				r, err := peer(ctx, o, st, d)
				if err != nil {
					st.close()
					return fmt.Errorf("colly n=%d delay=%s: %w", n, d, err)
				}
				fmt.Println(r.line(o))
				results = append(results, r)
			}
		}
		st.close()
	}
	fmt.Println(summary(o, results))
	return nil
}

func (r result) pagesPerSec() float64 { return float64(r.site.pages) / r.wall.Seconds() }
func (r result) cpuPerPage() time.Duration {
	return r.cpu / time.Duration(max(r.site.pages, 1))
}

func (r result) totalPerPage() time.Duration {
	return (r.cpu + r.serverCPU) / time.Duration(max(r.site.pages, 1))
}

// line prints one run.
func (r result) line(o *options) string {
	d := "off"
	if r.delay > 0 {
		d = r.delay.String()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%-9s n=%-6d delay=%-5s %6.0f pages/s  cpu %.2f ms/page", r.who, r.n, d, r.pagesPerSec(), ms(r.cpuPerPage()))
	if r.who == "newscrawl" && o.servers != nil {
		fmt.Fprintf(&b, "  total %.2f ms/page", ms(r.totalPerPage()))
		pages := float64(max(r.site.pages, 1))
		fmt.Fprintf(&b, "  redis %.1f cmds/page (in scripts too)  pg %.1f stmts/page", float64(r.calls.redis)/pages, float64(r.calls.pg)/pages)
	}
	fmt.Fprintf(&b, "  peak RSS %5.1f MB  pages %d  requests %d  dup %d (%.1f%%)  disallowed fetched %d  articles %d/%d  wall %.2fs",
		float64(r.rssKB)/1024, r.site.pages, r.site.requests, r.site.duplicates, 100*float64(r.site.duplicates)/float64(max(r.site.pages, 1)),
		r.site.disallowed, r.site.articles, r.n, r.wall.Seconds())
	if r.who == "newscrawl" {
		fmt.Fprintf(&b, "  documents %d  clean msgs %d  dlq %d", r.docs, r.cleaned, r.dlq)
	} else {
		fmt.Fprintf(&b, "  errors %d", r.errors)
	}
	if r.delay > 0 {
		ceiling := float64(o.hosts) / (r.delay + r.site.medianAnswer).Seconds()
		fmt.Fprintf(&b, "  server-side gaps per host: min %.1fms p1 %.1fms median %.1fms, %.2f%% below the delay (ceiling %d hosts / (%s + median answer %.2fms) = %.0f pages/s; %.2f of it)",
			ms(r.site.minGap), ms(r.site.p1Gap), ms(r.site.medianGap), 100*r.site.belowFrac(r.delay), o.hosts, r.delay, ms(r.site.medianAnswer), ceiling, r.pagesPerSec()/ceiling)
	}
	if len(r.rssSeries) > 0 {
		mb := make([]string, len(r.rssSeries))
		for i, kb := range r.rssSeries {
			mb[i] = fmt.Sprintf("%.0f", float64(kb)/1024)
		}
		fmt.Fprintf(&b, "  RSS every 30 s: %s MB (over a %s window)", strings.Join(mb, " "), o.window)
	}
	fmt.Fprintf(&b, "  load %s", loadAvg())
	return b.String()
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// summary compares the runs with issue 3's targets: zero duplicate
// fetches, CPU per page no higher than colly's, peak RSS at the largest
// size within 1.3x of that at the smallest.
func summary(o *options, rs []result) string {
	find := func(who string, n int, d time.Duration) *result {
		for i := range rs {
			if rs[i].who == who && rs[i].n == n && rs[i].delay == d {
				return &rs[i]
			}
		}
		return nil
	}
	dups := map[string]int{}
	for _, r := range rs {
		dups[r.who] += r.site.duplicates
	}
	var b strings.Builder
	fmt.Fprintf(&b, "summary: duplicate fetches newscrawl %d", dups["newscrawl"])
	if o.colly {
		fmt.Fprintf(&b, ", colly %d", dups["colly"])
	}
	delays := []time.Duration{0}
	if o.delay > 0 {
		delays = append(delays, o.delay)
	}
	if o.window > 0 && o.delay > 0 {
		delays = delays[1:] // a window measures the polite crawl alone
	}
	small, large := o.sizes[0], o.sizes[len(o.sizes)-1]
	for _, d := range delays {
		mode := "politeness off"
		if d > 0 {
			mode = "delay " + d.String()
		}
		fmt.Fprintf(&b, "; %s:", mode)
		if small != large {
			for _, who := range []string{"newscrawl", "colly"} {
				if a, z := find(who, small, d), find(who, large, d); a != nil && z != nil {
					fmt.Fprintf(&b, " %s RSS n=%d/n=%d %.2fx", who, large, small, float64(z.rssKB)/float64(a.rssKB))
				}
			}
			b.WriteString(" (target <= 1.3x);")
		}
		b.WriteString(" cpu/page")
		for _, n := range o.sizes {
			if a := find("newscrawl", n, d); a != nil {
				fmt.Fprintf(&b, " n=%d %.2f ms", n, ms(a.cpuPerPage()))
			}
			if z := find("colly", n, d); z != nil {
				fmt.Fprintf(&b, " (colly %.2f)", ms(z.cpuPerPage()))
			}
		}
	}
	return b.String()
}

// machineLine describes the box: CPU model and count, Go, load average.
func machineLine(o *options) string {
	model := "unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(l, "model name"); ok {
				model = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(v), ":"))
				break
			}
		}
	}
	return fmt.Sprintf("machine: %s/%s, %d CPUs (%s), %s, load avg %s; sizes %v, %d hosts, delay %s, concurrency %d",
		runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), model, runtime.Version(), loadAvg(), o.sizes, o.hosts, o.delay, o.concurrency)
}

// loadAvg is the 1-, 5- and 15-minute load average (a shared box: other
// work running beside the bench shows here).
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}

// goTool is the go command: the one on PATH, else the one of the
// toolchain that built this program (make passes its own GO).
func goTool() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return filepath.Join(runtime.GOROOT(), "bin", "go")
}
