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

	// A short Chinese story beside a busier column of linked headlines: its
	// paragraphs are short in runes but full sentences.
	var zh strings.Builder
	zh.WriteString(`<html><head><title>预算通过 - 日报</title></head><body><div class="main"><h1>预算通过</h1><div class="txt">`)
	for _, p := range []string{"市议会周二投票通过了新的预算方案，其中包括学校、道路和公园的资金。", "官员表示，这项耗时六个月起草的计划将在市长最终审查后于一月生效。",
		"出席会议的居民对成本上涨、交通拥堵和缺乏经济适用房表示担忧。", "几位议员认为该提案力度不够，另一些人则警告说这会消耗储备金。",
		"据财政部门称，房产税收入增长了百分之四，略高于此前的预测。", "市长在投票后对记者说，这份预算在雄心和责任之间取得了谨慎的平衡。"} {
		zh.WriteString("<p>" + p + "</p>")
	}
	zh.WriteString(`</div></div><div class="side"><ul>`)
	for i := 0; i < 12; i++ {
		fmt.Fprintf(&zh, `<li><a href="/n/%d">热门新闻第%d条：城市交通改善计划公布</a></li>`, i, i)
	}
	zh.WriteString(`</ul></div></body></html>`)

	// A long guide whose section heads link to their own pages: a run of
	// linked headlines, but with a story's prose under each.
	var guide strings.Builder
	guide.WriteString(`<html><head><title>A beginner's guide to music lessons</title></head><body><main><h1>A beginner's guide to music lessons</h1>`)
	paras := articleParas(30)
	for i := range 10 {
		fmt.Fprintf(&guide, `<h2><a href="/resources/lessons-%d">Why lessons matter, part %d</a></h2>%s`, i, i, pTags(paras[3*i:3*i+3]))
	}
	guide.WriteString(`</main></body></html>`)

	cases := []struct {
		name, page, url, kind string
	}{
		{"a guide whose section heads link", guide.String(), "https://example.com/resources/articles/beginners-guide/", KindArticle},
		{"short Chinese article beside links", zh.String(), "https://example.com/news/budget", KindArticle},
		{"listing", listing.String(), "https://example.com/", KindListing},
		{"section listing", listing.String(), "https://example.com/world/", KindListing},
		{"listing with excerpts", excerpts.String(), "https://example.com/world/", KindListing},
		{"gallery", gallery.String(), "https://example.com/photos/storm", KindGallery},
		{"a section page of three links", `<html><head><title>Science - The Courier</title></head><body><header><a href="/">The Courier</a><nav><a href="/local/">Local</a> <a href="/science/">Science</a></nav></header>` +
			`<main><h1>Science</h1><ul><li><a href="/science/a">Comet seen over the valley</a></li><li><a href="/science/b">New lab opens at the college</a></li><li><a href="/science/c">River survey counts otters</a></li></ul></main>` +
			`<footer><p>© The Courier. <a href="/about">About us</a></p></footer></body></html>`, "https://example.com/science/", KindListing},
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

// A blog engine's archive ("Month: 2024/11", "Category: Budgets") or a
// section's bare name ("News") titles a list of posts, however long their
// excerpts; a page marked as an article stays one, but for og:type beside
// a JSON-LD CollectionPage.
func TestExtractArchiveTitlesMakeListings(t *testing.T) {
	var posts strings.Builder
	for i, p := range articleParas(6) {
		fmt.Fprintf(&posts, `<article class="post"><h2 class="entry-title"><a href="/2024/11/post-%d/">Post number %d on saving money</a></h2><div class="entry-summary"><p>%s […]</p></div></article>`, i, i, p)
	}
	cases := []struct{ title, head, want string }{
		{"Month: 2024/11", "", KindListing},
		{"Category: Budgets", "", KindListing},
		{"News", "", KindListing},
		{"News", `<meta property="og:type" content="article">`, KindArticle},
		// Yoast writes og:type "article" on archives too; their JSON-LD
		// is a CollectionPage without an article.
		{"Category: Budgets", `<meta property="og:type" content="article"><script type="application/ld+json">{"@context":"https://schema.org","@graph":[{"@type":"CollectionPage","name":"Budgets Archives"}]}</script>`, KindListing},
		{"News", `<meta property="og:type" content="article"><script type="application/ld+json">{"@graph":[{"@type":"CollectionPage"},{"@type":"BlogPosting","headline":"News"}]}</script>`, KindArticle},
		{"News from the budget office", "", KindArticle},
	}
	for _, tc := range cases {
		page := `<html><head><title>` + tc.title + `</title>` + tc.head + `</head><body><main><h1>` + tc.title + `</h1>` + posts.String() + `</main></body></html>`
		if got := mustExtract(t, page, "https://moneyblog.example/2024/11/").PageKind; got != tc.want {
			t.Errorf("%q %s: PageKind = %q, want %q", tc.title, tc.head, got, tc.want)
		}
	}
}
