package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/newscrawl/newscrawl/internal/extract"
)

// runReextract implements "newsctl reextract [flags] [DOC_ID...]".
func runReextract(ctx context.Context, args []string) error {
	s, c := settings("reextract")
	fs := s.FlagSet()
	since := fs.String("since", "", "only documents cleaned at or after this time (RFC 3339 or YYYY-MM-DD)")
	limit := fs.Int("limit", 0, "enqueue at most this many (0 = all)")
	skipped := fs.Bool("include-duplicates", false, "also enqueue duplicates and non-articles")
	missing := fs.String("missing", "", "only documents with no extraction by PROVIDER or PROVIDER/MODEL yet (e.g. openai/llama3.1:8b)")
	fallbacks := fs.Bool("fallbacks", false, "only documents whose model extraction fell back to the heuristic one (for the model of EXTRACT_PROVIDER/EXTRACT_MODEL, or --fallbacks-of)")
	fallbacksOf := fs.String("fallbacks-of", "", "with --fallbacks: the PROVIDER/MODEL that failed (default openai/$EXTRACT_MODEL)")
	model := s.String("EXTRACT_MODEL", "", "the extractor's model (names the model whose fallbacks --fallbacks re-runs)")
	highWater := fs.Int64("high-water", 10000, "pause while the extract stage has this much waiting")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: newsctl reextract [flags] [DOC_ID...]\n\nEnqueues extract messages; the extractor re-runs those whose provider/model/prompt version changed.")
		fs.PrintDefaults()
	}
	if err := s.Parse(args); err != nil {
		return err
	}
	b := extract.Backfill{DocIDs: fs.Args(), Limit: *limit, IncludeSkipped: *skipped}
	if *since != "" {
		t, err := parseSince(*since)
		if err != nil {
			return err
		}
		b.Since = t
	}
	if *missing != "" {
		b.MissingProvider, b.MissingModel, _ = strings.Cut(*missing, "/")
	}
	if *fallbacks {
		b.Fallbacks = *fallbacksOf
		if b.Fallbacks == "" {
			if *model == "" {
				return fmt.Errorf("--fallbacks: set EXTRACT_MODEL (as the extractor has it) or --fallbacks-of PROVIDER/MODEL")
			}
			b.Fallbacks = extract.ProviderOpenAI + "/" + *model
		}
		b.Rerun = rerunNonce()
	}
	rdb, pool, closeAll, err := connect(ctx, c, 0)
	if err != nil {
		return err
	}
	defer closeAll()
	n, err := extract.Enqueue(ctx, pool, producer(rdb, c, *highWater), b)
	if *fallbacks {
		fmt.Printf("enqueued %d documents whose %s extraction fell back\n", n, b.Fallbacks)
		return err
	}
	fmt.Printf("enqueued %d documents for extraction\n", n)
	return err
}

func parseSince(s string) (time.Time, error) {
	for _, layout := range []string{time.RFC3339, "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("--since %q: want RFC 3339 or YYYY-MM-DD", s)
}

// rerunNonce is a fresh nonce for a re-run's idempotency keys.
func rerunNonce() string { return time.Now().UTC().Format("20060102T150405.000") }
