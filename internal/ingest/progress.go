package ingest

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// DefaultEvery is how often progress is printed.
const DefaultEvery = 2 * time.Second

// progress prints a line every Config.Every until the returned stop.
func (r *run) progress(ctx context.Context) (stop func()) {
	if r.cfg.Progress == nil {
		return func() {}
	}
	every := r.cfg.Every
	if every <= 0 {
		every = DefaultEvery
	}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				fmt.Fprintln(r.cfg.Progress, r.line())
			}
		}
	}()
	return func() { cancel(); wg.Wait() }
}

// line is one progress line: rates since the start, and an ETA when the
// sources' sizes are known.
func (r *run) line() string {
	r.mu.Lock()
	c, rep := r.counts, r.report
	r.mu.Unlock()
	secs := max(time.Since(r.started).Seconds(), 0.001)
	var filtered, malformed int64
	for _, n := range c.Filtered {
		filtered += n
	}
	for _, n := range c.Malformed {
		malformed += n
	}
	s := fmt.Sprintf("ingest: %d records (%.0f/s, %.1f MB/s), kept %d, duplicates %d, filtered %d, malformed %d; sources %d of %d",
		c.Read, float64(c.Read)/secs, float64(c.Bytes)/secs/1e6, c.Kept, c.Duplicates, filtered, malformed, rep.Done+rep.Skipped, rep.Sources)
	if r.totalBytes > 0 && c.Bytes > 0 && c.Bytes < r.totalBytes {
		eta := time.Duration(float64(r.totalBytes-c.Bytes) / (float64(c.Bytes) / secs) * float64(time.Second))
		s += fmt.Sprintf(", ETA %s", eta.Round(time.Second))
	}
	return s
}
