package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/newscrawl/newscrawl/internal/crawl/urlnorm"
	"github.com/newscrawl/newscrawl/internal/forget"
	"github.com/newscrawl/newscrawl/internal/pipeline"
	"github.com/newscrawl/newscrawl/internal/search"
	"github.com/newscrawl/newscrawl/internal/store"
)

// runForget implements "newsctl forget URL... | --host H | --before DATE |
// --older-than AGE [--frontier keep|drop] [--dry-run] [--every D]".
func runForget(ctx context.Context, args []string) error {
	s, c := settings("forget")
	fs := s.FlagSet()
	host := fs.String("host", "", "every document of this host")
	before := fs.String("before", "", "documents published (or, undated, first seen) before this date (YYYY-MM-DD or RFC 3339)")
	olderThan := fs.String("older-than", "", "documents older than this age, e.g. 90d or 2160h (retention; with --every, on a schedule)")
	frontier := fs.String("frontier", "keep", "keep: the URLs stay known and are never crawled again (takedown); drop: forget the URLs too, so a later discovery crawls them anew")
	dryRun := fs.Bool("dry-run", false, "count what would be removed; remove nothing")
	reason := fs.String("reason", "", "stored with each tombstone (default: takedown, or retention with --older-than)")
	every := fs.Duration("every", 0, "with --older-than: run again at this interval until stopped (a retention worker)")
	asJSON := fs.Bool("json", false, "print the counts as JSON")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: newsctl forget [flags] [URL...]\n\nRemoves documents from everywhere the pipeline keeps them (raw page, cleaned text,\nextractions, chunks, SimHash bands, ledger keys, and with --frontier drop the URL).\nSafe while the pipeline runs; running it again removes nothing more.")
		fs.PrintDefaults()
	}
	if err := s.Parse(args); err != nil {
		return err
	}
	urls, err := positional(fs)
	if err != nil {
		return err
	}
	var sel forget.Selector
	for _, u := range urls {
		n, err := urlnorm.Normalize(u)
		if err != nil {
			return fmt.Errorf("%q is not a URL the crawler would have fetched: %w", u, err)
		}
		sel.DocIDs = append(sel.DocIDs, pipeline.DocID(n))
	}
	sel.Host = strings.TrimSpace(*host)
	if *before != "" {
		t, err := search.ParseDate(*before, false)
		if err != nil {
			return err
		}
		sel.Before = *t
	}
	var age time.Duration
	if *olderThan != "" {
		if age, err = parseAge(*olderThan); err != nil {
			return err
		}
	}
	if *every > 0 && age == 0 {
		return fmt.Errorf("--every needs --older-than (a schedule of a fixed date would remove nothing new)")
	}
	o := forget.Options{Frontier: forget.Frontier(*frontier), DryRun: *dryRun, Reason: *reason}
	if o.Reason == "" {
		o.Reason = "takedown"
		if age > 0 {
			o.Reason = "retention"
		}
	}
	pool, err := store.Open(ctx, *c.DatabaseURL)
	if err != nil {
		return err
	}
	defer pool.Close()
	for {
		if age > 0 {
			sel.Before = time.Now().Add(-age)
		}
		start := time.Now()
		n, err := forget.Run(ctx, pool, sel, o)
		if err != nil {
			return err
		}
		if *asJSON {
			_ = json.NewEncoder(os.Stdout).Encode(n)
		} else {
			verb := "forgot"
			if o.DryRun {
				verb = "would forget"
			}
			fmt.Printf("%s %d document(s) in %s: %d raw pages, %d cleaned, %d extractions, %d chunks, %d SimHash bands, %d ledger keys, %d URLs (frontier %s)\n",
				verb, n.Documents, time.Since(start).Round(time.Millisecond), n.Fetched, n.Cleaned, n.Extractions, n.Chunks, n.Bands, n.Ledger, n.URLs, o.Frontier)
		}
		if *every <= 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(*every):
		}
	}
}
