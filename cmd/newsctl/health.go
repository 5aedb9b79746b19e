package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/newscrawl/newscrawl/pkg/streamkit"
)

func runHealth(ctx context.Context, args []string) error {
	s, c := settings("health")
	if err := s.Parse(args); err != nil {
		return err
	}
	if s.FlagSet().NArg() == 1 {
		return checkURL(ctx, s.FlagSet().Arg(0))
	}
	if s.FlagSet().NArg() > 1 {
		return fmt.Errorf("usage: newsctl health [URL]")
	}
	stats, err := stageStats(ctx, c)
	if err != nil {
		return err
	}
	var bad []string
	for _, st := range stats {
		state := st.State()
		fmt.Fprintf(os.Stdout, "%-8s %d worker(s): %s\n", st.Stage, len(st.Workers), state)
		if len(st.Workers) == 0 || strings.Contains(state, streamkit.StatePaused) {
			bad = append(bad, st.Stage)
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("not healthy: %s (no live worker, or paused)", strings.Join(bad, ", "))
	}
	return nil
}

func checkURL(ctx context.Context, url string) error {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s answered %s", url, resp.Status)
	}
	return nil
}
