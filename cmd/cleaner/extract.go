package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/newscrawl/newscrawl/internal/article"
)

// maxExtractInput caps what the CLI reads (compressed or not) before the
// extractor's own size check, so a gzip bomb cannot exhaust memory.
const maxExtractInput = article.DefaultMaxBytes * 4

// runExtract implements "cleaner extract [--url URL] [--fetched-at TIME] [--json] [FILE|-]":
// it prints the main text (or a JSON object) of one HTML page.
func runExtract(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("extract", flag.ContinueOnError)
	fs.SetOutput(stderr)
	pageURL := fs.String("url", "", "page URL (resolves relative links, supplies URL dates)")
	asJSON := fs.Bool("json", false, "print one JSON object with text and metadata")
	fetched := fs.String("fetched-at", "", "when the page was fetched, RFC 3339 (an archive's capture time): no date after it is kept (default now)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: cleaner extract [--url URL] [--fetched-at TIME] [--json] [FILE|-]")
		fs.PrintDefaults()
	}
	// Accept flags after the file name too ("extract page.html --json").
	var files []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return 0
			}
			return 2
		}
		if fs.NArg() == 0 {
			break
		}
		files = append(files, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(files) > 1 {
		fs.Usage()
		return 2
	}
	var opt article.Options
	if *fetched != "" {
		t, err := time.Parse(time.RFC3339, *fetched)
		if err != nil {
			fmt.Fprintf(stderr, "cleaner extract: --fetched-at: want an RFC 3339 time such as 2017-01-02T15:04:05Z: %v\n", err)
			return 2
		}
		opt.FetchedAt = t
	}
	name := "-"
	if len(files) == 1 {
		name = files[0]
	}
	raw, err := readInput(name, stdin)
	if err != nil {
		fmt.Fprintf(stderr, "cleaner extract: %v\n", err)
		return 1
	}
	art, err := article.Extract(raw, *pageURL, opt)
	if err != nil {
		fmt.Fprintf(stderr, "cleaner extract: %s: %v\n", name, err)
		return 1
	}
	if *asJSON {
		out := jsonArticle(art)
		enc := json.NewEncoder(stdout)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(out); err != nil {
			fmt.Fprintf(stderr, "cleaner extract: write: %v\n", err)
			return 1
		}
		return 0
	}
	if _, err := io.WriteString(stdout, art.Text+"\n"); err != nil {
		fmt.Fprintf(stderr, "cleaner extract: write: %v\n", err)
		return 1
	}
	return 0
}

// jsonArticle is the --json output shape: snake_case, explicit nulls for
// missing times and empty arrays rather than null lists.
func jsonArticle(a *article.Article) *article.Article {
	out := *a
	if out.Authors == nil {
		out.Authors = []string{}
	}
	if out.Tags == nil {
		out.Tags = []string{}
	}
	return &out
}

// readInput reads a file or stdin ("-"), transparently gunzipping data that
// starts with the gzip magic bytes (whatever the file name).
func readInput(name string, stdin io.Reader) ([]byte, error) {
	var r io.Reader = stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return nil, fmt.Errorf("open input: %w", err)
		}
		defer f.Close()
		r = f
	}
	raw, err := io.ReadAll(io.LimitReader(r, maxExtractInput+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if len(raw) > maxExtractInput {
		return nil, fmt.Errorf("read %s: %w", name, article.ErrTooLarge)
	}
	if len(raw) >= 2 && raw[0] == 0x1f && raw[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			return nil, fmt.Errorf("gunzip %s: %w", name, err)
		}
		defer zr.Close()
		raw, err = io.ReadAll(io.LimitReader(zr, maxExtractInput+1))
		if err != nil {
			return nil, fmt.Errorf("gunzip %s: %w", name, err)
		}
		if len(raw) > maxExtractInput {
			return nil, fmt.Errorf("gunzip %s: %w", name, article.ErrTooLarge)
		}
	}
	return raw, nil
}
