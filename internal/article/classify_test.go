package article

import (
	"fmt"
	"strings"
	"testing"
)

func TestExtractClassifiesNonArticles(t *testing.T) {
	var listing strings.Builder
	listing.WriteString(`<html><head><title>Example News - Home</title><meta property="og:type" content="website"></head><body><nav><a href="/">Home</a></nav><main>`)
	for i := 0; i < 12; i++ {
		fmt.Fprintf(&listing, `<article class="teaser"><h2><a href="/story-%d">Headline number %d about city affairs</a></h2><p>Short teaser %d.</p></article>`, i, i, i)
	}
	listing.WriteString(`</main></body></html>`)

	var excerpts strings.Builder
	excerpts.WriteString(`<html><head><title>World news</title></head><body><div class="river">`)
	for i, p := range articleParas(8) {
		fmt.Fprintf(&excerpts, `<div class="item"><h3><a href="/world/story-%d">World story number %d</a></h3><p>%s</p></div>`, i, i, p)
	}
	excerpts.WriteString(`</div></body></html>`)

	var gallery strings.Builder
	gallery.WriteString(`<html><head><title>Photos: the storm</title></head><body><div class="gallery">`)
	for i := 0; i < 12; i++ {
		fmt.Fprintf(&gallery, `<div class="slide"><img src="/p/%d.jpg"><span>Photo %d</span></div>`, i, i)
	}
	gallery.WriteString(`</div></body></html>`)

	cases := []struct {
		name, page, url, kind string
	}{
		{"listing", listing.String(), "https://example.com/", KindListing},
		{"section listing", listing.String(), "https://example.com/world/", KindListing},
		{"listing with excerpts", excerpts.String(), "https://example.com/world/", KindListing},
		{"gallery", gallery.String(), "https://example.com/photos/storm", KindGallery},
		{"empty shell", `<html><head><title>App</title><script>render()</script></head><body><div id="root"></div><noscript>Enable JavaScript.</noscript></body></html>`, "", KindEmpty},
		{"article", `<html><body><article>` + pTags(articleParas(6)) + `</article></body></html>`, "https://example.com/2020/01/02/x", KindArticle},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := mustExtract(t, tc.page, tc.url)
			if a.PageKind != tc.kind {
				t.Errorf("PageKind = %q, want %q (words=%d)", a.PageKind, tc.kind, a.WordCount)
			}
			if a.IsArticle != (tc.kind == KindArticle) {
				t.Errorf("IsArticle = %v for kind %q", a.IsArticle, tc.kind)
			}
		})
	}
}
