package discover

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
)

// BenchmarkHTML reads the links of a news page as the crawler sees one: a
// masthead and section menu, the story, related stories and a footer, with
// the class, style and data attributes a CMS writes on every link.
func BenchmarkHTML(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Story</title>` +
		`<link rel="canonical" href="https://news.example/2025/12/04/story"><link rel="alternate" type="application/rss+xml" href="/feed.xml">` +
		`<meta name="robots" content="index, follow"><link rel="stylesheet" href="/s.css"></head><body><header><nav class="menu">`)
	for i := range 30 {
		fmt.Fprintf(&sb, `<a class="nav-link nav-link--section js-track" data-track-id="nav-%d" data-section="s%d" style="color:#333" href="/section/%d">Section %d</a>`, i, i, i, i)
	}
	sb.WriteString(`</nav></header><main><article><h1>Council approves the budget</h1>`)
	for i := range 20 {
		fmt.Fprintf(&sb, `<p class="story-paragraph" data-index="%d">The council voted on Tuesday, <a class="inline-link" rel="noopener" target="_blank" data-analytics="inline" href="https://other.example/ref/%d?utm_source=x">a report</a> said, and the plan goes on.</p>`, i, i)
	}
	sb.WriteString(`</article><aside class="related"><ul>`)
	for i := range 40 {
		fmt.Fprintf(&sb, `<li class="related-item"><a class="related-link card__link" data-id="%d" aria-label="Story %d" href="/2025/12/0%d/story-%d"><img src="/i/%d.jpg" alt="" loading="lazy"> Story %d</a></li>`, i, i, i%9+1, i, i, i)
	}
	sb.WriteString(`</ul></aside></main><footer>`)
	for i := range 25 {
		fmt.Fprintf(&sb, `<a class="footer-link" rel="nofollow" href="/about/%d">About %d</a>`, i, i)
	}
	sb.WriteString(`</footer></body></html>`)
	body := []byte(sb.String())
	u, _ := url.Parse("https://news.example/2025/12/04/story")
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if p := HTML(u, body); len(p.Links) != 90 || p.Canonical == "" || len(p.Feeds) != 1 {
			b.Fatalf("%d links, canonical %q, %d feeds", len(p.Links), p.Canonical, len(p.Feeds))
		}
	}
}
