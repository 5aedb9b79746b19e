package article

import (
	"fmt"
	"strings"
	"testing"
)

// Fixtures of the news structures of issue 17 item 2, written for the
// project (not taken from a dev set): each must keep its content, in order,
// and drop its chrome.

// A live blog: timestamped updates newest first, each with a byline and
// share buttons, beside a related-stories box. The updates stay, in page
// order, with their times; the share buttons and the box go.
func TestExtractLiveBlog(t *testing.T) {
	var posts []string
	for i := range 15 {
		posts = append(posts, fmt.Sprintf(`<article class="live-post"><header class="post-meta"><time datetime="2026-11-30T%02d:%02d:00Z">%02d:%02d</time>
			<span class="byline">By Ana Ruiz</span></header><h3>Update %d: the river crest moves downstream</h3>
			<p>Officials said the water at gauge %d rose by %d centimetres in the last hour, and crews closed the east bridge.</p>
			<div class="share-tools"><a href="#">Share</a> <a href="#">Copy link</a></div></article>`, 10+i/4, i*13%60, 10+i/4, i*13%60, i, i, i+3))
	}
	var newest strings.Builder
	for i := len(posts) - 1; i >= 0; i-- {
		newest.WriteString(posts[i])
	}
	page := `<html><head><title>Live: floods across the valley - Gazette</title></head><body>
		<nav><a href="/">Home</a> <a href="/news">News</a></nav><main><h1>Live: floods across the valley</h1>
		<div class="live-blog">` + newest.String() + `</div></main>
		<aside class="related"><h2>More on this story</h2><ul><li><a href="/s/1">Storms close schools across the region</a></li>
		<li><a href="/s/2">How the valley's flood defences were built</a></li></ul></aside></body></html>`
	a := mustExtract(t, page, "https://news.example/live/floods")
	last := -1
	for i := 14; i >= 0; i-- {
		at := strings.Index(a.Text, fmt.Sprintf("Officials said the water at gauge %d ", i))
		if at < 0 || at < last {
			t.Fatalf("update %d missing or out of page order:\n%s", i, a.Text)
		}
		last = at
	}
	if !strings.Contains(a.Text, fmt.Sprintf("%02d:%02d", 10+14/4, 14*13%60)) {
		t.Errorf("the updates' times are gone:\n%s", a.Text)
	}
	for _, chrome := range []string{"Copy link", "Storms close schools", "More on this story"} {
		if strings.Contains(a.Text, chrome) {
			t.Errorf("kept %q:\n%s", chrome, a.Text)
		}
	}
}

// A round-up: numbered product headings, each with its paragraph and a buy
// link, split in two by an ad slot. Every heading keeps its paragraph, in
// order, across the split; the buy links and the ad go.
func TestExtractRoundUp(t *testing.T) {
	card := func(i int) string {
		return fmt.Sprintf(`<div class="product-card"><h2>%d. The Model %d kettle</h2><div class="img"><img src="/k%d.jpg"></div>
			<p>It boils a litre in %d seconds and keeps water warm for an hour, which is why we liked it.</p>
			<p class="buy"><a href="https://shop.example/k%d">Buy at Shop for $%d</a></p></div>`, i, i, i, 60+i, i, 20+i)
	}
	var first, second strings.Builder
	for i := 1; i <= 5; i++ {
		first.WriteString(card(i))
		second.WriteString(card(i + 5))
	}
	page := `<html><head><title>The 10 best kettles of the year | Homes</title></head><body><nav><a href="/">Home</a></nav>
		<article><h1>The 10 best kettles of the year</h1><p>We tested thirty kettles over two months, timing each one and measuring
		how warm it kept the water, to find the ten worth buying.</p>` + first.String() + `<div class="ad-slot">Advertisement</div>` +
		second.String() + `<p>Prices were checked on the day of publication and may have changed since then.</p></article>
		<aside><h2>Related</h2><ul><li><a href="/t">Toasters</a></li></ul></aside></body></html>`
	a := mustExtract(t, page, "https://homes.example/best-kettles")
	last := -1
	for i := 1; i <= 10; i++ {
		h := strings.Index(a.Text, fmt.Sprintf("%d. The Model %d kettle", i, i))
		p := strings.Index(a.Text, fmt.Sprintf("boils a litre in %d seconds", 60+i))
		if h < 0 || p < h || h < last {
			t.Fatalf("item %d: heading at %d, its paragraph at %d, after %d:\n%s", i, h, p, last, a.Text)
		}
		last = p
	}
	for _, want := range []string{"We tested thirty kettles", "Prices were checked"} {
		if !strings.Contains(a.Text, want) {
			t.Errorf("lost %q:\n%s", want, a.Text)
		}
	}
	for _, chrome := range []string{"Buy at Shop", "Advertisement", "Toasters"} {
		if strings.Contains(a.Text, chrome) {
			t.Errorf("kept %q:\n%s", chrome, a.Text)
		}
	}
}
