package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/newscrawl/newscrawl/internal/config"
	"github.com/newscrawl/newscrawl/internal/crawl"
	"github.com/newscrawl/newscrawl/internal/pipeline"
	"github.com/newscrawl/newscrawl/internal/store"
	"github.com/newscrawl/newscrawl/pkg/streamkit"
)

func runStats(ctx context.Context, args []string) error {
	s, c := settings("stats")
	asJSON := s.FlagSet().Bool("json", false, "print a JSON array, one object per stage")
	watch := s.FlagSet().Duration("watch", 0, "refresh in place at this interval until interrupted (e.g. 2s)")
	if err := s.Parse(args); err != nil {
		return err
	}
	if *watch > 0 && !*asJSON {
		return watchStats(ctx, c, *watch)
	}
	stats, err := stageStats(ctx, c)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(stats)
	}
	printStats(stats)
	printDocuments(ctx, c)
	return nil
}

// printDocuments adds what PostgreSQL knows: pages stored, articles,
// duplicates and pages set aside, extractions by outcome, documents
// embedded. It says so in one line when the database cannot be reached.
func printDocuments(ctx context.Context, c config.Common) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	pool, err := store.Open(ctx, *c.DatabaseURL)
	if err != nil {
		fmt.Printf("\ndocuments: PostgreSQL not reachable (%v)\n", err)
		return
	}
	defer pool.Close()
	var pages, articles, dups, aside, model, partial, heuristic, fallbacks, embedded int64
	err = pool.QueryRow(ctx, `SELECT
		(SELECT count(*) FROM documents),
		(SELECT count(*) FROM cleaned WHERE searchable),
		(SELECT count(*) FROM cleaned WHERE duplicate_of IS NOT NULL),
		(SELECT count(*) FROM cleaned WHERE NOT is_article),
		(SELECT count(*) FROM latest_extractions WHERE fallback_for IS NULL AND provider <> 'heuristic'),
		(SELECT count(*) FROM latest_extractions WHERE fallback_for IS NULL AND cardinality(invalid_fields) > 0),
		(SELECT count(*) FROM latest_extractions WHERE fallback_for IS NULL AND provider = 'heuristic'),
		(SELECT count(*) FROM latest_extractions WHERE fallback_for IS NOT NULL),
		(SELECT count(DISTINCT doc_id) FROM chunks)`).Scan(&pages, &articles, &dups, &aside, &model, &partial, &heuristic, &fallbacks, &embedded)
	if err != nil {
		fmt.Printf("\ndocuments: %v (run newsctl migrate?)\n", err)
		return
	}
	fmt.Printf("\ndocuments: %d pages stored; %d articles, %d duplicates, %d pages set aside (not articles%s); %d embedded\n",
		pages, articles, dups, aside, asideByKind(ctx, pool), embedded)
	fmt.Printf("extractions: %d by a model (%d partial), %d by the heuristic extractor, %d fallbacks", model, partial, heuristic, fallbacks)
	if fallbacks > 0 {
		fmt.Print(" (the model failed for them: newsctl reextract --fallbacks once it is fixed)")
	}
	fmt.Println()
	if known, owed, waiting, err := crawl.FrontierCounts(ctx, pool); err == nil {
		fmt.Printf("frontier: %d URLs known, %d owed a fetch (%d waiting for room on the crawl stream)\n", known, owed, waiting)
	}
	if caps, err := crawl.CappedHosts(ctx, pool, 10); err == nil {
		for _, h := range caps {
			fmt.Printf("frontier cap reached: %s holds %d URLs (%d hubs); dropped %d new links, %d of them hubs (CRAWL_MAX_URLS_PER_HOST, CRAWL_MAX_HUBS_PER_HOST)\n",
				h.Host, h.URLs, h.Hubs, h.URLsDropped+h.HubsDropped, h.HubsDropped)
		}
	}
}

// stageStats reads every stage's stats once, for stats and health.
func stageStats(ctx context.Context, c config.Common) ([]streamkit.StageStats, error) {
	rdb, err := redisOnly(ctx, c)
	if err != nil {
		return nil, err
	}
	defer rdb.Close()
	return adminOf(rdb, c).Stats(ctx, pipeline.Stages())
}

func printStats(stats []streamkit.StageStats) {
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "stage\tlength\tlag\tpending\toldest pending\tretry\tdeferred\tdlq\tconsumers\t  state")
	for _, s := range stats {
		age := "-"
		if s.Pending > 0 {
			age = fmt.Sprintf("%.1fs", s.OldestPendingAgeS)
		}
		fmt.Fprintf(w, "%s\t%d\t%d\t%d\t%s\t%d\t%d\t%d\t%d\t  %s\n", s.Stage, s.Length, s.Lag, s.Pending, age, s.Retry, s.Deferred, s.DLQ, s.Consumers, s.State())
		for _, p := range s.Partitions { // a partitioned stage's rows are their sums
			age := "-"
			if p.Pending > 0 {
				age = fmt.Sprintf("%.1fs", p.OldestPendingAgeS)
			}
			name := fmt.Sprintf("%s:%d", s.Stage, p.Partition)
			if p.Partition < 0 {
				name = s.Stage + ":-"
			}
			note := ""
			if p.Former {
				note = "  former partition count: read until it drains"
			}
			fmt.Fprintf(w, "%s\t%d\t%d\t%d\t%s\t%d\t%d\t%d\t%d\t%s\n", name, p.Length, p.Lag, p.Pending, age, p.Retry, p.Deferred, p.DLQ, p.Consumers, note)
		}
	}
	w.Flush()
}

// watchStats redraws the stats every interval until ctx ends (Ctrl-C).
func watchStats(ctx context.Context, c config.Common, every time.Duration) error {
	rdb, err := redisOnly(ctx, c)
	if err != nil {
		return err
	}
	defer rdb.Close()
	admin := adminOf(rdb, c)
	for {
		stats, err := admin.Stats(ctx, pipeline.Stages())
		if err != nil {
			return err
		}
		fmt.Print("\033[H\033[2J") // home, clear screen
		fmt.Printf("newsctl stats, every %s (Ctrl-C to stop)   %s\n\n", every, time.Now().Format("15:04:05"))
		printStats(stats)
		printDocuments(ctx, c)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(every):
		}
	}
}

// asideByKind is ": 3 listing, 1 empty" for the pages set aside, by kind.
func asideByKind(ctx context.Context, pool *pgxpool.Pool) string {
	rows, err := pool.Query(ctx, `SELECT page_kind, count(*) FROM cleaned WHERE NOT is_article GROUP BY page_kind ORDER BY count(*) DESC, page_kind`)
	if err != nil {
		return ""
	}
	defer rows.Close()
	var parts []string
	for rows.Next() {
		var kind string
		var n int64
		if rows.Scan(&kind, &n) == nil {
			parts = append(parts, fmt.Sprintf("%d %s", n, kind))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return ": " + strings.Join(parts, ", ")
}
