package article

import (
	"net/url"
	"strings"

	"github.com/newscrawl/newscrawl/internal/quickre"
)

// Page kinds reported in Article.PageKind.
const (
	KindArticle = "article"
	KindListing = "listing"
	KindGallery = "gallery"
	KindVideo   = "video"
	KindEmpty   = "empty"
	KindOther   = "other"
)

// pageSignals are the inputs of the page classifier.
type pageSignals struct {
	words        int     // words of the extracted main text
	bodyLinkDens float64 // link density of the whole body
	paras        int     // extracted blocks with >= 40 runes
	teaserHeads  int     // extracted headings that are mostly a link
	images       int
	articles     int // <article> elements
	headLinks    int // headings containing links
	ld           *ldData
	ogType       string
	dated        bool // publication date declared in metadata (not guessed from the URL)
	pageURL      string
	headline     bool // the page has a title
	archiveTitle bool // the title names a list of posts (reArchiveTitle)
}

// reArchiveTitle is a title that names a list of posts: a blog engine's
// archive ("Category: Budgets", "Month: 2024/11", "Tag: bikes") or a
// section's bare name ("News", "Posts", "Archives").
var reArchiveTitle = quickre.MustCompile(`(?i)^(?:(?:category|tag|month|year|day|archives?|topic|series)\s*:\s*\S.*|news|blog|posts|all posts|articles|archives?|stories|latest news|latest posts|press releases)$`)

// classify decides whether the page is a single article and what else it
// is. Explicit markup (JSON-LD type, og:type) is trusted first; otherwise
// the amount of main text against links and teaser headlines decides.
func classify(s pageSignals) (bool, string) {
	galleryType := s.ld.types["imagegallery"] || s.ld.types["mediagallery"] || strings.Contains(s.ogType, "gallery")
	// Yoast writes og:type "article" on every page but the home page, its
	// archives too; there its JSON-LD names a CollectionPage and no article.
	listed := s.ld.articleCounts == 0 && (s.ld.types["collectionpage"] || s.ld.types["searchresultspage"])
	marked := s.ld.articleCounts == 1 || strings.HasPrefix(s.ogType, "article") && !listed
	if s.archiveTitle && !marked {
		return false, KindListing
	}
	video := s.ld.types["videoobject"] || strings.HasPrefix(s.ogType, "video")
	// Short news is news: a page that declares itself an article and has a
	// headline is one, however short its body (a one-line news brief).
	if marked && s.headline && s.words > 0 && s.words < 30 && !galleryType && !video && s.images < 4 {
		return true, KindArticle
	}
	if s.words < 20 && s.ld.body == "" {
		switch {
		case galleryType || s.images >= 6:
			return false, KindGallery
		case s.bodyLinkDens > 0.5:
			// Next to no words of its own, and those mostly links: a home
			// or section page that lists a few stories, not an empty one.
			return false, KindListing
		}
		return false, KindEmpty
	}
	if galleryType && s.words < 300 {
		return false, KindGallery
	}
	if marked {
		switch {
		case s.words >= 30:
			return true, KindArticle
		case video:
			return false, KindVideo
		case s.images >= 4:
			return false, KindGallery
		}
		return false, KindOther
	}
	if s.ld.types["collectionpage"] || s.ld.types["itemlist"] || s.ld.types["searchresultspage"] {
		return false, KindListing
	}
	teasers := s.headLinks >= 8 || s.articles >= 6 || s.ld.articleCounts >= 4
	if s.teaserHeads >= 4 {
		// The "main text" itself is a run of linked headlines with excerpts.
		return false, KindListing
	}
	linky := s.bodyLinkDens > 0.45
	switch {
	case teasers && (s.words < 150 || (linky && s.paras < 4)):
		// A real story keeps several paragraphs however busy the page is.
		return false, KindListing
	case isRootURL(s.pageURL) && (teasers || s.bodyLinkDens > 0.4):
		return false, KindListing
	case s.images >= 8 && s.words < 120 && s.paras < 3:
		return false, KindGallery
	case s.words >= 300 || (s.words >= 150 && s.paras >= 2):
		return true, KindArticle
	case (s.dated || s.articles == 1) && s.words >= 50 && !linky:
		return true, KindArticle
	case s.bodyLinkDens > 0.5:
		return false, KindListing
	}
	return false, KindOther
}

// firmVerdict reports a kind the page's form alone decides, which the
// page-kind model (pagekind.go) does not overturn: an archive's title, a
// main text that is a run of linked headlines, a page of links with next
// to no words of its own, or a gallery with a caption's worth of words
// and no article markup.
// Linked headlines with two paragraphs or more under each are as likely a
// long guide's or a manual's section heads as a river of teasers: the
// model decides.
func firmVerdict(s pageSignals, kind string) bool {
	switch kind {
	case KindListing:
		return s.archiveTitle || s.words < 20 || s.teaserHeads >= 8 && s.paras < 2*s.teaserHeads || s.words < 150 && (s.headLinks >= 8 || s.articles >= 6)
	case KindGallery:
		return s.words < 40 && s.ld.articleCounts == 0 && !strings.HasPrefix(s.ogType, "article")
	}
	return false
}

// isRootURL reports a home page URL (empty path, index page or language root).
func isRootURL(u string) bool {
	if u == "" {
		return false
	}
	p, err := url.Parse(u)
	if err != nil {
		return false
	}
	path := strings.Trim(p.Path, "/")
	return path == "" || path == "index.html" || path == "index.php" || len(path) == 2
}
