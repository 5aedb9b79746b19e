package main

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/newscrawl/newscrawl/internal/archive"
	"github.com/newscrawl/newscrawl/internal/embed/local"
	"github.com/newscrawl/newscrawl/internal/search"
	"github.com/newscrawl/newscrawl/internal/store"
	"github.com/newscrawl/newscrawl/internal/version"
)

// runExport implements "newsctl export --format jsonl|csv|warc [filters]":
// every searchable document with its metadata, latest extraction and
// provenance, streamed (constant memory), with progress on stderr; or, as
// warc, every stored page as a response record (gzip per record), for
// those who turn CRAWL_WARC_DIR on later.
func runExport(ctx context.Context, args []string) error {
	s, c := settings("export")
	fs := s.FlagSet()
	format := fs.String("format", "jsonl", "jsonl (one JSON object per line), csv, or warc (stored pages as WARC response records)")
	out := fs.String("out", "-", "file to write, - for stdout")
	host := fs.String("host", "", "only documents of this host")
	lang := fs.String("lang", "", "only documents in this language")
	since := fs.String("since", "", "published at or after (YYYY-MM-DD or RFC 3339)")
	until := fs.String("until", "", "published before (YYYY-MM-DD: through that day)")
	text := fs.Bool("text", true, "include the cleaned text")
	if err := s.Parse(args); err != nil {
		return err
	}
	if *format != "jsonl" && *format != "csv" && *format != "warc" {
		return fmt.Errorf("--format must be jsonl, csv or warc, got %q", *format)
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
	if *format == "warc" {
		return exportWARC(ctx, pool, bw, q)
	}
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
		"summary", "sentiment", "topics", "people", "organizations", "locations", "extracted_by",
		"origin", "fetched_at", "warc_file", "warc_offset", "warc_length", "warc_record_id"}
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
		c := d.Capture
		row := []string{d.DocID, d.URL, d.Title, d.Host, d.Language, pub, j(d.Authors), d.Section, j(d.Tags), strconv.Itoa(d.WordCount),
			d.Summary, d.Sentiment, j(d.Topics), j(d.People), j(d.Organizations), j(d.Locations), d.ExtractedBy,
			c.Origin, timeText(c.FetchedAt), c.WARCFile, intText(c.Offset), intText(c.Length), c.RecordID}
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

func timeText(t *time.Time) string {
	if t == nil {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

func intText(n *int64) string {
	if n == nil {
		return ""
	}
	return strconv.FormatInt(*n, 10)
}

// exportWARC writes every stored page (of --host, fetched in --since and
// --until) as a WARC response record: the body as stored (UTF-8), the
// headers kept with it, the fetch time as WARC-Date.
func exportWARC(ctx context.Context, pool *pgxpool.Pool, w *bufio.Writer, q search.ListQuery) error {
	sw, err := archive.NewStreamWriter(w, "NewsCrawl "+version.Release+" (newsctl export)")
	if err != nil {
		return err
	}
	conds, args := []string{"kind = 'html'", "body IS NOT NULL"}, []any{}
	add := func(cond string, arg any) {
		args = append(args, arg)
		conds = append(conds, fmt.Sprintf(cond, len(args)))
	}
	if h := strings.ToLower(strings.TrimSpace(q.Host)); h != "" {
		add("host = $%d", h)
	}
	if q.Since != nil {
		add("fetched_at >= $%d", *q.Since)
	}
	if q.Until != nil {
		add("fetched_at < $%d", *q.Until)
	}
	rows, err := pool.Query(ctx, `SELECT coalesce(nullif(final_url, ''), url), status, coalesce(headers, '{}'), body, coalesce(fetched_at, first_seen_at)
		FROM documents WHERE `+strings.Join(conds, " AND ")+` ORDER BY fetched_at, doc_id`, args...)
	if err != nil {
		return fmt.Errorf("list stored pages: %w", err)
	}
	defer rows.Close()
	start, last := time.Now(), time.Now()
	for rows.Next() {
		var f archive.Fetch
		var headers map[string]string
		if err := rows.Scan(&f.URL, &f.Status, &headers, &f.Body, &f.Date); err != nil {
			return fmt.Errorf("read a stored page: %w", err)
		}
		f.Header = http.Header{}
		for k, v := range headers {
			f.Header.Set(k, v)
		}
		f.Header.Set("Content-Type", "text/html; charset=utf-8") // the body is stored converted to UTF-8
		if err := sw.Write(f); err != nil {
			return err
		}
		if time.Since(last) >= 2*time.Second {
			fmt.Fprintf(os.Stderr, "export: %d records…\n", sw.Records())
			last = time.Now()
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("list stored pages: %w", err)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "export: %d pages as WARC records in %s\n", sw.Records()-1, time.Since(start).Round(time.Millisecond))
	return nil
}
