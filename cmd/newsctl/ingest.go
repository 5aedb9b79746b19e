package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"regexp"
	"runtime/debug"
	"sort"
	"strings"
	"time"

	"github.com/newscrawl/newscrawl/internal/crawl"
	"github.com/newscrawl/newscrawl/internal/crawl/fetch"
	"github.com/newscrawl/newscrawl/internal/ingest"
	"github.com/newscrawl/newscrawl/internal/store"
	"github.com/newscrawl/newscrawl/pkg/streamkit"
)

// gcPercent is ingest's GOGC unless the environment sets one.
const gcPercent = 200

// runIngest takes WARC files in (internal/ingest): each kept record is
// stored as the crawler would have stored its fetch and sent to the
// cleaner. It exits 1 when a source could not be read to its end (its
// checkpoint kept for the next run).
func runIngest(ctx context.Context, args []string) error {
	if os.Getenv("GOGC") == "" {
		// Ingest's heap is mostly bodies passing through. Collecting at 3×
		// the live heap instead of 2× took a tenth off its CPU (20,000
		// records, two runs each: 12.3–12.5 -> 10.3–11.3 CPU-seconds; peak
		// RSS 92 -> 129 MB).
		debug.SetGCPercent(gcPercent)
	}
	s, c := settings("ingest")
	fs := s.FlagSet()
	var hosts hostList
	fs.Var(&hosts, "host", "keep records of this exact host (repeatable; default: every host)")
	subdomains := fs.Bool("include-subdomains", false, "--host also keeps the host's subdomains")
	pattern := fs.String("url-pattern", "", "keep records whose target URI matches this regular expression")
	since := fs.String("since", "", "keep records captured (WARC-Date) at or after this date or time (2024-03-01, RFC 3339)")
	until := fs.String("until", "", "keep records captured before this date or time")
	status := fs.Int("status", 200, "keep records of this HTTP status (0: any)")
	limit := fs.Int64("limit", 0, "stop after storing this many documents (0: no limit)")
	parallel := fs.Int("parallel", ingest.DefaultParallel, "sources read at once")
	restart := fs.Bool("restart", false, "read sources that an earlier run finished again")
	baseURL := fs.String("base-url", "", "prefix of the paths in a listing (https://data.commoncrawl.org/ for warc.paths.gz)")
	discover := fs.Bool("discover", false, "put the archived pages' links in the frontier for a live crawl (off: an archive enqueues nothing)")
	asJSON := fs.Bool("json", false, "print the summary as one JSON object")
	highWater := s.Int64("CRAWL_HIGH_WATER", streamkit.DefaultHighWater, "pause while the clean stage has more than this waiting (0: never)")
	maxBody := s.Int64("CRAWL_MAX_BODY", fetch.DefaultMaxBody, "largest payload kept; larger records are counted over_body_cap")
	maxDepth := s.Int("CRAWL_MAX_DEPTH", crawl.DefaultMaxDepth, "with --discover: the links' depth limit")
	maxURLs := s.Int64("CRAWL_MAX_URLS_PER_HOST", crawl.DefaultMaxURLsPerHost, "with --discover: URLs the frontier takes per host")
	allowPrivate := s.Bool("CRAWL_ALLOW_PRIVATE", false, "judge target URIs as a crawler with this setting would, when no crawler is running")
	allowCIDRs := s.String("CRAWL_ALLOW_CIDRS", "", "judge target URIs as a crawler with this setting would, when no crawler is running")
	if err := s.Parse(args); err != nil {
		return err
	}
	args, err := positional(fs)
	if err != nil {
		return err
	}
	if len(args) == 0 {
		return errors.New("no sources: give WARC files, directories, URLs, a listing (warc.paths.gz) or - for stdin")
	}
	f := ingest.Filter{Hosts: lowered(hosts), IncludeSubdomains: *subdomains, Status: *status}
	if *pattern != "" {
		if f.URLPattern, err = regexp.Compile(*pattern); err != nil {
			return fmt.Errorf("--url-pattern: %w", err)
		}
	}
	if f.Since, err = parseWhen("--since", *since); err != nil {
		return err
	}
	if f.Until, err = parseWhen("--until", *until); err != nil {
		return err
	}
	rdb, pool, closeAll, err := connect(ctx, c, 2*(*parallel)+4)
	if err != nil {
		return err
	}
	defer closeAll()
	if _, err := store.Migrate(ctx, pool); err != nil {
		return err
	}
	guard, source, err := crawlerGuard(ctx, adminOf(rdb, c), *allowPrivate, *allowCIDRs)
	if err != nil {
		return err
	}
	f.AllowPrivate, f.AllowCIDRs = guard.AllowPrivate, guard.Allow
	client := fetch.New(fetch.Config{AllowPrivate: guard.AllowPrivate, AllowCIDRs: guard.Allow}).Client()
	sources, err := ingest.Expand(ctx, args, *baseURL, client)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	arch := crawl.NewArchiver(pool, crawl.Config{MaxDepth: *maxDepth, MaxURLsPerHost: *maxURLs, Logger: log})
	arch.Discover = *discover
	fmt.Fprintf(os.Stderr, "ingest: %d source(s); addresses judged with %s\n", len(sources), source)
	rep, err := ingest.Run(ctx, ingest.Config{Pool: pool, Producer: producer(rdb, c, *highWater), Archiver: arch, Filter: f,
		Limit: *limit, Parallel: *parallel, Restart: *restart, MaxBody: *maxBody, Progress: os.Stderr, Logger: log}, sources)
	if err != nil {
		return err
	}
	if *asJSON {
		if rep.Filtered == nil {
			rep.Filtered = map[string]int64{}
		}
		if rep.Malformed == nil {
			rep.Malformed = map[string]int64{}
		}
		enc := json.NewEncoder(os.Stdout)
		if err := enc.Encode(rep); err != nil {
			return err
		}
	} else {
		printIngest(rep)
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if len(rep.Failures) > 0 {
		return exitCode(1)
	}
	return nil
}

func printIngest(rep ingest.Report) {
	fmt.Printf("read %d record(s) in %.1fs (%.0f/s): kept %d, duplicates %d, truncated %d\n",
		rep.Read, rep.Seconds, float64(rep.Read)/max(rep.Seconds, 0.001), rep.Kept, rep.Duplicates, rep.Truncated)
	fmt.Printf("sources: %d, read to the end %d, finished before %d, failed %d\n", rep.Sources, rep.Done, rep.Skipped, len(rep.Failures))
	for _, part := range []struct {
		name   string
		counts map[string]int64
	}{{"filtered", rep.Filtered}, {"malformed", rep.Malformed}} {
		if len(part.counts) == 0 {
			continue
		}
		keys := make([]string, 0, len(part.counts))
		for k := range part.counts {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var parts []string
		for _, k := range keys {
			parts = append(parts, fmt.Sprintf("%s %d", k, part.counts[k]))
		}
		fmt.Printf("%s: %s\n", part.name, strings.Join(parts, ", "))
	}
	for _, f := range rep.Failures {
		fmt.Fprintf(os.Stderr, "not read to its end (resumes at its checkpoint): %s: %s: %s\n", f.Source, f.Reason, f.Error)
	}
	if rep.Limited {
		fmt.Println("stopped at --limit; the next run resumes where this one stopped")
	}
}

func lowered(hosts []string) []string {
	out := make([]string, len(hosts))
	for i, h := range hosts {
		out[i] = strings.ToLower(strings.TrimSuffix(h, "."))
	}
	return out
}

// parseWhen reads a date (2024-03-01, UTC midnight) or an RFC 3339 time.
func parseWhen(flag, s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%s %q: want a date (2024-03-01) or an RFC 3339 time", flag, s)
}
