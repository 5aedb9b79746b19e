package article

import (
	"fmt"
	"strings"
	"testing"
)

// A page told in many short sections, nested in a grid, beside one box with
// a single long paragraph: the box scores best, but it holds a tenth of the
// page's prose, so the sections are taken instead (issue 17, "never lose the
// article to a wrong block").
func TestExtractShortSectionsBeatATinyBox(t *testing.T) {
	var grid strings.Builder
	for row := 0; row < 8; row++ {
		grid.WriteString(`<div class="row">`)
		for col := 0; col < 3; col++ {
			n := row*3 + col + 1
			fmt.Fprintf(&grid, `<div class="col"><div class="tool"><h3>Tool %d</h3><p>Tool %d measures the widget flow in real time for you</p><a href="/t/%d">Docs for tool %d</a></div></div>`, n, n, n, n)
		}
		grid.WriteString(`</div>`)
	}
	page := `<html><head><title>The toolbox</title></head><body>
		<div class="box"><p>Before you start, connect your account, sync your settings, pick a profile, and keep your
		history, bookmarks, passwords and notes with you on every device you use, at home or at work.</p></div>
		<div class="tools">` + grid.String() + `</div></body></html>`
	a := mustExtract(t, page, "https://example.org/toolbox")
	for _, want := range []string{"Tool 1 measures", "Tool 24 measures", "Tool 12"} {
		if !strings.Contains(a.Text, want) {
			t.Errorf("text lacks %q:\n%s", want, a.Text)
		}
	}
}

// A real article beside a longer stream of teasers keeps the article: the
// fallback is for a few words, not for a choice between two bodies. (The
// teasers' excerpts join it as siblings, with or without the fallback.)
func TestExtractArticleBesideLongerTeasersStands(t *testing.T) {
	var teasers strings.Builder
	for i := 0; i < 30; i++ {
		fmt.Fprintf(&teasers, `<div class="item"><h3><a href="/s/%d">Story %d</a></h3><p>An excerpt of story %d that runs on for a line or two of text.</p></div>`, i, i, i)
	}
	page := `<html><head><title>Harbour reopens</title></head><body><article><h1>Harbour reopens</h1>` +
		pTags(articleParas(6)) + `</article><div class="stream">` + teasers.String() + `</div></body></html>`
	a := mustExtract(t, page, "https://example.org/harbour")
	if !strings.Contains(a.Text, "Paragraph 1 opens here") || !strings.Contains(a.Text, "Paragraph 6 opens here") {
		t.Errorf("want the whole article:\n%s", a.Text)
	}
}

// slideshow renders n numbered captions ("k/n Title" and a caption line).
func slideshow(n int) string {
	var sb strings.Builder
	sb.WriteString(`<div class="gallery"><ul class="legends">`)
	for k := 1; k <= n; k++ {
		fmt.Fprintf(&sb, `<li><h2><span class="counter">%d/%d</span> Picture number %d</h2><p>The caption of picture %d says what it shows, and who took it, in one sentence.</p></li>`, k, n, k, k)
	}
	return sb.String() + `</ul></div>`
}

// An article with a slideshow embedded after its text keeps the article and
// drops the captions; a gallery page (captions and little else) keeps them.
func TestExtractEmbeddedSlideshow(t *testing.T) {
	page := `<html><head><title>Harbour reopens</title></head><body><div class="story">` +
		pTags(articleParas(6)) + slideshow(20) + `</div></body></html>`
	a := mustExtract(t, page, "https://example.org/harbour")
	if !strings.Contains(a.Text, "Paragraph 6 opens here") || strings.Contains(a.Text, "Picture number") || strings.Contains(a.Text, "caption of picture") {
		t.Errorf("want the article without the slideshow:\n%s", a.Text)
	}
	gallery := `<html><head><title>Pictures of the week</title></head><body><div class="story"><p>Our pictures of the week.</p>` +
		slideshow(12) + `</div></body></html>`
	a = mustExtract(t, gallery, "https://example.org/pictures")
	if !strings.Contains(a.Text, "12/12 Picture number 12") || !strings.Contains(a.Text, "caption of picture 12") {
		t.Errorf("a gallery page keeps its captions:\n%s", a.Text)
	}
}
