package article

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestExtractLimits(t *testing.T) {
	deep := "<html><body>" + strings.Repeat("<div>", 5000) + "text" + strings.Repeat("</div>", 5000) + "</body></html>"
	manyNodes := "<html><body>" + strings.Repeat("<span>x</span>", 300_000) + "</body></html>"
	// Unclosed formatting elements make the HTML parser do extra work per tag.
	formatting := "<html><body>" + strings.Repeat("<b><i><u>", 30_000) + strings.Repeat("<p>word, another word</p>", 20_000) + "</body></html>"
	// A long but ordinary page: only a tiny budget or guard stops it.
	long := "<html><body><article>" + strings.Repeat("<p>"+strings.Repeat("Plain words of an ordinary sentence, ", 12)+"</p>", 3000) + "</article></body></html>"
	cases := []struct {
		name string
		page string
		opt  Options
		want error // nil: any quick result without error is fine
	}{
		{"deep nesting", deep, Options{}, ErrTooComplex},
		{"too many nodes", manyNodes, Options{}, ErrTooComplex},
		{"too large", strings.Repeat("<p>a</p>", 1000), Options{MaxBytes: 1000}, ErrTooLarge},
		{"tiny work budget", long, Options{MaxWork: 1000}, ErrTooComplex},
		{"tiny time guard", long, Options{Timeout: time.Nanosecond}, ErrRunaway},
		{"long page within the budget", long, Options{}, nil},
		{"formatting soup", formatting, Options{}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			a, err := Extract([]byte(tc.page), "", tc.opt)
			if el := time.Since(start); el > 5*time.Second {
				t.Errorf("took %v", el)
			}
			if tc.want != nil {
				if !errors.Is(err, tc.want) {
					t.Errorf("err = %v, want %v", err, tc.want)
				}
				return
			}
			if err != nil && !errors.Is(err, ErrTooComplex) {
				t.Errorf("unexpected error %v", err)
			}
			if err == nil && !utf8.ValidString(a.Text) {
				t.Errorf("invalid UTF-8")
			}
		})
	}
}

func TestExtractWithinDepthLimit(t *testing.T) {
	ps := articleParas(4)
	page := "<html><body>" + strings.Repeat("<div>", 200) + "<article>" + pTags(ps) + "</article>" + strings.Repeat("</div>", 200) + "</body></html>"
	a := mustExtract(t, page, "")
	if !strings.Contains(a.Text, ps[3]) {
		t.Errorf("deep but legal page lost text: %q", a.Text)
	}
}

func FuzzExtract(f *testing.F) {
	f.Add([]byte(`<html><body><article><p>Hello, world. This is a test paragraph, with commas.</p></article></body></html>`), "https://example.com/2020/01/02/a")
	f.Add([]byte(`<meta charset="shift_jis"><p>`+"\x82\xa0\x82\xa2"+`</p>`), "")
	f.Add([]byte("<html><head><script type=\"application/ld+json\">{\"@type\":\"NewsArticle\",\"articleBody\":\"x\"}</script></head><body><p>\xff\xfe broken</p>"), "")
	f.Add([]byte("\xfe\xff\x00<\x00p\x00>"), "")
	f.Add([]byte(`<table><tr><td><div><p>a<br>b</td></tr><li>c<time datetime="2020-01-01">`), "::bad url")
	f.Fuzz(func(t *testing.T, data []byte, u string) {
		a, err := Extract(data, u, Options{Timeout: 2 * time.Second})
		if err != nil {
			if !errors.Is(err, ErrNotHTML) && !errors.Is(err, ErrTooComplex) && !errors.Is(err, ErrTooLarge) && !errors.Is(err, ErrRunaway) {
				t.Fatalf("unexpected error class: %v", err)
			}
			return
		}
		for _, s := range append([]string{a.Text, a.Title, a.Description, a.SiteName, a.Language, a.Section, a.TopImage, a.CanonicalURL}, append(a.Authors, a.Tags...)...) {
			if !utf8.ValidString(s) {
				t.Fatalf("invalid UTF-8 in output %q", s)
			}
		}
		if a.PageKind == "" {
			t.Fatalf("empty PageKind")
		}
	})
}

// Nested byline-looking wrappers around long text: reading each one's
// whole text made this quadratic and ran past the page budget.
func TestExtract_NestedBylinesStayLinear(t *testing.T) {
	var b strings.Builder
	b.WriteString("<html><body><article><h1>Title</h1>")
	const depth = 450
	for range depth {
		b.WriteString(`<div class="byline author-info">` + strings.Repeat("word ", 400))
	}
	for range depth {
		b.WriteString("</div>")
	}
	b.WriteString("<p>" + strings.Repeat("The story goes on with plenty of plain sentences. ", 30) + "</p></article></body></html>")
	a, err := Extract([]byte(b.String()), "https://example.com/a", Options{})
	if err != nil {
		t.Fatalf("Extract = %v, want a result within the page budget", err)
	}
	if len(a.Authors) != 0 {
		t.Fatalf("authors = %q; long texts are not bylines", a.Authors)
	}
}

// Thousands of streaming placeholders with no end comments, each with its
// late segment: every segment lands at its placeholder, and finding each
// fallback stops short instead of scanning to the end of the page.
func TestExtract_ManyStreamedSegmentsStayLinear(t *testing.T) {
	const n = 5000
	var b strings.Builder
	b.WriteString("<html><body><article><h1>Title</h1>")
	for i := range n {
		fmt.Fprintf(&b, `<template id="B:%d"></template><span>loading</span>`, i)
	}
	b.WriteString("</article>")
	for i := range n {
		fmt.Fprintf(&b, `<div hidden id="S:%d"><p>Segment %d of the story, told with plain sentences, commas, and more words.</p></div>`, i, i)
	}
	b.WriteString("</body></html>")
	a, err := Extract([]byte(b.String()), "https://example.com/a", Options{})
	if err != nil {
		t.Fatalf("Extract = %v, want a result within the page budget", err)
	}
	for _, i := range []int{0, n / 2, n - 1} {
		if !strings.Contains(a.Text, fmt.Sprintf("Segment %d of the story", i)) {
			t.Fatalf("segment %d missing from the text (%d bytes)", i, len(a.Text))
		}
	}
}
