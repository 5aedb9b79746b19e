package main

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/newscrawl/newscrawl/internal/embed/local"
	"github.com/newscrawl/newscrawl/internal/search"
	"github.com/newscrawl/newscrawl/internal/store"
)

// runExport implements "newsctl export --format jsonl|csv [filters]": every
// searchable document with its metadata and latest extraction, streamed
// (constant memory), with progress on stderr.
func runExport(ctx context.Context, args []string) error {
	s, c := settings("export")
	fs := s.FlagSet()
	format := fs.String("format", "jsonl", "jsonl (one JSON object per line) or csv")
	out := fs.String("out", "-", "file to write, - for stdout")
	host := fs.String("host", "", "only documents of this host")
	lang := fs.String("lang", "", "only documents in this language")
	since := fs.String("since", "", "published at or after (YYYY-MM-DD or RFC 3339)")
	until := fs.String("until", "", "published before (YYYY-MM-DD: through that day)")
	text := fs.Bool("text", true, "include the cleaned text")
	if err := s.Parse(args); err != nil {
		return err
	}
	if *format != "jsonl" && *format != "csv" {
		return fmt.Errorf("--format must be jsonl or csv, got %q", *format)
	}
	q := search.ListQuery{Host: *host, Lang: *lang, WithText: *text}
	var err error
	if q.Since, err = search.ParseDate(*since, false); err != nil {
		return err
	}
	if q.Until, err = search.ParseDate(*until, true); err != nil {
		return err
	}
	pool, err := store.Open(ctx, *c.DatabaseURL)
	if err != nil {
		return err
	}
	defer pool.Close()
	var w io.Writer = os.Stdout
	if *out != "-" {
		f, err := os.Create(*out)
		if err != nil {
			return err
		}
		defer f.Close()
		w = f
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	write := jsonlWriter(bw)
	if *format == "csv" {
		write = csvWriter(bw, *text)
	}
	// Listing needs no embedder; the searcher is only the reader of cleaned.
	searcher := search.New(pool, local.New(local.Config{}), search.Config{}, nil)
	n, start, last := 0, time.Now(), time.Now()
	err = searcher.List(ctx, q, func(d search.Listed) error {
		if err := write(d); err != nil {
			return err
		}
		n++
		if time.Since(last) >= 2*time.Second {
			fmt.Fprintf(os.Stderr, "export: %d documents…\n", n)
			last = time.Now()
		}
		return nil
	})
	if ferr := bw.Flush(); err == nil {
		err = ferr
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "export: %d documents in %s\n", n, time.Since(start).Round(time.Millisecond))
	return nil
}

func jsonlWriter(w io.Writer) func(search.Listed) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return func(d search.Listed) error { return enc.Encode(d) }
}

// csvWriter writes one row per document; lists are joined with "; ".
func csvWriter(w io.Writer, withText bool) func(search.Listed) error {
	cw := csv.NewWriter(w)
	header := []string{"doc_id", "url", "title", "host", "language", "published_at", "authors", "section", "tags", "word_count",
		"summary", "sentiment", "topics", "people", "organizations", "locations", "extracted_by"}
	if withText {
		header = append(header, "text")
	}
	wroteHeader := false
	return func(d search.Listed) error {
		if !wroteHeader {
			if err := cw.Write(header); err != nil {
				return err
			}
			wroteHeader = true
		}
		pub := ""
		if d.PublishedAt != nil {
			pub = d.PublishedAt.UTC().Format(time.RFC3339)
		}
		j := func(s []string) string { return strings.Join(s, "; ") }
		row := []string{d.DocID, d.URL, d.Title, d.Host, d.Language, pub, j(d.Authors), d.Section, j(d.Tags), strconv.Itoa(d.WordCount),
			d.Summary, d.Sentiment, j(d.Topics), j(d.People), j(d.Organizations), j(d.Locations), d.ExtractedBy}
		if withText {
			row = append(row, d.Text)
		}
		if err := cw.Write(row); err != nil {
			return err
		}
		cw.Flush()
		return cw.Error()
	}
}
