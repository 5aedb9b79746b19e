package article

import (
	"strings"
	"testing"
)

// Fixtures of paywalled articles (issue 17 item 2), written for the
// project: the text the page holds is kept, the subscription box dropped,
// and Article.Paywalled set from the publisher's markup.
func TestExtractPaywall(t *testing.T) {
	teaser := "<p>" + storyParas[0] + "</p><p>" + storyParas[1] + "</p>"
	var free, paid, rest strings.Builder
	for i, p := range storyParas {
		switch {
		case i < 5:
			free.WriteString("<p>" + p + "</p>")
		default:
			paid.WriteString("<p>" + p + "</p>")
		}
		if i >= 2 {
			rest.WriteString("<p>" + p + "</p>")
		}
	}
	subscribe := `<div class="subscribe-box"><p>Subscribe to the Coast Post to keep reading. Already a subscriber? Log in.</p></div>`
	ld := func(obj string) string { return `<script type="application/ld+json">` + obj + `</script>` }
	cases := []struct {
		name     string
		head     string
		body     string
		want     []string // texts to keep
		wantPaid bool
	}{
		{
			name: "the free preview beside the paid part, named for subscribers too (TownNews)",
			head: ld(`{"@context":"https://schema.org","@type":"NewsArticle","headline":"Harbour reopens after the storm",
				"isAccessibleForFree":"False","hasPart":{"@type":"WebPageElement","isAccessibleForFree":"False","cssSelector":".subscriber-only"}}`),
			body:     `<div class="asset-content subscriber-premium"><div class="subscriber-preview">` + teaser + `</div><div class="subscriber-only">` + rest.String() + `</div></div>`,
			want:     storyParas,
			wantPaid: true,
		},
		{
			name: "JSON-LD hasPart names the paid part, which the page holds after a long free part",
			head: ld(`{"@context":"https://schema.org","@type":"NewsArticle","headline":"Harbour reopens after the storm",
				"isAccessibleForFree":"False","hasPart":{"@type":"WebPageElement","isAccessibleForFree":"False","cssSelector":".paywall"}}`),
			body:     free.String() + `<div class="paywall">` + paid.String() + `</div>` + subscribe,
			want:     storyParas,
			wantPaid: true,
		},
		{
			name: "the paid part named by a long data attribute's value, its class a paywall's",
			head: ld(`{"@context":"https://schema.org","@type":"NewsArticle","headline":"Harbour reopens after the storm",
				"isAccessibleForFree":"False","hasPart":{"@type":"WebPageElement","isAccessibleForFree":"False","cssSelector":"[data-content-tier='subscriber-only-premium-article-body']"}}`),
			body:     pTags(storyParas[:len(storyParas)-1]) + `<div class="paywall" data-content-tier="subscriber-only-premium-article-body"><p>` + storyParas[len(storyParas)-1] + `</p></div>` + subscribe,
			want:     storyParas,
			wantPaid: true,
		},
		{
			name:     "teaser only, locked content tier",
			head:     `<meta property="article:content_tier" content="locked">`,
			body:     teaser + subscribe,
			want:     storyParas[:2],
			wantPaid: true,
		},
		{
			name:     "isAccessibleForFree false as a boolean on the web page",
			head:     ld(`{"@context":"https://schema.org","@graph":[{"@type":"WebPage","isAccessibleForFree":false},{"@type":"NewsArticle","headline":"Harbour reopens after the storm"}]}`),
			body:     teaser + subscribe,
			want:     storyParas[:2],
			wantPaid: true,
		},
		{
			name:     "microdata says not free",
			head:     `<meta itemprop="isAccessibleForFree" content="false">`,
			body:     teaser + subscribe,
			want:     storyParas[:2],
			wantPaid: true,
		},
		{
			name: "free article",
			head: ld(`{"@context":"https://schema.org","@type":"NewsArticle","headline":"Harbour reopens after the storm","isAccessibleForFree":true}`) +
				`<meta property="article:content_tier" content="free">`,
			body: teaser + rest.String(),
			want: storyParas,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			page := `<html><head><title>Harbour reopens after the storm | Coast Post</title>` + tc.head + `</head><body>
				<nav><a href="/">Coast Post</a> <a href="/news">News</a></nav>
				<main><article><h1>Harbour reopens after the storm</h1><div class="story">` + tc.body + `</div></article></main></body></html>`
			a := mustExtract(t, page, "https://coastpost.example/news/harbour-reopens")
			if a.Paywalled != tc.wantPaid {
				t.Errorf("Paywalled = %v, want %v", a.Paywalled, tc.wantPaid)
			}
			for _, w := range tc.want {
				if !strings.Contains(a.Text, w) {
					t.Errorf("lost %q:\n%s", w[:40], a.Text)
				}
			}
			if strings.Contains(a.Text, "keep reading") {
				t.Errorf("kept the subscription box:\n%s", a.Text)
			}
		})
	}
}
