package article

import (
	"fmt"
	"strings"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// A listing's content is its items: titles that are links and short
// summaries, which the story extraction drops as teasers.
func TestExtract_ListingTextIsItsMainRegion(t *testing.T) {
	var items strings.Builder
	for i := range 12 {
		fmt.Fprintf(&items, `<article class="teaser"><h2><a href="/news/story-%d">Harbour ferry story number %d returns</a></h2>`+
			`<p>Summary %d of the harbour news.</p><a href="/news/story-%d">Read more</a></article>`, i, i, i, i)
	}
	intro := `<p>The week's news from the harbour: the ferry timetable, the fish market, the new quay and what the council plans for the summer season, as our reporters saw it.</p>`
	page := func(main string) string {
		return `<html><head><title>Latest news | Harbour Gazette</title></head><body><a href="#content">Skip to main content</a>` +
			`<header><a href="/">Harbour Gazette</a><nav><a href="/news">News</a><a href="/sport">Sport</a><a href="/about">About us</a></nav></header>` +
			main + `<footer><p>Copyright 2025 Harbour Gazette. All rights reserved.</p></footer></body></html>`
	}
	cases := []struct{ name, page string }{
		{"in a main element", page(`<main><h1>Latest news</h1>` + intro + items.String() + `<aside><h3>Most read</h3><a href="/x">Tram line opens</a></aside></main>`)},
		{"in the body, without a main element", page(`<div id="content"><h1>Latest news</h1>` + intro + items.String() + `</div><aside><h3>Most read</h3><a href="/x">Tram line opens</a></aside>`)},
		{"beside a consent banner of more prose than the page's", page(`<main><h1>Latest news</h1>` + intro + items.String() + `</main>` +
			`<div id="onetrust-consent-sdk"><div id="onetrust-banner-sdk"><h2>We Care About Your Privacy</h2>` +
			strings.Repeat(`<p>We and our 100 partners store and access information on a device, such as unique IDs in cookies, to process personal data for advertising.</p>`, 12) +
			`</div></div>`)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := mustExtract(t, tc.page, "https://gazette.example.com/news/")
			if a.IsArticle || !regionKinds[a.PageKind] {
				t.Fatalf("IsArticle %v, PageKind %q: want a listing-like kind", a.IsArticle, a.PageKind)
			}
			checkText(t, a.Text, []string{"Latest news", "Harbour ferry story number 0 returns", "Summary 11 of the harbour news."},
				[]string{"About us", "All rights reserved", "Tram line opens", "Read more", "Skip to main content", "our 100 partners"})
			if a.WordCount != countWords(a.Text) {
				t.Errorf("WordCount %d, the text has %d words", a.WordCount, countWords(a.Text))
			}
		})
	}
}

// A story the model takes for another kind keeps what the story extraction
// found when that is half the region or more.
func TestUseRegion_KeepsAStoryThatHoldsHalfTheRegion(t *testing.T) {
	region := []block{{text: "Menu Home News Sport"}, {text: "The council approved the budget on Tuesday after a long debate."}}
	story := &Article{Text: "The council approved the budget on Tuesday after a long debate."}
	story.WordCount = countWords(story.Text)
	useRegion(story, nil, region)
	if strings.Contains(story.Text, "Menu") {
		t.Errorf("a story holding most of the region took the region's text: %q", story.Text)
	}
	teasers := &Article{Text: "Latest"}
	teasers.WordCount = countWords(teasers.Text)
	useRegion(teasers, nil, region)
	if !strings.Contains(teasers.Text, "The council approved") || teasers.WordCount != countWords(teasers.Text) {
		t.Errorf("a page whose extraction found little kept it: %q (%d words)", teasers.Text, teasers.WordCount)
	}
}

// A product page whose story extraction found its customers' reviews (the
// page's longest prose) takes the region, the product, however short.
func TestUseRegion_AProductsReviewsGiveWay(t *testing.T) {
	reviews := &html.Node{Type: html.ElementNode, Data: "section", DataAtom: atom.Section, Attr: []html.Attribute{{Key: "class", Val: "product-reviews"}}}
	var story []block
	for range 3 {
		p := &html.Node{Type: html.ElementNode, Data: "p", DataAtom: atom.P}
		reviews.AppendChild(p)
		text := "Carried it for three weeks in the Alps and my shoulders never hurt once, though the lid leaks in heavy rain."
		story = append(story, block{text: text, tag: atom.P, node: p, runes: len(text)})
	}
	region := []block{{text: "Trail Backpack 65L"}, {text: "A 65-litre pack for long trails, with a frame that moves the load to the hips and a rain cover in the lid."}}
	for _, kind := range []string{KindProduct, KindService} {
		a := &Article{Text: joinBlocks(story), PageKind: kind}
		a.WordCount = countWords(a.Text)
		useRegion(a, story, region)
		if took := strings.Contains(a.Text, "A 65-litre pack"); took != (kind == KindProduct) {
			t.Errorf("%s page: took the region %v, want %v:\n%s", kind, took, kind == KindProduct, a.Text)
		}
	}
}

// A collection's items are its content: a shop's copy beside them, however
// long, gives way to the region that holds both.
func TestUseRegion_ACollectionTakesItsItems(t *testing.T) {
	copyText := strings.Repeat("Our selection of dress shoes and socks suits every taste, from classic black leather to bold patterns for the wedding party. ", 4)
	region := []block{{text: "Dress Shoes & Socks"}, {text: "Black Dress Shoes $30"}, {text: "Brown Leather Dress Shoes $35"}, {text: "Stance Navy Icon Socks $14"}, {text: copyText}}
	for _, kind := range []string{KindCollection, KindService} {
		a := &Article{Text: copyText, PageKind: kind}
		a.WordCount = countWords(a.Text)
		useRegion(a, nil, region)
		if took := strings.Contains(a.Text, "Brown Leather Dress Shoes $35"); took != (kind == KindCollection) {
			t.Errorf("%s page: took the region %v, want %v:\n%s", kind, took, kind == KindCollection, a.Text)
		}
	}
}

// A product page's region is the product: its customers' reviews and the
// other products shown beside it are not part of it; another kind's
// region keeps such sections (a review site's listing is its reviews).
func TestRegionBlocks_ProductLeavesOutReviewsAndOtherProducts(t *testing.T) {
	page := `<html><head><title>Trail Backpack 65L | Example Outfitters</title></head>
		<body><nav><a href="/">Shop</a><a href="/cart">View cart</a></nav><main><h1>Trail Backpack 65L</h1><p class="price">$189.00</p>
		<div class="product-description"><p>A 65-litre pack for long trails, with a frame that moves the load to the hips.</p>
		<ul><li>Weight: 1.9 kg</li><li>Rain cover in the lid</li></ul></div>
		<section id="reviews" class="product-reviews"><h2>Customer reviews</h2><p>Carried it for three weeks in the Alps and my shoulders never hurt once.</p></section>
		<div class="related products"><h2>You may also like</h2><ul><li><a href="/p/1">Summit Daypack 30L</a> $89.00</li></ul></div>
		</main><footer>Example Outfitters</footer></body></html>`
	body := firstElement(t, page, atom.Body)
	product := joinBlocks(regionBlocks(body, true, hintCache{}, newBudget(DefaultMaxWork, DefaultTimeout)))
	checkText(t, product, []string{"Trail Backpack 65L", "$189.00", "A 65-litre pack for long trails", "Weight: 1.9 kg"},
		[]string{"Carried it for three weeks", "Summit Daypack", "View cart", "Example Outfitters"})
	if other := joinBlocks(regionBlocks(body, false, hintCache{}, newBudget(DefaultMaxWork, DefaultTimeout))); !strings.Contains(other, "Carried it for three weeks") {
		t.Errorf("another kind's region left out the reviews:\n%s", other)
	}
}

func TestNamedAmong_MatchesWholeWordsOfClassAndID(t *testing.T) {
	words := map[string]bool{"reviews": true, "related": true}
	for _, tc := range []struct {
		attrs string
		want  bool
	}{
		{`class="product-reviews"`, true},
		{`id="related_products"`, true},
		{`class="reviewsSlider"`, false}, // one word: reviewsslider
		{`data-x="reviews"`, false},
		{`class="preview"`, false},
	} {
		if got := namedAmong(firstElement(t, `<div `+tc.attrs+`>x</div>`, atom.Div), words); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.attrs, got, tc.want)
		}
	}
}
