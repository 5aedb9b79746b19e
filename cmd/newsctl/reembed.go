package main

import (
	"context"
	"fmt"

	"github.com/newscrawl/newscrawl/internal/embed"
	"github.com/newscrawl/newscrawl/internal/search"
)

// runReembed implements "newsctl reembed [flags] [DOC_ID...]".
func runReembed(ctx context.Context, args []string) error {
	s, c := settings("reembed")
	fs := s.FlagSet()
	host := fs.String("host", "", "only articles from HOST")
	lang := fs.String("lang", "", "only articles in language LANG")
	since := fs.String("since", "", "only articles published at or after DATE (YYYY-MM-DD or RFC 3339)")
	until := fs.String("until", "", "only articles published before DATE; a bare date includes that day")
	limit := fs.Int("limit", 0, "enqueue at most this many (0 = all)")
	skipped := fs.Bool("include-duplicates", false, "also enqueue duplicates and non-articles")
	highWater := fs.Int64("high-water", 10000, "pause while the embed stage has this much waiting")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: newsctl reembed [flags] [DOC_ID...]\n\nEnqueues embed messages; the embedder embeds those not yet embedded with its current model and dimension.")
		fs.PrintDefaults()
	}
	if err := s.Parse(args); err != nil {
		return err
	}
	b := embed.Backfill{DocIDs: fs.Args(), Host: *host, Lang: *lang, Limit: *limit, IncludeSkipped: *skipped}
	var err error
	if b.Since, err = search.ParseDate(*since, false); err != nil {
		return fmt.Errorf("--since: %w", err)
	}
	if b.Until, err = search.ParseDate(*until, true); err != nil {
		return fmt.Errorf("--until: %w", err)
	}
	rdb, pool, closeAll, err := connect(ctx, c, 0)
	if err != nil {
		return err
	}
	defer closeAll()
	n, err := embed.Enqueue(ctx, pool, producer(rdb, c, *highWater), b)
	fmt.Printf("enqueued %d documents for embedding\n", n)
	return err
}
