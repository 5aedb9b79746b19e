// Command cleanerpeers runs the cleaner's peers — go-trafilatura (with and
// without its fallback) and go-readability — behind the command line that
// ../shared/extractbench/wcxb_score.py drives (`CMD --json --url URL -`),
// so make bench-cleaner scores them by WCXB's measures in the same run as
// the cleaner. It is a module of its own: the peers are bench
// dependencies, never the product's.
//
//	cleanerpeers -x trafilatura|trafilatura-fallback|readability [--json] [--url URL] [FILE|-]
//
// It prints one JSON object: text, title, authors, published_at. The peers
// have no page kinds, so is_article is absent (the score's article
// precision means nothing for them and the bench does not print it).
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"
	"time"

	readability "codeberg.org/readeck/go-readability/v2"
	trafilatura "github.com/markusmobius/go-trafilatura"
	"golang.org/x/net/html"
)

// result is the part of `cleaner extract --json` that wcxb_score.py reads.
type result struct {
	Text        string   `json:"text"`
	Title       string   `json:"title"`
	Authors     []string `json:"authors"`
	PublishedAt string   `json:"published_at,omitempty"`
}

func main() {
	peer := flag.String("x", "trafilatura", "trafilatura, trafilatura-fallback or readability")
	flag.Bool("json", true, "print JSON (always)")
	pageURL := flag.String("url", "", "the page's URL")
	flag.Parse()
	in := os.Stdin
	if flag.NArg() > 0 && flag.Arg(0) != "-" {
		f, err := os.Open(flag.Arg(0))
		if err != nil {
			fail(err)
		}
		defer f.Close()
		in = f
	}
	raw, err := io.ReadAll(in)
	if err != nil {
		fail(err)
	}
	u, _ := url.Parse(*pageURL)
	var r result
	switch *peer {
	case "trafilatura", "trafilatura-fallback":
		r, err = runTrafilatura(raw, u, *peer == "trafilatura-fallback")
	case "readability":
		r, err = runReadability(raw, u)
	default:
		err = fmt.Errorf("unknown peer %q", *peer)
	}
	if err != nil {
		fail(err)
	}
	if err := json.NewEncoder(os.Stdout).Encode(r); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "cleanerpeers:", err)
	os.Exit(1)
}

func runTrafilatura(raw []byte, u *url.URL, fallback bool) (result, error) {
	doc, err := html.Parse(bytes.NewReader(raw))
	if err != nil {
		return result{}, err
	}
	res, err := trafilatura.ExtractDocument(doc, trafilatura.Options{EnableFallback: fallback, OriginalURL: u})
	if err != nil {
		return result{}, err
	}
	r := result{Text: res.ContentText, Title: res.Metadata.Title}
	if a := strings.TrimSpace(res.Metadata.Author); a != "" {
		r.Authors = strings.Split(a, "; ")
	}
	if !res.Metadata.Date.IsZero() {
		r.PublishedAt = res.Metadata.Date.Format(time.RFC3339)
	}
	return r, nil
}

func runReadability(raw []byte, u *url.URL) (result, error) {
	doc, err := html.Parse(bytes.NewReader(raw))
	if err != nil {
		return result{}, err
	}
	if u == nil || u.Host == "" {
		u, _ = url.Parse("https://example.invalid/article")
	}
	p := readability.NewParser()
	art, err := p.ParseAndMutate(doc, u)
	if err != nil {
		return result{}, err
	}
	r := result{Title: art.Title()}
	if art.Node != nil {
		var sb strings.Builder
		if err := art.RenderText(&sb); err != nil {
			return result{}, err
		}
		r.Text = sb.String()
	}
	if a := strings.TrimSpace(art.Byline()); a != "" {
		r.Authors = []string{a}
	}
	if t, err := art.PublishedTime(); err == nil && !t.IsZero() {
		r.PublishedAt = t.Format(time.RFC3339)
	}
	return r, nil
}
