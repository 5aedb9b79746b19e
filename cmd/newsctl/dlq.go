package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/newscrawl/newscrawl/internal/crawl"
	"github.com/newscrawl/newscrawl/internal/pipeline"
	"github.com/newscrawl/newscrawl/internal/store"
	"github.com/newscrawl/newscrawl/pkg/streamkit"
)

const dlqUsage = `usage: newsctl dlq <list|counts|replay|purge> [--stage STAGE] [--type ERROR_TYPE] [--id ID]... [--older-than AGE] [--limit N] [--json]

  list     show dead letters (oldest first)
  counts   count dead letters by stage and error type
  replay   move dead letters back onto their stage's stream (fresh attempts)
  purge    delete dead letters
Without --stage, every stage; replay and purge need --all, --type, --id or --older-than.
AGE is a Go duration or a number of days: 36h, 30d. Dead letters are never
dropped on their own: purge --older-than 30d from cron bounds the DLQ.`

// idList collects repeated --id flags.
type idList []string

func (l *idList) String() string     { return fmt.Sprint(*l) }
func (l *idList) Set(v string) error { *l = append(*l, v); return nil }

func runDLQ(ctx context.Context, args []string) error {
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, dlqUsage)
		return exitCode(2)
	}
	if args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprintln(os.Stdout, dlqUsage)
		return nil
	}
	verb := args[0]
	s, c := settings("dlq " + verb)
	fs := s.FlagSet()
	stage := fs.String("stage", "", "crawl, clean, extract or embed (default: all)")
	errType := fs.String("type", "", "only this error type")
	limit := fs.Int("limit", 0, "at most this many (0: all)")
	all := fs.Bool("all", false, "replay/purge every dead letter of the selected stages")
	asJSON := fs.Bool("json", false, "JSON output")
	olderThan := fs.String("older-than", "", "only dead letters older than AGE (36h, 30d)")
	var ids idList
	fs.Var(&ids, "id", "only this dead-letter id, as list prints it: PARTITION/ID on a partitioned stage (repeatable)")
	if err := s.Parse(args[1:]); err != nil {
		return err
	}
	stages, err := selectStages(*stage)
	if err != nil {
		return err
	}
	filter := streamkit.DLQFilter{ErrorType: *errType, IDs: ids, Limit: *limit}
	if *olderThan != "" {
		age, err := parseAge(*olderThan)
		if err != nil {
			return fmt.Errorf("--older-than: %w", err)
		}
		filter.Before = time.Now().Add(-age)
	}
	if (verb == "replay" || verb == "purge") && !*all && filter.ErrorType == "" && len(filter.IDs) == 0 && filter.Before.IsZero() {
		return errors.New("say which dead letters: --all, --type, --id or --older-than")
	}
	rdb, err := redisOnly(ctx, c)
	if err != nil {
		return err
	}
	defer rdb.Close()
	admin := adminOf(rdb, c)

	switch verb {
	case "list":
		var out []streamkit.DeadLetter
		for _, st := range stages {
			l, err := admin.DLQList(ctx, st, filter)
			if err != nil {
				return err
			}
			out = append(out, l...)
		}
		if *asJSON {
			return json.NewEncoder(os.Stdout).Encode(store.NonNil(out))
		}
		w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(w, "ID\tSTAGE\tTYPE\tATTEMPTS\tFAILED AT\tURL/DOC\tERROR")
		for _, d := range out {
			ref := d.Fields["url"]
			if ref == "" {
				ref = d.Fields["doc_id"]
			}
			fmt.Fprintf(w, "%s\t%s\t%s\t%d\t%s\t%s\t%s\n", d.Ref, d.Stage, d.ErrorType, d.Attempts, d.FailedAt, ref, oneLine(d.Error, 120))
		}
		return w.Flush()
	case "counts":
		type row struct {
			Stage     string `json:"stage"`
			ErrorType string `json:"error_type"`
			Count     int64  `json:"count"`
		}
		var rows []row
		for _, st := range stages {
			counts, err := admin.DLQCounts(ctx, st)
			if err != nil {
				return err
			}
			types := make([]string, 0, len(counts))
			for t := range counts {
				types = append(types, t)
			}
			sort.Strings(types)
			for _, t := range types {
				rows = append(rows, row{st, t, counts[t]})
			}
		}
		if *asJSON {
			return json.NewEncoder(os.Stdout).Encode(store.NonNil(rows))
		}
		w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(w, "STAGE\tERROR TYPE\tCOUNT")
		for _, r := range rows {
			fmt.Fprintf(w, "%s\t%s\t%d\n", r.Stage, r.ErrorType, r.Count)
		}
		return w.Flush()
	case "replay", "purge":
		admin.Windows = map[string]*streamkit.Window{pipeline.Crawl: crawl.Window(ctx, admin)}
		total := 0
		for _, st := range stages {
			var n int
			if verb == "replay" {
				n, err = admin.DLQReplay(ctx, st, filter)
			} else {
				n, err = admin.DLQPurge(ctx, st, filter)
			}
			total += n
			if errors.Is(err, streamkit.ErrWindowFull) { // the rest wait; the other stages go on
				fmt.Fprintf(os.Stderr, "%s: %v\n", st, err)
				continue
			}
			if err != nil {
				return err
			}
		}
		past := map[string]string{"replay": "replayed", "purge": "purged"}[verb]
		fmt.Printf("%s %d dead letters\n", past, total)
		return nil
	default:
		fmt.Fprintln(os.Stderr, dlqUsage)
		return exitCode(2)
	}
}

func selectStages(stage string) ([]string, error) {
	var names []string
	for _, s := range pipeline.Stages() {
		names = append(names, s.Stage)
	}
	if stage == "" {
		return names, nil
	}
	if !slices.Contains(names, stage) {
		return nil, fmt.Errorf("unknown stage %q (want one of %v)", stage, names)
	}
	return []string{stage}, nil
}

func oneLine(s string, n int) string {
	r := []rune(s)
	for i, c := range r {
		if c == '\n' || c == '\t' {
			r[i] = ' '
		}
	}
	if len(r) > n {
		return string(r[:n]) + "…"
	}
	return string(r)
}

// parseAge reads a Go duration or a whole number of days ("30d").
func parseAge(s string) (time.Duration, error) {
	var d time.Duration
	var err error
	if days, ok := strings.CutSuffix(s, "d"); ok {
		var n int
		n, err = strconv.Atoi(days)
		d = time.Duration(n) * 24 * time.Hour
	} else {
		d, err = time.ParseDuration(s)
	}
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%q is not a positive duration like 36h or 30d", s)
	}
	return d, nil
}
