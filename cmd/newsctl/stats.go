package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"text/tabwriter"

	"github.com/newscrawl/newscrawl/internal/pipeline"
	"github.com/newscrawl/newscrawl/pkg/streamkit"
)

func init() { register("stats", "per-stage stream length, lag, pending, DLQ and retries", runStats) }

func runStats(ctx context.Context, args []string) error {
	s, c := settings("stats")
	asJSON := s.FlagSet().Bool("json", false, "print a JSON array, one object per stage")
	if err := s.Parse(args); err != nil {
		return err
	}
	rdb, err := redisOnly(ctx, c)
	if err != nil {
		return err
	}
	defer rdb.Close()
	admin := &streamkit.Admin{RDB: rdb, Prefix: *c.StreamPrefix}
	stats, err := admin.Stats(ctx, pipeline.Stages())
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(stats)
	}
	printStats(stats)
	return nil
}

func printStats(stats []streamkit.StageStats) {
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "stage\tlength\tlag\tpending\toldest pending\tretry\tdlq\tconsumers\t  state")
	for _, s := range stats {
		age := "-"
		if s.Pending > 0 {
			age = fmt.Sprintf("%.1fs", s.OldestPendingAgeS)
		}
		fmt.Fprintf(w, "%s\t%d\t%d\t%d\t%s\t%d\t%d\t%d\t  %s\n", s.Stage, s.Length, s.Lag, s.Pending, age, s.Retry, s.DLQ, s.Consumers, s.State())
	}
	w.Flush()
}
