// Package article extracts the main text and metadata of a news/article
// web page from raw HTML bytes, without network access or external services.
//
// Pipeline (one file per step): charset.go decodes to UTF-8; dom.go parses
// under node/depth/time limits; metadata.go and jsonld.go read head, microdata
// and JSON-LD, and prune.go removes scripts and hidden elements, both through
// goquery selections (selectors.go); content.go marks
// chrome by tag/role/class (patterns.go) and stats.go measures text and link
// density; score.go credits paragraph scores to ancestors, picks the best
// container and related siblings; clean.go and text.go render it into blocks;
// filter.go drops UI text and trailing "related"/comment sections; ldbody.go
// checks the result against the publisher's JSON-LD articleBody; classify.go
// tells articles from listings, galleries and empty shells.
package article

import (
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/PuerkitoBio/goquery"
)

// Article is the extraction result for one page.
type Article struct {
	Title        string     `json:"title"`         // headline, site-name suffix removed
	Text         string     `json:"text"`          // main text, NFC, blocks separated by "\n\n" (a page that is no story: its main region, region.go)
	Description  string     `json:"description"`   // og/meta/JSON-LD description
	SiteName     string     `json:"site_name"`     // publisher name
	CanonicalURL string     `json:"canonical_url"` // absolute; pageURL when none is declared
	Language     string     `json:"language"`      // lower-case primary subtag ("en"), "" if unknown
	TopImage     string     `json:"top_image"`     // absolute when a base URL is known
	Section      string     `json:"section"`
	Authors      []string   `json:"authors"`
	Tags         []string   `json:"tags"`
	PublishedAt  *time.Time `json:"published_at"`
	ModifiedAt   *time.Time `json:"modified_at"`
	IsArticle    bool       `json:"is_article"`
	Paywalled    bool       `json:"paywalled"`  // the page's markup says the full text is for subscribers (paywall.go)
	PageKind     string     `json:"page_kind"`  // one of the Kind* constants
	WordCount    int        `json:"word_count"` // words of Text (CJK: characters)
}

// Extract parses one HTML page (any charset) and returns its main text and
// metadata. pageURL may be empty; it resolves relative links and supplies URL
// dates. Errors wrap ErrNotHTML, ErrTooLarge or ErrTooComplex (verdicts on
// the page), or ErrRunaway (the time guard: try again later).
func Extract(raw []byte, pageURL string, opt Options) (*Article, error) {
	opt = opt.withDefaults()
	return extractWith(raw, pageURL, opt, newBudget(opt.MaxWork, opt.Timeout))
}

// extractWith is Extract under a budget the caller holds.
func extractWith(raw []byte, pageURL string, opt Options, bud *budget) (*Article, error) {
	pageURL = strings.TrimSpace(strings.ToValidUTF8(pageURL, ""))
	where := "extract"
	if pageURL != "" {
		where += " " + pageURL
	}
	if len(raw) > opt.MaxBytes {
		return nil, fmt.Errorf("%s: %w: %d bytes (limit %d)", where, ErrTooLarge, len(raw), opt.MaxBytes)
	}
	src, err := toUTF8(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	src = repairMojibake(src)
	doc, err := parseHTML(src, opt, bud)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	// The DOM work before scoring goes through goquery selections over the
	// parsed tree (wrapping it costs nothing); measuring, scoring and
	// rendering (stats.go, score.go, text.go) walk *html.Node directly, as
	// they visit every node several times and keep per-node state.
	page := goquery.NewDocumentFromNode(doc)
	elems := page.FindMatcher(pageElements)
	if placeStreamed(doc, elems.Nodes) {
		elems = page.FindMatcher(pageElements) // in their new order, fallbacks gone
	}
	if openNoscript(elems.Nodes, opt, bud) {
		elems = page.FindMatcher(pageElements) // with the page the <noscript> held
	}
	hc := hintCache{}
	pm := collectMeta(elems, hc, pageURL)
	counts := countPage(elems.Nodes)
	body := doc
	if b := page.FindMatcher(selBody); b.Length() > 0 {
		body = b.Get(0)
	}
	pruneJunk(elems, body)
	pm.paid = paidContent(page, pm.ld.paidParts)
	res := extractContent(body, pm, hc, bud)
	if pm.ld.body != "" {
		res.blocks = reconcileLD(res.blocks, pm.ld.body)
	}
	if bud.over() {
		return nil, fmt.Errorf("%s: %w", where, bud.err())
	}
	a := assemble(pm, res, counts, pageURL, opt.kindSample)
	a.PublishedAt, a.ModifiedAt = notAfter(a.PublishedAt, opt.FetchedAt), notAfter(a.ModifiedAt, opt.FetchedAt)
	if !a.IsArticle && regionKinds[a.PageKind] {
		useRegion(a, res.blocks, regionBlocks(body, a.PageKind == KindProduct, hc, bud))
		if bud.over() {
			return nil, fmt.Errorf("%s: %w", where, bud.err())
		}
	}
	return a, nil
}

// maxTitleRunes bounds a title: a <title> of thousands of parts (a
// spammer's, a broken template's) is no headline, and would be stored,
// shown and embedded whole.
const maxTitleRunes = 500

// clipTitle cuts a title longer than maxTitleRunes at the last space
// before the bound, and marks the cut with "…".
func clipTitle(t string) string {
	n := 0
	for i := range t {
		if n == maxTitleRunes {
			cut := t[:i]
			if j := strings.LastIndexByte(cut, ' '); j > len(cut)/2 {
				cut = cut[:j]
			}
			return strings.TrimRight(cut, " |-–—·•:,;") + "…"
		}
		n++
	}
	return t
}

// assemble combines the content result and the metadata into an Article.
// When sample is not nil it receives the page-kind model's input.
func assemble(pm *pageMeta, res contentResult, counts pageCounts, pageURL string, sample *KindSample) *Article {
	a := &Article{}
	a.Text = joinBlocks(res.blocks)
	a.WordCount = countWords(a.Text)
	a.SiteName = pm.siteName()
	a.Title = clipTitle(pm.title(a.SiteName))
	a.Description = firstNonEmpty(pm.get("og:description", "twitter:description", "description", "dc.description"), cleanInline(pm.ld.description))

	base, _ := url.Parse(pageURL)
	canon := firstNonEmpty(pm.canonical, pm.get("og:url"), pm.ld.url)
	if canon != "" {
		a.CanonicalURL = resolveURL(base, canon)
	} else {
		a.CanonicalURL = pageURL
	}
	if base == nil || base.Host == "" {
		base, _ = url.Parse(a.CanonicalURL)
	}
	img := firstNonEmpty(pm.get("og:image", "og:image:url", "og:image:secure_url", "twitter:image", "twitter:image:src", "itemprop:image", "thumbnail"), pm.ld.image)
	if img == "" && len(pm.images) > 0 {
		img = pm.images[0]
	}
	a.TopImage = resolveURL(base, img)

	a.Language = firstNonEmpty(normLang(pm.htmlLang), normLang(pm.get("content-language", "language", "dc.language", "og:locale")), normLang(pm.ld.language))
	if a.Language == "" {
		a.Language = detectLanguage(a.Text)
	}
	a.Section = firstNonEmpty(pm.get("article:section", "parsely-section", "section", "itemprop:articlesection"), cleanInline(pm.ld.section))
	a.Tags = dedupe(append(pm.all("article:tag", "news_keywords", "keywords", "parsely-tags"), pm.ld.keywords...))
	a.Authors = pm.authors(firstNonEmpty(pageURL, a.CanonicalURL))
	if bs := withoutSignOff(withoutBylines(res.blocks, pm.creditLines, a.Authors), a.Authors); len(bs) < len(res.blocks) {
		res.blocks = bs
		a.Text = joinBlocks(bs)
		a.WordCount = countWords(a.Text)
	}
	a.Paywalled = pm.paywalled()
	var dated, undated bool
	a.PublishedAt, dated, undated = pm.publishedAt(firstNonEmpty(pageURL, a.CanonicalURL))
	a.ModifiedAt = pm.modifiedAt()

	sig := pageSignals{words: a.WordCount, images: len(pm.images), articles: pm.articles,
		headLinks: pm.headLinks, ld: pm.ld, ogType: strings.ToLower(pm.get("og:type")), dated: dated, pageURL: firstNonEmpty(pageURL, a.CanonicalURL),
		headline: a.Title != "", archiveTitle: reArchiveTitle.MatchString(a.Title)}
	if res.bodyText > 0 {
		sig.bodyLinkDens = float64(res.bodyLink) / float64(res.bodyText)
	}
	for _, b := range res.blocks {
		if b.runes >= 40 || countWords(b.text) >= 12 {
			sig.paras++ // a paragraph in any script (CJK characters count as words)
		}
		if isHeading(b.tag) && b.linkLen*2 > b.runes {
			sig.teaserHeads++
		}
	}
	a.IsArticle, a.PageKind = classify(sig)
	x := kindInputs{sig: sig, counts: counts, authors: len(a.Authors), blocks: res.blocks, text: a.Text, title: a.Title, timeTags: len(pm.times), ruleKind: a.PageKind, bodyText: res.bodyText, published: a.PublishedAt != nil}.features()
	firm := firmVerdict(sig, a.PageKind)
	if sample != nil {
		*sample = KindSample{Features: x, RuleKind: a.PageKind, IsArticle: a.IsArticle, Firm: firm}
	}
	a.IsArticle, a.PageKind = pageKindModel.decide(a.IsArticle, a.PageKind, firm, x)
	if undated && a.IsArticle {
		// A story's WebPage object dates the story (a Yoast page rather
		// than post); a service page's, only the page. Last, the day the
		// story shows as updated, when it shows no other.
		a.PublishedAt = parseDate(pm.ld.pagePublished)
		if a.PublishedAt == nil {
			a.PublishedAt = pm.updatedDay(firstNonEmpty(pageURL, a.CanonicalURL))
		}
	}
	return a
}

// firstNonEmpty returns the first non-empty argument.
func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// dedupe splits comma lists, trims and removes duplicates (case-insensitive).
func dedupe(in []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range in {
		for _, p := range strings.Split(s, ",") {
			p = cleanInline(p)
			k := strings.ToLower(p)
			if p == "" || seen[k] || len(p) > 80 {
				continue
			}
			seen[k] = true
			out = append(out, p)
		}
	}
	return out
}
