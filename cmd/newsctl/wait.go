package main

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/newscrawl/newscrawl/internal/config"
	"github.com/newscrawl/newscrawl/internal/crawl"
	"github.com/newscrawl/newscrawl/internal/pipeline"
	"github.com/newscrawl/newscrawl/internal/store"
	"github.com/newscrawl/newscrawl/pkg/streamkit"
)

// runWait polls the stats until all stages have been idle for the settle
// time (so a hand-off between two stages is not mistaken for the end). On a
// terminal it shows one live line of progress. It gives up after --stall
// with no progress in any stage (or after --timeout, when set), and at the
// end it prints what happened; it exits 1 when dead letters appeared
// meanwhile, unless --allow-dead-letters.
func runWait(ctx context.Context, args []string) error {
	s, c := settings("wait")
	fs := s.FlagSet()
	timeout := fs.Duration("timeout", 0, "give up after this long in all (0: no limit; --stall still applies)")
	stall := fs.Duration("stall", 5*time.Minute, "give up after this long without progress in any stage")
	settle := fs.Duration("settle", 2*time.Second, "how long every stage must stay idle")
	allowDead := fs.Bool("allow-dead-letters", false, "exit 0 even when dead letters appeared during the wait")
	since := fs.Duration("since", time.Minute, "count dead letters written from this long before the wait started (a seed's can come first)")
	outage := fs.Duration("outage", time.Minute, "keep polling through a Redis outage (a failover, a restart) this long before giving up")
	if err := s.Parse(args); err != nil {
		return err
	}
	rdb, err := redisOnly(ctx, c)
	if err != nil {
		return err
	}
	defer rdb.Close()
	admin := adminOf(rdb, c)
	from := time.Now().Add(-*since)
	live := isTerminal(os.Stdout)
	searchable := searchableCounter(ctx, c, live)
	defer searchable.close()
	frontier := frontierCounter(ctx, c)
	defer frontier.close()
	start, lastProgress := time.Now(), time.Now()
	var idleSince, downSince time.Time
	var last string
	for {
		stats, err := admin.Stats(ctx, pipeline.Stages())
		if err != nil {
			// The workers pause through an outage; so does the wait, within
			// limits (a Redis that never answered failed at the start).
			if downSince.IsZero() {
				downSince = time.Now()
				fmt.Fprintf(os.Stderr, "\nnewsctl wait: Redis does not answer (%v); polling again for up to %s\n", err, *outage)
			}
			if time.Since(downSince) >= *outage {
				return fmt.Errorf("redis did not answer for %s: %w", *outage, err)
			}
			if err := sleep(ctx, 500*time.Millisecond); err != nil {
				return err
			}
			continue
		}
		if !downSince.IsZero() {
			fmt.Fprintf(os.Stderr, "newsctl wait: Redis answers again after %s\n", time.Since(downSince).Round(100*time.Millisecond))
			downSince = time.Time{}
		}
		owed := frontier.owed(ctx)
		if sig := signature(stats) + strconv.FormatInt(owed, 10); sig != last {
			last, lastProgress = sig, time.Now()
		}
		if live {
			fmt.Printf("\r\033[K%s%s%s", progressLine(stats, time.Since(start)), frontier.text(owed), searchable.text(ctx))
		}
		done := false
		if idle(stats) && owed == 0 {
			if idleSince.IsZero() {
				idleSince = time.Now()
			}
			done = time.Since(idleSince) >= *settle
		} else {
			idleSince = time.Time{}
		}
		var gaveUp string
		switch {
		case done:
		case time.Since(lastProgress) >= *stall:
			gaveUp = fmt.Sprintf("no progress in any stage for %s", *stall)
		case *timeout > 0 && time.Since(start) >= *timeout:
			gaveUp = fmt.Sprintf("still busy after %s", *timeout)
		}
		if done || gaveUp != "" {
			if live {
				fmt.Println()
			}
			return summarise(ctx, admin, c, stats, from, gaveUp, time.Since(start), *allowDead)
		}
		if err := sleep(ctx, 200*time.Millisecond); err != nil {
			return err
		}
	}
}

// sleep waits d, or returns the context's error when it ends first.
func sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

func idle(stats []streamkit.StageStats) bool {
	for _, s := range stats {
		if s.Lag != 0 || s.Pending != 0 || s.Retry != 0 || s.Deferred != 0 {
			return false
		}
	}
	return true
}

// signature changes whenever any stage makes progress.
func signature(stats []streamkit.StageStats) string {
	var b strings.Builder
	for _, s := range stats {
		fmt.Fprintf(&b, "%d/%d/%d/%d/%d/%d/%d ", s.Read, s.Lag, s.Pending, s.Retry, s.Deferred, s.DLQ, s.Length)
	}
	return b.String()
}

// progressLine is the live line: per stage, what is done, held, waiting for
// a retry or its host's turn, and dead-lettered.
func progressLine(stats []streamkit.StageStats, elapsed time.Duration) string {
	parts := make([]string, 0, len(stats))
	for _, s := range stats {
		p := fmt.Sprintf("%s %d done", s.Stage, max(s.Read-s.Pending, 0))
		if s.Pending > 0 || s.Lag > 0 {
			p += fmt.Sprintf(", %d in flight, %d queued", s.Pending, s.Lag)
		}
		if s.Retry > 0 {
			p += fmt.Sprintf(", %d retrying", s.Retry)
		}
		if s.Deferred > 0 {
			p += fmt.Sprintf(", %d waiting for a host slot", s.Deferred)
		}
		if s.DLQ > 0 {
			p += fmt.Sprintf(", %d dead", s.DLQ)
		}
		if strings.HasPrefix(s.State(), streamkit.StatePaused) {
			p += " (paused)"
		}
		parts = append(parts, p)
	}
	return fmt.Sprintf("[%s] %s", elapsed.Round(time.Second), strings.Join(parts, " | "))
}

// newDeadLetters counts, per stage and error type, the dead letters
// written since from (a dead letter's stream id is its time).
func newDeadLetters(ctx context.Context, admin *streamkit.Admin, from time.Time) (map[string]map[string]int, error) {
	out := map[string]map[string]int{}
	for _, st := range pipeline.Stages() {
		keys, err := admin.Layout(ctx, st.Stage)
		if err != nil {
			return nil, err
		}
		for _, k := range keys {
			msgs, err := admin.RDB.XRangeN(ctx, k.DLQ(), fmt.Sprint(from.UnixMilli()), "+", 100000).Result()
			if err != nil {
				return nil, fmt.Errorf("read %s: %w", k.DLQ(), err)
			}
			for _, m := range msgs {
				typ, _ := m.Values[streamkit.DLQFieldErrorType].(string)
				if out[st.Stage] == nil {
					out[st.Stage] = map[string]int{}
				}
				out[st.Stage][typ]++
			}
		}
	}
	return out, nil
}

// summarise prints how the wait ended: the stages, the documents, and the
// dead letters that appeared meanwhile with the command to see them.
func summarise(ctx context.Context, admin *streamkit.Admin, c config.Common, stats []streamkit.StageStats,
	from time.Time, gaveUp string, took time.Duration, allowDead bool) error {
	if gaveUp != "" {
		fmt.Fprintf(os.Stderr, "newsctl wait: %s\n", gaveUp)
		printStats(stats)
	} else {
		fmt.Printf("pipeline idle after %s\n", took.Round(100*time.Millisecond))
	}
	printDocuments(ctx, c)
	fresh, err := newDeadLetters(ctx, admin, from)
	if err != nil {
		return err
	}
	var lines []string
	for stage, types := range fresh {
		for typ, n := range types {
			lines = append(lines, fmt.Sprintf("  %s %s: %d   newsctl dlq list --stage %s --type %s", stage, typ, n, stage, typ))
		}
	}
	sort.Strings(lines)
	if len(lines) > 0 {
		fmt.Printf("dead letters during the wait:\n%s\n", strings.Join(lines, "\n"))
	}
	switch {
	case gaveUp != "":
		return exitCode(1)
	case len(lines) > 0 && !allowDead:
		return exitCode(1)
	}
	return nil
}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// frontierWait counts the crawl requests waiting in the frontier for room
// on the crawl stream: the pipeline is not idle while there are any.
// Without a database it counts none (wait then judges by Redis alone).
type frontierWait struct{ pool *pgxpool.Pool }

func frontierCounter(ctx context.Context, c config.Common) *frontierWait {
	octx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	pool, err := store.Open(octx, *c.DatabaseURL)
	if err != nil {
		fmt.Fprintf(os.Stderr, "wait: the frontier is not counted (%v)\n", err)
		return &frontierWait{}
	}
	return &frontierWait{pool: pool}
}

func (f *frontierWait) owed(ctx context.Context) int64 {
	if f.pool == nil {
		return 0
	}
	qctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	n, err := crawl.FrontierOwed(qctx, f.pool)
	if err != nil {
		return 0
	}
	return n
}

func (f *frontierWait) text(owed int64) string {
	if owed == 0 {
		return ""
	}
	return fmt.Sprintf(" | %d waiting in the frontier", owed)
}

func (f *frontierWait) close() {
	if f.pool != nil {
		f.pool.Close()
	}
}

// searchable counts the documents embedded, for the live line: at most
// every two seconds, and not at all when the database cannot be reached.
type searchable struct {
	pool *pgxpool.Pool
	at   time.Time
	last string
}

func searchableCounter(ctx context.Context, c config.Common, live bool) *searchable {
	s := &searchable{}
	if !live {
		return s
	}
	octx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	if pool, err := store.Open(octx, *c.DatabaseURL); err == nil {
		s.pool = pool
	}
	return s
}

func (s *searchable) text(ctx context.Context) string {
	if s.pool == nil || time.Since(s.at) < 2*time.Second {
		return s.last
	}
	s.at = time.Now()
	var n int64
	qctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	if err := s.pool.QueryRow(qctx, `SELECT count(DISTINCT doc_id) FROM chunks`).Scan(&n); err == nil {
		s.last = fmt.Sprintf(" | %d searchable", n)
	}
	return s.last
}

func (s *searchable) close() {
	if s.pool != nil {
		s.pool.Close()
	}
}
