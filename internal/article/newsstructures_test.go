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

// liveUpdate is the text of update i of a live-blog fixture, and its time.
func liveUpdate(i int) (text, at string) {
	return fmt.Sprintf("Crews reopened lane %d of the harbour road after the water fell at gate %d, the council said.", i, i+2),
		fmt.Sprintf("%02d:%02d", 20-i/4, 55-(i%4)*12)
}

// A live blog whose update times sit in elements named like a story's time
// stamp ("entry-time published"): the times stay with their updates, as
// they are a series, not the story's one stamp.
func TestExtractLiveBlogNamedTimes(t *testing.T) {
	var posts strings.Builder
	for i := range 10 {
		text, at := liveUpdate(i)
		fmt.Fprintf(&posts, `<div class="update" id="u%d"><p class="entry-time published"><time datetime="2026-11-30T%s:00Z">%s</time></p>
			<div class="update-body"><p>%s</p></div><div class="update-tools"><a href="#u%d">Link to this update</a></div></div>`, i, at, at, text, i)
	}
	page := `<html><head><title>Live: the harbour storm - Gazette</title></head><body><nav><a href="/">Home</a></nav><main>
		<h1>Live: the harbour storm</h1><p class="dateline"><time datetime="2026-11-30T09:00:00Z">30 November 2026, 09:00</time></p>
		<div class="live-feed">` + posts.String() + `</div></main></body></html>`
	a := mustExtract(t, page, "https://news.example/live/harbour")
	for i := range 10 {
		text, at := liveUpdate(i)
		if ti, pi := strings.Index(a.Text, at), strings.Index(a.Text, text); ti < 0 || pi < ti {
			t.Errorf("update %d: time %q at %d, text at %d:\n%s", i, at, ti, pi, a.Text)
		}
	}
	checkText(t, a.Text, nil, []string{"30 November 2026", "Link to this update"})
}

// A live blog of a few short updates, each in a container named like an
// article body: the best candidate is one update, and its like-named
// peers, short as they are, are the rest of the story.
func TestExtractShortLiveBlog(t *testing.T) {
	var posts strings.Builder
	for i := range 8 {
		text, at := liveUpdate(i)
		fmt.Fprintf(&posts, `<li class="feed-item"><article class="feed-post"><header class="feed-post-head"><span>%s</span>
			<h3>Gate %d closes</h3></header><div class="feed-post-body"><p>%s</p></div></article></li>`, at, i, text)
	}
	page := `<html><head><title>Live: the harbour storm - Gazette</title></head><body><nav><a href="/">Home</a></nav>
		<div class="feed"><ol>` + posts.String() + `</ol></div></body></html>`
	a := mustExtract(t, page, "https://news.example/live/harbour")
	for i := range 8 {
		text, _ := liveUpdate(i)
		checkText(t, a.Text, []string{text}, nil)
	}
	if !a.IsArticle {
		t.Errorf("kind %s, want an article", a.PageKind)
	}
}

// A "Related" box set between a story's paragraphs, its class naming
// content too ("inline-related-content"): the story goes on after it, in
// the same element, so the box goes and the story stays whole. A
// "Related" heading set in the story's own element, with teasers after
// it, still ends the story.
func TestExtractInlineRelatedBox(t *testing.T) {
	sentences := []string{
		"For the first time in the town's history, officials banned all outdoor watering with sprinklers on Tuesday.",
		"The emergency order, which takes effect Friday, also bars residents from filling swimming pools at home.",
		"\"We are not trying to punish anybody,\" the mayor said at a news conference outside City Hall.",
		"The town has more than tripled in population since 2010, part of a building boom across the hills.",
		"Much of that growth relies on an aquifer that is vast but slow to recharge after a dry winter.",
		"The groundwater district said its monitoring well near the town fell another four feet in February.",
		"Residents who rely on private wells are not covered by the order, but were asked to cut their use.",
		"A mother of two who moved to a subdivision north of town said the water pressure had dropped.",
		"Several cities along the interstate corridor have moved to stricter watering schedules this spring.",
		"State lawmakers are debating a proposal to put a billion dollars a year into water infrastructure.",
		"A hydrologist at the state university said the region is a warning for fast-growing suburbs.",
		"The city will hold a public meeting next week on a plan to buy treated water from a supplier.",
	}
	var before, after strings.Builder
	for i, s := range sentences {
		p := "<p>" + s + " Officials expect to review the order again in the summer, once the district has read its wells and the spring rain is counted.</p>"
		if i < 3 {
			before.WriteString(p)
		} else {
			after.WriteString(p)
		}
	}
	box := `<section class="inline-related-content"><h2 class="inline-related-content__title">Related</h2><ul>
		<li class="inline-related-item"><a href="/n/1" class="related-item__link"><span class="related-item__eyebrow">U.S. News</span>
		<span class="related-item__headline">Rivers in central Texas are running dry as the drought deepens</span></a></li></ul></section>`
	page := `<html><head><title>Town bans sprinklers as aquifer falls - News</title></head><body><main><article><h1>Town bans sprinklers as aquifer falls</h1>
		<div class="article-body"><div class="article-body__content">` + before.String() + box + after.String() + `</div></div></article></main></body></html>`
	a := mustExtract(t, page, "https://news.example/us-news/town-bans-sprinklers-rcna1")
	for _, s := range sentences {
		if !strings.Contains(a.Text, s) {
			t.Fatalf("%q is missing:\n%s", s, a.Text)
		}
	}
	if strings.Contains(a.Text, "Rivers in central Texas") || strings.Contains(a.Text, "Related") {
		t.Errorf("the related box stayed:\n%s", a.Text)
	}

	page = `<html><head><title>Town bans sprinklers as aquifer falls - News</title></head><body><main><article><h1>Town bans sprinklers as aquifer falls</h1>
		<div class="article-body">` + before.String() + `<h2>Related</h2>` + after.String() + `</div></article></main></body></html>`
	a = mustExtract(t, page, "https://news.example/us-news/town-bans-sprinklers-rcna1")
	if !strings.Contains(a.Text, sentences[2]) || strings.Contains(a.Text, sentences[3]) {
		t.Errorf("a Related heading in the story's own element should end it:\n%s", a.Text)
	}
}
