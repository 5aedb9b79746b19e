package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/newscrawl/newscrawl/internal/config"
	"github.com/newscrawl/newscrawl/internal/embed/provider"
	"github.com/newscrawl/newscrawl/internal/search"
	"github.com/newscrawl/newscrawl/internal/store"
)

// defaultSearchTimeout bounds one CLI search.
const defaultSearchTimeout = 30 * time.Second

// runSearch implements `newsctl search "query" [--k 10] [--mode hybrid|vector|lexical]
// [--since DATE] [--until DATE] [--host HOST] [--lang LANG] [--json]`.
func runSearch(ctx context.Context, args []string) error {
	s, c := settings("search")
	newEmbedder := provider.Bind(s, config.BindOpenAI(s))
	searchConfig := bindSearch(s)
	fs := s.FlagSet()
	k := fs.Int("k", search.DefaultK, fmt.Sprintf("documents to return (1-%d)", search.MaxK))
	mode := fs.String("mode", string(search.Hybrid), "hybrid, vector or lexical")
	since := fs.String("since", "", "only articles published at or after DATE (YYYY-MM-DD or RFC 3339)")
	until := fs.String("until", "", "only articles published before DATE; a bare date includes that day")
	host := fs.String("host", "", "only articles from HOST")
	lang := fs.String("lang", "", "only articles in language LANG (e.g. en)")
	asJSON := fs.Bool("json", false, "print a JSON array, best first")
	timeout := fs.Duration("timeout", defaultSearchTimeout, "give up after this long")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), `usage: newsctl search "query" [--k 10] [--mode hybrid|vector|lexical] [--since DATE] [--until DATE] [--host HOST] [--lang LANG] [--json]`)
		fs.PrintDefaults()
	}
	words, err := parseInterleaved(s, args)
	if err != nil {
		return err
	}
	if *k < 1 || *k > search.MaxK {
		return fmt.Errorf("--k must be between 1 and %d, got %d", search.MaxK, *k)
	}
	q := search.Query{Text: strings.Join(words, " "), K: *k, Mode: search.Mode(strings.ToLower(*mode)), Host: *host, Lang: *lang}
	if q.Since, err = search.ParseDate(*since, false); err != nil {
		return fmt.Errorf("--since: %w", err)
	}
	if q.Until, err = search.ParseDate(*until, true); err != nil {
		return fmt.Errorf("--until: %w", err)
	}
	if err := q.Normalize(); err != nil {
		return err
	}
	emb, err := newEmbedder()
	if err != nil {
		return fmt.Errorf("query embedder: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	pool, err := store.Open(ctx, *c.DatabaseURL)
	if err != nil {
		return err
	}
	defer pool.Close()
	ans, err := search.New(pool, emb, searchConfig(), nil).Answer(ctx, q)
	res := ans.Results
	if err != nil {
		if strings.Contains(err.Error(), `relation "chunks" does not exist`) {
			return fmt.Errorf("%w (run `newsctl migrate` and the embedder first)", err)
		}
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(res)
	}
	if ans.Note != "" {
		fmt.Fprintln(os.Stderr, "note: "+ans.Note)
	}
	printResults(os.Stdout, res)
	return nil
}

// parseInterleaved parses flags that may come before or after the
// positional words (`search "query" --k 5` as well as `search --k 5 query`).
func parseInterleaved(s *config.Set, args []string) ([]string, error) {
	var words []string
	for {
		if err := s.Parse(args); err != nil {
			return nil, err
		}
		rest := s.FlagSet().Args()
		if len(rest) == 0 {
			return words, nil
		}
		if rest[0] == "--" {
			return append(words, rest[1:]...), nil
		}
		words = append(words, rest[0])
		args = rest[1:]
	}
}

// printResults prints results for a terminal.
func printResults(w io.Writer, res []search.Result) {
	if len(res) == 0 {
		fmt.Fprintln(w, "no results")
		return
	}
	for i, r := range res {
		date := "undated"
		if r.PublishedAt != nil {
			date = r.PublishedAt.Format(time.DateOnly)
		}
		fmt.Fprintf(w, "%2d. %s  [score %.4f]\n    %s · %s · %s\n    %s\n", i+1, r.Title, r.Score, r.URL, r.Host, date, r.Snippet)
		var facts []string
		for _, f := range []struct {
			name  string
			items []string
		}{{"topics", r.Topics}, {"people", r.People}, {"organizations", r.Organizations}, {"locations", r.Locations}} {
			if len(f.items) > 0 {
				facts = append(facts, f.name+": "+strings.Join(f.items, ", "))
			}
		}
		if len(facts) > 0 {
			fmt.Fprintf(w, "    %s\n", strings.Join(facts, "; "))
		}
		fmt.Fprintf(w, "    doc_id %s\n\n", r.DocID)
	}
}
