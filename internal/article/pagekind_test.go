package article

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestPageKindModel_FitsTheFeatures(t *testing.T) {
	if kindModelErr != nil {
		t.Fatal(kindModelErr)
	}
	m := pageKindModel
	if m.ArticleFloor <= 0 || m.ArticleFloor >= 1 || m.RescueFloor <= 0 || m.RescueFloor >= 1 {
		t.Errorf("floors %v and %v: want probabilities strictly between 0 and 1", m.ArticleFloor, m.RescueFloor)
	}
	if !strings.Contains(m.Data, "CC-BY-4.0") || m.Command == "" {
		t.Errorf("the model must say what it was trained on, under which licence, and how: data %q, command %q", m.Data, m.Command)
	}
	p := m.Probabilities(make([]float64, len(kindFeatureNames)))
	var sum float64
	for _, c := range m.Classes {
		sum += p[c]
	}
	if sum < 0.999 || sum > 1.001 {
		t.Errorf("probabilities sum to %v", sum)
	}
}

// The kinds WCXB's annotators label beside articles, on pages built the
// way such pages are built: each has as much prose as a short story, so
// only the model tells them apart.
func TestExtract_PagesThatAreNotStories(t *testing.T) {
	prose := pTags(articleParas(5))
	cases := []struct {
		name, url, page string
		wantArticle     bool
		wantKind        string
	}{
		{"news story", "https://news.example.com/2025/03/14/council-budget-vote",
			`<html><head><title>Council passes budget</title><meta property="og:type" content="article">
			<meta property="article:published_time" content="2025-03-14T09:00:00Z">
			<script type="application/ld+json">{"@type":"NewsArticle","headline":"Council passes budget","datePublished":"2025-03-14T09:00:00Z","author":{"@type":"Person","name":"Jane Reporter"}}</script></head>
			<body><nav><a href="/">Home</a><a href="/world">World</a></nav><article><h1>Council passes budget</h1><p class="byline">By Jane Reporter</p>` + pTags(articleParas(8)) +
				`</article><aside><a href="/share">Share on Facebook</a></aside></body></html>`, true, KindArticle},
		{"product page", "https://shop.example.com/product/trail-backpack-65",
			`<html><head><title>Trail Backpack 65L | Example Outfitters</title><meta property="og:type" content="product">
			<script type="application/ld+json">{"@type":"Product","name":"Trail Backpack 65L","offers":{"@type":"Offer","price":"189.00","priceCurrency":"USD"},"aggregateRating":{"@type":"AggregateRating","ratingValue":"4.6"}}</script></head>
			<body><nav><a href="/">Shop</a><a href="/cart">View cart</a></nav><main><h1>Trail Backpack 65L</h1><p class="price">$189.00</p>
			<form><select name="size"><option>S</option><option>M</option></select><select name="color"><option>Green</option></select>
			<input type="number" value="1"><button>Add to cart</button><button>Add to wishlist</button></form><p>In stock, ships in 2 days.</p>` + prose +
				`<h2>Reviews</h2><button>Write a review</button></main></body></html>`, false, KindProduct},
		{"documentation page", "https://docs.example.dev/docs/guide/configuration",
			`<html><head><title>Configuration - Example Docs</title></head>
			<body><nav>` + strings.Repeat(`<a href="/docs/x">Reference</a>`, 30) + `</nav><main><h1>Configuration</h1><p><a href="/edit">Edit this page</a></p>` + prose +
				`<pre><code>example --config ./app.toml</code></pre><h2>Options</h2><table><tr><td>port</td><td>8080</td></tr></table><pre><code>[server]
port = 8080</code></pre>` + prose + `<aside><h4>On this page</h4><a href="#a">Options</a></aside><a href="/docs/prev">Previous</a><a href="/docs/next">Next</a></main></body></html>`, false, KindDocumentation},
		{"service page", "https://www.example-movers.com/services/office-relocation/",
			`<html><head><title>Office Relocation Services | Example Movers</title><meta property="og:type" content="website">
			<script type="application/ld+json">{"@type":"LocalBusiness","name":"Example Movers","telephone":"+1-555-0100"}</script></head>
			<body><nav><a href="/">Home</a><a href="/services/">Our services</a><a href="/pricing">Pricing</a><a href="/contact">Contact us</a></nav><main>
			<h1>Office relocation</h1><p>We move offices of every size, and our crews work nights and weekends so your team loses no working day. We plan every move with you, and our project managers stay with you until the last desk is in place.</p>
			<h2>Why choose us</h2><ul><li>Our crews are trained and insured.</li><li>We pack, label and set up your IT equipment.</li><li>You get one fixed price, with no hidden fees.</li></ul>
			<p>Call us for a free consultation, or request a quote online: we answer within one business day.</p>
			<a class="btn" href="/quote">Get a quote</a><a class="btn" href="tel:5550100">Call now</a><form><input name="email"><input name="phone"><textarea></textarea><button>Request a quote</button></form></main></body></html>`, false, KindService},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := mustExtract(t, tc.page, tc.url)
			if a.IsArticle != tc.wantArticle || a.PageKind != tc.wantKind {
				in, _ := KindFeatures([]byte(tc.page), tc.url, Options{})
				t.Errorf("IsArticle %v, PageKind %q; want %v, %q (words %d, model %v)", a.IsArticle, a.PageKind, tc.wantArticle, tc.wantKind,
					a.WordCount, fmt.Sprint(pageKindModel.Probabilities(in.Features)))
			}
		})
	}
}

// Prices are a currency sign beside a digit, whichever side, with at most
// one space between; a sign alone, or cut off at the text's end, is none.
func TestCountPrices(t *testing.T) {
	for text, want := range map[string]int{
		"$12 and €9.99, 15 € or £ 5 and ¥100": 5,
		"costs US$40":              1,
		"$ alone, € and £, then ¥": 0,
		"ends with a sign $":       0,
		"truncated \xe2\x82":       0,
		"no prices here at all":    0,
		"€€€1":                     1,
	} {
		if got := countPrices(text, 50); got != want {
			t.Errorf("countPrices(%q) = %d, want %d", text, got, want)
		}
	}
	if got := countPrices("$1 $2 $3 $4", 3); got != 3 {
		t.Errorf("countPrices with limit 3 = %d", got)
	}
}

// The model sees a publication day from any source, a day shown under the
// headline too, and not only one the markup declares: a story that
// declares none still reads as dated, a pricing page does not.
func TestKindFeatures_PublishedCountsShownDays(t *testing.T) {
	at := slices.Index(kindFeatureNames, "published")
	if at < 0 {
		t.Fatal(`no "published" feature`)
	}
	page := func(dateLine string) string {
		return `<html><head><title>Harbour ferry returns</title></head><body><main><h1>Harbour ferry returns</h1>` +
			dateLine + pTags(articleParas(6)) + `</main></body></html>`
	}
	for _, tc := range []struct {
		name, dateLine string
		want           float64
	}{
		{"a day shown under the headline", `<p class="text-muted">March 12, 2025</p>`, 1},
		{"no day anywhere", ``, 0},
	} {
		in, err := KindFeatures([]byte(page(tc.dateLine)), "https://news.example.com/harbour-ferry-returns", Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got := in.Features[at]; got != tc.want {
			t.Errorf("%s: published %v, want %v", tc.name, got, tc.want)
		}
		if got := in.Features[slices.Index(kindFeatureNames, "declared_date")]; got != 0 {
			t.Errorf("%s: declared_date %v; the page declares no day", tc.name, got)
		}
	}
}

// A page in German, French, Spanish, Italian, Portuguese or Dutch gives the
// model the inputs its English twin gives: its buttons' words and its URL's
// words count as theirs do.
func TestKindFeatures_OtherLanguagesReadAsEnglish(t *testing.T) {
	shop := func(lang, button, path string) ([]float64, error) {
		page := `<html lang="` + lang + `"><head><title>Walking boot</title></head><body><main><h1>Walking boot</h1>` +
			`<p>A light boot for long days on rough ground.</p><p>€ 129,00</p><button>` + button + `</button></main></body></html>`
		in, err := KindFeatures([]byte(page), "https://shop.example.com/"+path+"/walking-boot", Options{})
		return in.Features, err
	}
	english, err := shop("en", "Add to cart", "products")
	if err != nil {
		t.Fatal(err)
	}
	cart, product := slices.Index(kindFeatureNames, "cue_cart"), slices.Index(kindFeatureNames, "url_product")
	if english[cart] == 0 || english[product] == 0 {
		t.Fatalf("the English page reads no cart cue (%v) or no product URL (%v)", english[cart], english[product])
	}
	for _, tc := range []struct{ lang, button, path string }{
		{"de", "In den Warenkorb", "produkte"},
		{"fr", "Ajouter au panier", "produits"},
		{"es", "Añadir al carrito", "productos"},
		{"it", "Aggiungi al carrello", "prodotti"},
		{"pt", "Adicionar ao carrinho", "produtos"},
		{"nl", "In winkelwagen", "product"},
	} {
		got, err := shop(tc.lang, tc.button, tc.path)
		if err != nil {
			t.Fatal(err)
		}
		if got[cart] != english[cart] || got[product] != english[product] {
			t.Errorf("%s: cue_cart %v, url_product %v; the English page gives %v, %v", tc.lang, got[cart], got[product], english[cart], english[product])
		}
	}
}
