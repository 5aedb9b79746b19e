package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/newscrawl/newscrawl/internal/pipeline"
	"github.com/newscrawl/newscrawl/pkg/streamkit"
)

func init() {
	register("wait", "block until every stage is idle (lag, pending and retries at 0)", runWait)
}

// runWait polls the stats until all stages have been idle for the settle
// time, so a hand-off between two stages is not mistaken for the end.
func runWait(ctx context.Context, args []string) error {
	s, c := settings("wait")
	timeout := s.FlagSet().Duration("timeout", 5*time.Minute, "give up after this long (exit 1 with the stats)")
	settle := s.FlagSet().Duration("settle", 2*time.Second, "how long every stage must stay idle")
	if err := s.Parse(args); err != nil {
		return err
	}
	rdb, err := redisOnly(ctx, c)
	if err != nil {
		return err
	}
	defer rdb.Close()
	admin := &streamkit.Admin{RDB: rdb, Prefix: *c.StreamPrefix}
	deadline := time.Now().Add(*timeout)
	var idleSince time.Time
	for {
		stats, err := admin.Stats(ctx, pipeline.Stages())
		if err != nil {
			return err
		}
		if idle(stats) {
			if idleSince.IsZero() {
				idleSince = time.Now()
			}
			if time.Since(idleSince) >= *settle {
				fmt.Println("pipeline idle")
				return nil
			}
		} else {
			idleSince = time.Time{}
		}
		if time.Now().After(deadline) {
			fmt.Fprintf(os.Stderr, "newsctl wait: still busy after %s\n", *timeout)
			printStats(stats)
			return exitCode(1)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func idle(stats []streamkit.StageStats) bool {
	for _, s := range stats {
		if s.Lag != 0 || s.Pending != 0 || s.Retry != 0 {
			return false
		}
	}
	return true
}
