package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/newscrawl/newscrawl/internal/crawl"
	"github.com/newscrawl/newscrawl/internal/crawl/urlnorm"
	"github.com/newscrawl/newscrawl/internal/pipeline"
	"github.com/newscrawl/newscrawl/pkg/streamkit"
)

func init() {
	register("seed", "enqueue seed URLs for the crawler (args or --file, # comments)", runSeed)
}

// hostList collects repeatable --allow-host values.
type hostList []string

func (h *hostList) String() string { return strings.Join(*h, ",") }
func (h *hostList) Set(v string) error {
	*h = append(*h, crawl.SplitHosts(v)...)
	return nil
}

// runSeed publishes one crawl request per seed URL. Each seed gets a fresh
// nonce, so seeding a URL again fetches it again (conditionally). A URL
// that does not normalize is an error before anything is published.
func runSeed(ctx context.Context, args []string) error {
	s, c := settings("seed")
	fs := s.FlagSet()
	file := fs.String("file", "", "read seed URLs from this file (one per line, # comments; - for stdin)")
	maxDepth := fs.Int("max-depth", 0, "link depth to follow from each seed (default: the crawler's CRAWL_MAX_DEPTH)")
	recrawl := fs.Duration("recrawl", 0, "recrawl interval of hubs from these seeds (default: the crawler's CRAWL_RECRAWL_INTERVAL)")
	var hosts hostList
	fs.Var(&hosts, "allow-host", "host the crawl may follow links to, subdomains included (repeatable; default: each seed's registrable domain)")
	if err := s.Parse(args); err != nil {
		return err
	}
	// Flags may follow URLs: parse again after each positional argument.
	var seeds []string
	for rest := fs.Args(); len(rest) > 0; rest = fs.Args() {
		seeds = append(seeds, rest[0])
		if err := fs.Parse(rest[1:]); err != nil {
			return err
		}
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
	for _, u := range seeds {
		if _, err := urlnorm.Normalize(u); err != nil {
			return fmt.Errorf("seed %q: %w", u, err)
		}
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
	p := streamkit.NewProducer(rdb, *c.StreamPrefix, 0)
	for _, u := range seeds {
		f := crawl.RequestFields(u, 0, *maxDepth, hosts, rc, true, "", crawl.NewNonce(), "")
		if set["max-depth"] { // --max-depth 0: the seed alone
			f[crawl.FieldMaxDepth] = strconv.Itoa(*maxDepth)
		}
		if _, err := p.Publish(ctx, pipeline.Crawl, f); err != nil {
			return fmt.Errorf("seed %s: %w", u, err)
		}
	}
	fmt.Printf("seeded %d URL(s)\n", len(seeds))
	return nil
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
