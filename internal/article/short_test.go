package article_test

import (
	"testing"

	"github.com/newscrawl/newscrawl/internal/article"
)

// Short news is news: a page that declares itself an article, with a
// headline and a one-sentence body, is an article; a page with neither
// headline nor text is empty.
func TestExtract_OneSentenceNewsArticleIsAnArticle(t *testing.T) {
	brief := `<!doctype html><html lang="en"><head><title>Power restored in the old town</title>
<meta property="og:type" content="article">
<script type="application/ld+json">{"@context":"https://schema.org","@type":"NewsArticle","headline":"Power restored in the old town","datePublished":"2026-11-26T12:00:00Z"}</script>
</head><body><header><a href="/">Home</a></header><article><h1>Power restored in the old town</h1>
<p>Power was restored to the old town at noon after a cable fault left two thousand homes dark.</p></article></body></html>`
	a, err := article.Extract([]byte(brief), "https://news.example/local/power", article.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !a.IsArticle || a.PageKind != article.KindArticle {
		t.Fatalf("one-sentence news brief: article=%v kind=%s, want an article", a.IsArticle, a.PageKind)
	}
	empty, err := article.Extract([]byte(`<html><head></head><body><div></div></body></html>`), "https://news.example/x", article.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if empty.IsArticle || empty.PageKind != article.KindEmpty {
		t.Fatalf("empty page: article=%v kind=%s, want empty", empty.IsArticle, empty.PageKind)
	}
}
