package article

import (
	"cmp"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/PuerkitoBio/goquery"
	"github.com/newscrawl/newscrawl/internal/quickre"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// pageMeta gathers every metadata signal of a page before any cleaning.
type pageMeta struct {
	meta      map[string][]string // lower-cased meta name/property/itemprop -> contents
	pageURL   string              // where the page was fetched, as Extract was given it
	htmlTitle string
	h1s       []string
	h1Chrome  []bool // per h1: it is the site's masthead or a link (isMastheadHeading)
	h1Site    []bool // per h1: it names the site (namesSite)
	htmlLang  string
	slashes   slashOrder // how the page's language writes 03/05/2024
	canonical string
	ld        *ldData
	times     []string            // datetime attributes of <time> elements, document order
	pageTimes []string            // those of times outside the site's header, nav, aside and footer (inPageChrome)
	h1Holders map[*html.Node]bool // the elements that hold an <h1> (of the first five)
	pubTimes  []string            // <time>/elements explicitly marked as publication date
	bylines   []string            // texts of author/byline marked elements
	images    []string            // src of <img> elements in document order (first few)
	articles  int                 // number of <article> elements
	headLinks int                 // links inside headings (teasers of listing pages)
	paid      map[*html.Node]bool // elements JSON-LD names as the article's paid part (paywall.go)
	// shownDates are the short texts of elements whose class or id names
	// a date, a byline, an author or an entry's meta line, in document
	// order (dates.go).
	shownDates []string
	// nodes and hints are the page's elements and their class hints, for
	// the last date source, read only when no other gave a day.
	nodes []*html.Node
	hints hintCache
	// firstH1 is the index in nodes of the first <h1>, or -1.
	firstH1 int
	// writtenBy are names that unmarked lines credit ("Written by Jane
	// Roe", or a "Written by" label and the name after it), in document
	// order: the last author source.
	writtenBy []string
	// creditedNearHeadline are those of writtenBy read around the first
	// <h1> (the date lines' window), outside quotes, where a story's
	// credit stands (creditedOthers).
	creditedNearHeadline []string
	// creditLines are the byline elements and the elements whose short
	// text gave writtenBy a name, and the credit: a byline, never the
	// story's text, where it names the story's writer (withoutBylines).
	creditLines map[*html.Node]string
	// bodyText is the page's visible text and image descriptions,
	// lower-cased, read only when creditedOthers needs it.
	bodyText string
	// authorLinks are the person names of links to an author's page
	// (/author/<name>), outside chrome, in document order.
	authorLinks []string
	// boxNames are the names author boxes too long for a byline give in
	// their first heading, the source after every other.
	boxNames []string
}

// collectMeta reads head, microdata and body metadata from elems, every
// element of the page in document order (see Extract and selectors.go):
// each signal is a goquery filter over that list, so the tree is walked
// once.
func collectMeta(elems *goquery.Selection, hc hintCache, pageURL string) *pageMeta {
	pm := &pageMeta{meta: map[string][]string{}, pageURL: pageURL}
	head := elems.FilterMatcher(headTags)
	root := head.FilterMatcher(selHTML)
	pm.htmlLang = firstNonEmpty(root.AttrOr("lang", ""), root.AttrOr("xml:lang", ""))
	pm.htmlTitle = cleanInline(head.FilterMatcher(selTitle).First().Text())
	head.FilterMatcher(selMeta).Each(pm.addMeta)
	pm.slashes = slashOrderOf(pm.regionalLang())
	head.FilterMatcher(selCanonical).EachWithBreak(func(_ int, s *goquery.Selection) bool {
		pm.canonical = strings.TrimSpace(s.AttrOr("href", ""))
		return pm.canonical == ""
	})
	pm.ld = collectJSONLD(head)
	// An author scope is read once, whole: scopes nested in it are parts of
	// it, and reading each again would cost time quadratic in the nesting.
	var scope *html.Node
	elems.FilterMatcher(selItemprop).Each(func(_ int, s *goquery.Selection) {
		if s.IsMatcher(selAuthorScope) {
			if scope != nil && contains(scope, s.Get(0)) {
				return
			}
			scope = s.Get(0)
		}
		pm.addItemprop(s)
	})

	signals := elems.FilterMatcher(signalTags)
	pm.h1Holders = map[*html.Node]bool{}
	signals.FilterMatcher(selH1).EachWithBreak(func(_ int, s *goquery.Selection) bool {
		pm.h1s = append(pm.h1s, headlineText(s.Get(0)))
		pm.h1Chrome = append(pm.h1Chrome, isMastheadHeading(s.Get(0)))
		pm.h1Site = append(pm.h1Site, namesSite(s.Get(0)))
		for p := s.Get(0).Parent; p != nil && !pm.h1Holders[p]; p = p.Parent {
			pm.h1Holders[p] = true
		}
		return len(pm.h1s) < 5
	})
	pm.headLinks = signals.FilterMatcher(selLinkedHead).Length()
	pm.articles = signals.FilterMatcher(selArticle).Length()
	pm.nodes, pm.hints = elems.Nodes, hc
	pm.firstH1 = slices.IndexFunc(pm.nodes, func(n *html.Node) bool { return n.DataAtom == atom.H1 })
	signals.FilterMatcher(selTime).Each(pm.addTime) // after nodes and hints: inChrome reads them
	pm.collectShownDates(elems.Nodes, hc)
	pm.collectWrittenBy(elems.Nodes)
	pm.collectAuthorLinks(elems.Nodes)
	// Bylines come before images: an author's photo is not the top image.
	avatars := pm.collectBylines(elems, hc).FindMatcher(selImg)
	signals.FilterMatcher(selImg).NotSelection(avatars).EachWithBreak(func(_ int, s *goquery.Selection) bool {
		if src := imgSrc(s); src != "" {
			pm.images = append(pm.images, src)
		}
		return len(pm.images) < 20
	})
	return pm
}

// addMeta records a <meta> under every key it carries.
func (pm *pageMeta) addMeta(_ int, s *goquery.Selection) {
	content := strings.TrimSpace(firstNonEmpty(s.AttrOr("content", ""), s.AttrOr("value", "")))
	if content == "" {
		return
	}
	for _, k := range [...]string{"property", "name", "itemprop", "http-equiv"} {
		v := strings.ToLower(strings.TrimSpace(s.AttrOr(k, "")))
		if k == "property" { // RDFa: a space-separated list of properties
			for _, p := range strings.Fields(v) {
				pm.meta[p] = append(pm.meta[p], content)
			}
		} else if v != "" {
			pm.meta[v] = append(pm.meta[v], content)
		}
	}
}

// addTime records a <time> element's date (its datetime attribute, else its
// text), and again as a publication date when it is marked as one.
func (pm *pageMeta) addTime(_ int, s *goquery.Selection) {
	dt := s.AttrOr("datetime", "")
	if dt == "" {
		dt = cleanInline(s.Text())
	}
	pm.times = append(pm.times, dt)
	if n := s.Get(0); !pm.inPageChrome(n) && !pm.inComments(n) && !pm.inTeaser(n) {
		pm.pageTimes = append(pm.pageTimes, dt) // not a menu's, a comment's or another story's
	}
	_, pubdate := s.Attr("pubdate")
	if pubdate || strings.Contains(strings.ToLower(s.AttrOr("itemprop", "")+" "+classID(s.Get(0))), "publish") {
		pm.pubTimes = append(pm.pubTimes, dt)
	}
}

// inComments reports an element in a comment section (markedAbove): an
// ancestor whose class or id holds the word "comment", "comments",
// "commentlist" or "respond" ("comment-list", "comments-area", WordPress's
// #respond), not a correspondent's box or a commentary's
// ("correspondent-box", "opinion-commentary": inChrome's substrings take
// those).
func (pm *pageMeta) inComments(n *html.Node) bool {
	return pm.markedAbove(n, namesComments)
}

// namesComments says whether n's class or id holds a comment section's word.
func namesComments(n *html.Node) bool {
	for _, v := range [2]string{attr(n, "class"), attr(n, "id")} {
		for _, w := range strings.FieldsFunc(strings.ToLower(v), func(r rune) bool { return r < 'a' || r > 'z' }) {
			switch w {
			case "comment", "comments", "commentlist", "respond":
				return true
			}
		}
	}
	return false
}

// addItemprop records microdata on ordinary elements.
func (pm *pageMeta) addItemprop(s *goquery.Selection) {
	key := strings.ToLower(s.AttrOr("itemprop", ""))
	var v string
	switch key {
	case "datepublished", "datemodified", "datecreated":
		v = firstNonEmpty(s.AttrOr("datetime", ""), s.AttrOr("content", ""))
		if v == "" {
			v = cleanInline(s.Text())
		}
	case "author", "creator":
		if enclosedBy(s.Get(0), atom.A) {
			// A card's link leads to another story, and the credit is
			// that story's. (An aside is not enough: some themes set the
			// story's own byline box in one.)
			return
		}
		// An author scope holds a name property; otherwise take the text.
		s.FindMatcher(selPropName).EachWithBreak(func(_ int, name *goquery.Selection) bool {
			v = name.AttrOr("content", "")
			if v == "" {
				v = cleanInline(name.Text())
			}
			return v == ""
		})
		if v == "" {
			v = cleanInline(s.Text())
		}
	case "headline", "articlesection", "inlanguage":
		v = cleanInline(s.Text())
	default:
		return
	}
	if v != "" && len(v) < 200 {
		pm.meta["itemprop:"+key] = append(pm.meta["itemprop:"+key], v)
	}
}

// maxBylines bounds how many byline texts a page contributes; maxBylineRaw
// how much raw text (whitespace included) a byline candidate may hold.
const (
	maxBylines   = 5
	maxBylineRaw = 2000
)

// notByline are elements never taken as a byline: the page itself, and
// raw-text elements whose "text" is code or markup.
var notByline = map[atom.Atom]bool{
	atom.Html: true, atom.Body: true, atom.Script: true, atom.Style: true, atom.Noscript: true,
	atom.Title: true, atom.Textarea: true, atom.Xmp: true, atom.Iframe: true, atom.Noembed: true,
	atom.Noframes: true,
}

// collectBylines records the short texts of rel=author links and of
// elements whose class/id names a byline (outside comment sections), at
// most maxBylines, outermost first: an element inside an accepted byline
// is part of it. It returns the accepted elements.
func (pm *pageMeta) collectBylines(elems *goquery.Selection, hc hintCache) *goquery.Selection {
	// A plain loop over the nodes: the class/id vocabulary is ours
	// (patterns.go, cached per value) and applies to any element, so a
	// selector would add a pass and a Selection wrapper per element.
	nodes := elems.Nodes
	var accepted []*html.Node
	for i := 0; i < len(nodes) && len(accepted) < maxBylines; i++ {
		n := nodes[i]
		if notByline[n.DataAtom] {
			continue
		}
		h := hc.node(n) | hc.testNames(n) // React sites name parts for tests (the BBC's "byline-new-contributors")
		if attr(n, "rel") != "author" && (n.FirstChild == nil || h&hByline == 0) || pm.inChrome(n) || pm.inCardArticle(n) {
			continue
		}
		// The raw text is read only up to a bound: nested byline-looking
		// wrappers around long text would otherwise cost quadratic time.
		raw, ok := bylineText(n, maxBylineRaw)
		if t := cleanInline(raw); ok && t != "" && len(t) < 100 {
			if name := namedPart(n); name != "" {
				t = name
			} else if name, role, ok := strings.Cut(strings.TrimSpace(raw), string(lineBreak)); ok && isFullName(cleanInline(name)) && roleOrDay(cleanInline(role)) {
				t = cleanInline(name) // "Oliver Grant<br>Platform engineer"
			}
			pm.bylines = append(pm.bylines, t)
			accepted = append(accepted, n)
			if mayCredit(t) || isFullName(t) || reCaselessName.MatchString(t) {
				pm.addCreditLine(n, t) // a credit, not a docs page's "--reset-author" option
			}
			// The byline's own elements come next in elems (document
			// order, same matcher): skip them in one step.
			i += len(pageElements.MatchAll(n)) - 1
		} else if name := boxHeadingName(n); name != "" {
			pm.boxNames = append(pm.boxNames, name)
		}
	}
	return elems.FilterNodes(accepted...)
}

// namedPart is the text of the part of a byline its markup names as the
// name (<div class="author-name">Joakim Edin</div> beside the author's
// job title or the day), the parts of that one class joined by "and"
// where it names several writers, else of its one link to an author's page that
// reads as a name ("<a href="/author/ben-silverman">Ben Silverman</a>
// Games Editor"), or "" when no such part holds a short text.
func namedPart(n *html.Node) string {
	var link string
	var named []string // the parts of one class named as names: one per writer ("THOMAS KELLER und SABINE ROTH")
	var last *html.Node
	links := 0
	for d := range n.Descendants() {
		if d.Type != html.ElementNode || last != nil && contains(last, d) {
			continue
		}
		if d.DataAtom == atom.A {
			if t, _, _ := writerLink(d); t != "" && !reAuthorControl.MatchString(t) {
				links++
				link = t
			}
		}
		if !classNamesName(attr(d, "class")) || last != nil && attr(d, "class") != attr(last, "class") {
			continue // another class names another role's name ("…__post-contributor-name": "Data Analysis By")
		}
		t := cleanInline(rawText(d))
		if t == "" || len(strings.Fields(t)) > 5 {
			if len(named) == 0 {
				return ""
			}
			break // a later part of the class holds more than a name: the names before it stand
		}
		if r := nextElement(d); r != nil && reVisualRole.MatchString(cleanInline(shortText(r, 40))) {
			last = d
			continue // "Ingrid Solheim" and then "Fotograf": the photographer
		}
		named, last = append(named, t), d
	}
	if len(named) > 0 {
		return strings.Join(listedNames(cleanInline(rawText(n)), named), " and ")
	}
	if links == 1 && (rePersonName.MatchString(link) || reCaselessName.MatchString(link)) {
		return link
	}
	return ""
}

// listedNames are the first of names and those after it that text lists
// with it, a joiner between each and the one before ("A und B", "A, B"):
// after "Edited by" or "Medically reviewed by" a name is another role's.
func listedNames(text string, names []string) []string {
	pos := 0
	for i, name := range names {
		at := strings.Index(text[pos:], name)
		if at < 0 || i > 0 && !reNameJoin.MatchString(text[pos:pos+at]) {
			return names[:max(i, 1)]
		}
		pos += at + len(name)
	}
	return names
}

// reNameJoin is what stands between two names of one list.
var reNameJoin = quickre.MustCompile(`(?i)^\s*(?:[,;&·•|/]|and|und|et|y|e|i|og|och|en)?\s*$`)

// reVisualRole is a role beside a name that takes pictures, not words.
var reVisualRole = quickre.MustCompile(`(?i)^(?:photographer|photos?|fotograf(?:in)?|fot[oó]graf[oa]|photographe|illustrat(?:or|rice)|videographer|kamera)$`)

// classNamesName tells whether a class attribute has a token that ends in
// "name" (author-name, byline__name, authorName).
func classNamesName(class string) bool {
	for _, tok := range strings.Fields(class) {
		if strings.HasSuffix(strings.ToLower(tok), "name") {
			return true
		}
	}
	return false
}

// cutTopicLead drops the words that led into a topic link left out ("in"
// of "By Jane Roe in Politics", "Posted in" of "Posted in News").
func cutTopicLead(sb *strings.Builder) {
	s := strings.TrimRight(sb.String(), " \t\n\r\f")
	for _, lead := range []string{"posted in", "filed under", "under", "in"} {
		cut := len(s) - len(lead)
		if cut >= 0 && strings.EqualFold(s[cut:], lead) && (cut == 0 || strings.IndexByte(" \t\n\r\f", s[cut-1]) >= 0) {
			sb.Reset()
			sb.WriteString(s[:cut])
			return
		}
	}
}

// bylineText is a byline element's rawText with a space at every element
// boundary, as its parts are separate fields ("Jane Doe" "May 2"), and
// without its links to topic pages: a post's tags in the byline box
// ("Personal finance") credit nobody. It stops, reporting false, once the
// text passes limit bytes.
func bylineText(n *html.Node, limit int) (string, bool) {
	// A <br> is written as lineBreak, white space to cleanInline, so that
	// collectBylines can cut a name from the role under it.
	var sb strings.Builder
	var rec func(*html.Node) bool
	rec = func(n *html.Node) bool {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if sb.Len() > limit {
				return false
			}
			switch c.Type {
			case html.TextNode:
				sb.WriteString(c.Data)
			case html.ElementNode:
				if c.DataAtom == atom.A && isTopicPath(attr(c, "href")) {
					cutTopicLead(&sb)
					continue
				}
				if isHeading(c.DataAtom) && (enclosedBy(c, atom.A) || holds(c, atom.A)) && countWords(rawText(c)) > 5 {
					return false // a linked headline longer than a name: a story's card
				}
				if c.DataAtom == atom.Br {
					sb.WriteRune(lineBreak)
					continue
				}
				sb.WriteByte(' ')
				if !rec(c) {
					return false
				}
				sb.WriteByte(' ')
			}
		}
		return true
	}
	if !rec(n) || sb.Len() > limit {
		return "", false
	}
	return sb.String(), true
}

// reKicker names the part of a headline that labels its topic above it
// (Tagesschau's "seitenkopf__topline", taz's "kicker", FAZ's
// "header-label", a Dachzeile, an eyebrow, a surtitre, an occhiello, a
// forum thread's prefix label): shown apart, not the headline.
var reKicker = quickre.MustCompile(`(?i)kicker|topline|dachzeile|spitzmarke|overline|eyebrow|roofline|surtit|antetitulo|occhiello|label`)

// headlineText is an <h1>'s text without its kicker: "Verkehrsminister
// einigen sich" above "Deutschlandticket wird ab Januar teurer" is no
// part of the headline. With nothing else in the <h1>, the kicker stays.
func headlineText(h1 *html.Node) string {
	full := cleanInline(rawText(h1))
	var kicker *html.Node
	walkElements(h1, func(c *html.Node) bool {
		if kicker == nil && reKicker.MatchString(attr(c, "class")) {
			kicker = c
		}
		return kicker == nil
	})
	if kicker == nil {
		return full
	}
	var b strings.Builder
	for d := range h1.Descendants() {
		if d.Type == html.TextNode && !contains(kicker, d) {
			b.WriteString(d.Data)
		}
	}
	rest := strings.TrimLeft(cleanInline(b.String()), ":–—-| ")
	if countWords(rest) < 2 {
		return full
	}
	return rest
}

// lineBreak stands for a <br> in bylineText's result: Unicode's line
// separator, which no byline's text holds.
const lineBreak = '\u2028'

// boxHeadingName is the person an author box names in a heading over the
// bio (<h4>Bence Kovács</h4>, perhaps under an "About the author"
// heading), or "". It looks at the box's first boxNodes nodes only: a
// wrapper around the whole story can carry an author class too.
func boxHeadingName(n *html.Node) string {
	seen := 0
	for d := range n.Descendants() {
		if seen++; seen > boxNodes {
			return ""
		}
		if d.Type != html.ElementNode || !isHeading(d.DataAtom) {
			continue
		}
		t := cleanInline(shortText(d, 60))
		switch {
		case reBoxLabel.MatchString(t):
			continue // a label over the name
		case rePersonName.MatchString(t) && boxBioNames(n, t):
			return t
		}
		return ""
	}
	return ""
}

// boxNodes bounds the nodes boxHeadingName looks at.
const boxNodes = 64

// boxBioNames says whether name is a person's that the author box n goes
// on to write of: no word of it is a role ("Our Editorial Team"), and the
// box's text names its first word again ("Bence is a software developer").
func boxBioNames(n *html.Node, name string) bool {
	words := strings.Fields(name)
	if namesRole(name) {
		return false
	}
	return strings.Count(leadText(n, 400), words[0]) >= 2
}

// namesRole reports a name with a word of roleNames in it ("Our Editorial
// Team", "News Desk"): a desk's, not a person's.
func namesRole(name string) bool {
	for _, w := range strings.Fields(name) {
		if roleNames[strings.ToLower(w)] {
			return true
		}
	}
	return false
}

// reBoxLabel finds the words of an author box's labels ("About the
// author", "More from Jane Roe", "Follow me").
var reBoxLabel = quickre.MustCompile(`(?i)\b(?:about|author|authors|written|more|posts|articles|from|by|follow|contact|me)\b`)

// isTopicPath says whether href's path has a topic segment: tag, tags, series,
// category, categories, topic or topics.
func isTopicPath(href string) bool {
	u, err := url.Parse(href)
	if err != nil {
		return false
	}
	for _, seg := range strings.Split(strings.ToLower(u.Path), "/") {
		switch seg {
		case "tag", "tags", "category", "categories", "topic", "topics", "series":
			return true
		}
	}
	return false
}

// maxShownDates bounds the dated elements read per page.
const maxShownDates = 30

// collectShownDates records the short texts of the elements whose class or
// id names a date, a byline, an author (a credit line with its day:
// "Silverback Strategies | October 15, 2025" in a div.at-author) or a
// meta line, outside comments, in document order (a parent before its
// children); not today's date, and not the dates of a list
// (dropListDates).
func (pm *pageMeta) collectShownDates(nodes []*html.Node, hc hintCache) {
	var classes []string // of each shown date's element
	for _, n := range nodes {
		if len(pm.shownDates) >= maxShownDates {
			return
		}
		if n.FirstChild == nil || notByline[n.DataAtom] {
			continue
		}
		h := hc.node(n)
		if h&(hDated|hByline) == 0 || pm.inChrome(n) {
			continue
		}
		if holdsToday(n) {
			continue // today's date in the masthead
		}
		if t := foldDigits(shortText(n, 160)); t != "" && strings.ContainsAny(t, "0123456789") && (h&hDated != 0 || isCreditLine(t)) {
			pm.shownDates = append(pm.shownDates, withoutUpdatedPart(n, t))
			classes = append(classes, attr(n, "class"))
		}
	}
	pm.shownDates = dropListDates(pm.shownDates, classes, pm.slashes)
}

// withoutUpdatedPart is t, the text of a dated element n, without what a
// part of it that its class calls updated or modified says, where the
// rest still shows a day: Avada's meta line holds the modified instant
// in a hidden "updated" span before the day it shows.
func withoutUpdatedPart(n *html.Node, t string) string {
	for d := range n.Descendants() {
		if d.Type != html.ElementNode {
			continue
		}
		class := strings.ToLower(attr(d, "class"))
		if !strings.Contains(class, "updated") && !strings.Contains(class, "modified") || strings.Contains(class, "publish") {
			continue
		}
		if u := foldDigits(shortText(d, 160)); u != "" && strings.Contains(t, u) {
			if rest := strings.Replace(t, u, "", 1); shownDateIndex(strings.ToLower(rest)) != nil {
				return rest
			}
		}
	}
	return t
}

// isCreditLine says whether t, an author element's text, is a credit and
// its day ("Silverback Strategies | October 15, 2025"): a day and at most
// five words beside it, not an author's bio that mentions one.
func isCreditLine(t string) bool {
	t = strings.ToLower(t)
	loc := shownDateIndex(t)
	return loc != nil && len(strings.Fields(t[:loc[0]]+" "+t[loc[1]:])) <= 5
}

// regionalLang is the page's declared language, with its region where a
// later declaration gives one ("en" in <html>, "en_US" in og:locale).
func (pm *pageMeta) regionalLang() string {
	langs := []string{pm.htmlLang, pm.get("content-language"), pm.get("language"), pm.get("dc.language"), pm.get("og:locale")}
	first := firstNonEmpty(langs...)
	for _, l := range langs {
		if len(l) > 2 && normLang(l) == normLang(first) && strings.ContainsAny(l, "-_") {
			return l
		}
	}
	return first
}

// listDays is how many different days elements of one class show before
// they are read as a list's (related posts, an archive), not the story's.
// Two: a story that shows its published and updated days in one class
// loses both, which no page of WCXB's development split did.
const listDays = 2

// dropListDates drops the dates shown by elements of a class that shows
// listDays different days or more.
func dropListDates(texts, classes []string, slashes slashOrder) []string {
	days := map[string]map[string]bool{}
	for i, t := range texts {
		if d := shownDate(t, slashes); d != nil && classes[i] != "" {
			if days[classes[i]] == nil {
				days[classes[i]] = map[string]bool{}
			}
			days[classes[i]][d.Format(time.DateOnly)] = true
		}
	}
	out := texts[:0]
	for i, t := range texts {
		if len(days[classes[i]]) < listDays {
			out = append(out, t)
		}
	}
	return out
}

// holdsToday reports an element that is, or holds within its first few
// elements, one named for today's date (a masthead's "Friday, December 19,
// 2025" in a Drupal "block-date").
func holdsToday(n *html.Node) bool {
	seen := 0
	var walk func(*html.Node) bool
	walk = func(n *html.Node) bool {
		if seen++; seen > 16 {
			return false
		}
		if n.Type == html.ElementNode && strings.Contains(strings.ToLower(classID(n)), "today") {
			return true
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if walk(c) {
				return true
			}
		}
		return false
	}
	return walk(n)
}

// nameParticles are the lower-case words inside a surname.
const nameParticles = `van|von|de|der|den|da|das|do|dos|du|del|della|di|la|le|ten|ter|bin|ibn|al|el`

// nameParticleWords are nameParticles one by one.
var nameParticleWords = strings.Split(nameParticles, "|")

// maxWrittenBy bounds the credit lines read per page.
const maxWrittenBy = 4

// creditVerbs are the words that credit a writer before "by" ("Written
// by", "Interview by"), for the credit line, the byline's prefix and the
// summary card's label alike. creditInitials must hold each one's first
// letter, and those of reCredit's other openers.
const (
	creditVerbs    = `written|authored|words|text|story|article|reporting|reported|interview|interviewed`
	creditInitials = "abimprstvw"
)

const (
	// visualTrades credit the pictures rather than the words.
	visualTrades = `photos?|photographs?|photography|pictures?|images?|illustrations?|graphics?|videos?|artwork|art|cartoons?|animations?|infographics?|maps?|` +
		`fotos?|foto's|fotografie|fotografía|fotografia|photographie|ilustraci[oó]n|illustrazione|bild(?:er)?`
	// wordsOpener credits the words, and perhaps the pictures too ("Words
	// and photos by", "Photos and text by"), before "by".
	wordsOpener = `(?:` + creditVerbs + `)(?:\s+(?:and|&)\s+(?:photos?|pictures?))?|(?:photos?|pictures?)\s+(?:and|&)\s+(?:text|words|story)`
	// genreOpener names the kind of piece before "by" in a byline
	// ("Analysis by", "A column by", "Ein Kommentar von").
	genreOpener = `(?:an?\s+)?(?:analysis|opinion|commentary|column|review|essay|photo\s+essay|editorial|perspective|explainer|guest\s+(?:post|column|essay))|` +
		`(?:ein|eine)\s+(?:kommentar|analyse|kolumne|gastbeitrag|essay|glosse)`
	// localCreditVerbs say "written" before a local credit word
	// ("Article rédigé par", "Escrito por"): reByPrefix's, as reCredit
	// reads English only.
	localCreditVerbs = `(?:article\s+)?rédigé|écrit|escrito|scritto`
	// envoyOpener is what a credit says of the writer before the name, in
	// lower case: an envoy or a correspondent ("dal nostro inviato", "de
	// notre envoyée spéciale", "de nuestro corresponsal").
	envoyOpener = `(?:dal(?:la)?\s+nostr[oa]|de\s+notre|de\s+nuestr[oa])\s+(?:inviat[oa](?:\s+speciale)?|corrispondente|envoyée?\s+spéciale?|correspondante?|enviad[oa]\s+especial|corresponsal)`
	// duration is a reading or listening time ("5 min", "3:16").
	duration = `(?:\d+\s*(?:min(?:ute)?s?|m)\.?|\d{1,2}:\d{2}(?:\s*min)?)`
)

// mayCredit is reCredit's cheap first test: every credit but "Author"
// says "by".
func mayCredit(t string) bool {
	if len(t) >= 6 && strings.EqualFold(t[:6], "author") {
		return true
	}
	for i := 0; i+1 < len(t); i++ {
		if t[i]|0x20 == 'b' && t[i+1]|0x20 == 'y' {
			return true
		}
	}
	return false
}

var (
	// reCredit is a line that credits a writer, the name (if any) after it.
	reCredit = quickre.MustCompile(`^(?i:(?:` + wordsOpener + `) by|(?:posted|published|submitted)(?:\s+on\s+[^|•·]{6,30}?)?\s+by|(?:view all |see all |all |more )?(?:posts|articles|stories) by|author(?:s|\(s\))?|by)\s*:?\s*(.*)$`)
	// reCreditTail is what a credit line holds after the name: a day, or
	// a separator and what follows it ("Jane Roe | March 3, 2024").
	reCreditTail = quickre.MustCompile(`\s*(?:[|•·;]|\s[–—-]\s).*$`)
	// rePersonName is a name as a byline writes it: two to four words,
	// each capitalised ("Jane Roe", "Lisa D. Ellis", "Md Najmul Hossain"),
	// but for the particles of a surname ("Jan de Vries", "Ursula von der
	// Leyen", "Luís da Silva").
	rePersonName = quickre.MustCompile(`^\p{Lu}[\p{L}'’.-]*(?:\s+(?:(?:` + nameParticles + `)\s+){0,2}\p{Lu}[\p{L}'’.-]*){1,3}$`)
	// reCaselessName is a name in a script without capitals: two to four
	// words of Arabic or Hebrew ("أحمد علي"), two to five characters of
	// Chinese or Korean ("张伟", "홍길동"), or a Japanese family name and
	// given name ("山田 太郎"). Any word of two characters is one too, so
	// it is believed only after a credit's word (namesPeople) or as the
	// one link of an author element or a link to an author's page, never
	// of a box's text alone.
	reCaselessName = quickre.MustCompile(`^(?:` + caselessName + `)$`)
)

const caselessName = `\p{Arabic}+(?:\s+\p{Arabic}+){1,3}|\p{Hebrew}+(?:\s+\p{Hebrew}+){1,3}|\p{Han}{2,5}|\p{Hangul}{2,5}|[\p{Han}\p{Katakana}]+\s[\p{Han}\p{Katakana}]+`

var (
	// reCreditAfter is the credit a date line goes on with: "by Jane Roe",
	// up to a comma or a bar ("by Jane Roe, Staff Writer").
	reCreditAfter = quickre.MustCompile(`^\s*(?i:by)\s+([^,|•·]+)`)
	// reAboutLabel is an author box's label.
	reAboutLabel = quickre.MustCompile(`^(?i:about the author|about the writer)\s*:?$`)
	// reBioOpening is a bio's opening: a name, then what the person is.
	reBioOpening = quickre.MustCompile(`^(\p{Lu}[\p{L}'’.-]*(?:\s+\p{Lu}[\p{L}'’.-]*){1,3})\s+(?:is|was|has|writes|covers|reports)\s`)
)

// aboutTheAuthor is the name an author box gives: an "About the author"
// label and, in the next element, a bio that opens with the name ("Jane
// Roe is a writer …"); "" otherwise.
func aboutTheAuthor(n *html.Node) string {
	first := n.FirstChild
	if first == nil || first.Type != html.TextNode {
		return ""
	}
	if lead := strings.TrimSpace(first.Data); len(lead) < 5 || !strings.EqualFold(lead[:5], "about") {
		return "" // most elements end here, at no cost
	}
	if !reAboutLabel.MatchString(cleanInline(shortText(n, 40))) {
		return ""
	}
	for sib := n.NextSibling; sib != nil; sib = sib.NextSibling {
		if sib.Type == html.ElementNode {
			if m := reBioOpening.FindStringSubmatch(cleanInline(leadText(sib, 80))); m != nil {
				return m[1]
			}
			return ""
		}
	}
	return ""
}

// creditAfter is the name in the text right after a <time> ("<time>03/01/2017</time>
// by Jane Roe"), or "".
func creditAfter(t *html.Node) string {
	next := t.NextSibling
	if next == nil || next.Type != html.TextNode {
		return ""
	}
	m := reCreditAfter.FindStringSubmatch(next.Data)
	if m == nil {
		return ""
	}
	if name := cleanInline(m[1]); rePersonName.MatchString(name) {
		return name
	}
	return ""
}

// withoutRole cuts the writer's role after a comma from a credit line's
// one name ("Jane Roe, Staff Writer"); a list of names and roles ("Jane
// Roe, Editor, and John Doe, Designer") is splitAuthors'.
func withoutRole(name string) string {
	if i := strings.IndexByte(name, ','); i > 0 && strings.Count(name, ",") == 1 && !reAndSep.MatchString(name) && reJobTitleEnd.MatchString(name[i+1:]) {
		return strings.TrimSpace(name[:i])
	}
	return name
}

// datedCredit is the length of the day a credit line opens with, "by" or
// the page's own word for it (local, "di" on an Italian page) right after
// it ("March 5, 2024 by Jane Roe", "5 marzo 2024 di Giovanni Rossi"), or
// 0 ("March 5, 2024 — Interviewed by …" is a timeline's). Only a short
// line that holds the word is tried.
func datedCredit(lead, local string) int {
	if len(lead) > maxCreditLine || len(lead) < 8 || !mayCredit(lead) && (local == "" || !strings.Contains(lead, " "+local)) {
		return 0
	}
	if c := lead[0]; !(c >= '0' && c <= '9' || c >= 'A' && c <= 'Z') {
		return 0
	}
	loc := reLeadDate.FindStringIndex(lead)
	if loc == nil {
		return 0
	}
	if local != "" && (!recentYear(lead[:loc[1]]) || reTimeOfDay.MatchString(lead[:loc[1]])) {
		local = "" // "13. März 2024, 18:15 Uhr von Klaus Berger": a lecture's speaker
	}
	rest := lead[loc[1]:]
	for _, by := range []string{"by", local} {
		if by != "" && (strings.EqualFold(rest, by) || len(rest) > len(by) && strings.EqualFold(rest[:len(by)+1], by+" ")) {
			return loc[1] // the name may be the next element's ("March 5, 2024 by <a>Jane Roe</a>")
		}
	}
	return 0
}

// reTimeOfDay is a time of day in a date ("18:15 Uhr", "10h12").
var reTimeOfDay = quickre.MustCompile(`\d[:h]\d\d`)

// recentYear reports a year of this century in a day's text: "9.
// November 1989 von Günter Schabowski" is a kicker's anniversary, no
// credit (nor "12 dicembre 1969 di Piazza Fontana", "of").
func recentYear(day string) bool {
	for _, f := range strings.FieldsFunc(day, func(r rune) bool { return r < '0' || r > '9' }) {
		if y, err := strconv.Atoi(f); err == nil && y >= 2000 && y < 2100 {
			return true
		}
	}
	return false
}

// localPreposition is the page's word for "by" before a writer's name
// (localBy's first word where it is one: "von", "par", "di"), or "".
func localPreposition(by []string) string {
	if len(by) > 0 && !strings.HasPrefix(by[0], "aut") && utf8.RuneCountInString(by[0]) <= 4 {
		return by[0]
	}
	return ""
}

// collectWrittenBy records the names unmarked credit lines give: an
// element whose own text opens with "Written by", "By", "Author" or an
// author box's "All articles by" and a name, or holds only such a label
// with the name in the next element, outside chrome (a menu's "By Event
// Type" heading is no credit).
func (pm *pageMeta) collectWrittenBy(nodes []*html.Node) {
	by := localBy(pm.regionalLang())
	local := localPreposition(by)
	h1 := pm.firstH1
	read := 0 // credit lines read, names or not
	for i, n := range nodes {
		if len(pm.writtenBy) >= maxWrittenBy || read >= maxCreditLines {
			return
		}
		if n.DataAtom == atom.Time {
			if name := creditAfter(n); name != "" && !pm.inChrome(n) && !inMenu(n) {
				pm.writtenBy = append(pm.writtenBy, name)
			}
			continue
		}
		if name := aboutTheAuthor(n); name != "" && !pm.inChrome(n) && !inMenu(n) {
			pm.writtenBy = append(pm.writtenBy, name)
			continue
		}
		first := n.FirstChild
		if first == nil || first.Type != html.TextNode || notByline[n.DataAtom] {
			continue
		}
		lead := hanReporter(strings.TrimSpace(first.Data))
		// A label alone in its element with a comma after it is read out
		// before the name in the next one (the BBC World Service's
		// visually hidden "Autor, ").
		spokenLabel := first.NextSibling == nil && strings.HasSuffix(lead, ",")
		if spokenLabel {
			lead = strings.TrimSuffix(lead, ",")
		}
		nearHeadline := h1 >= 0 && i >= h1-dateLinesBefore && i < h1+dateLinesAfter
		dated := 0
		if nearHeadline { // a story's meta line, not a card's
			if dated = datedCredit(lead, local); dated > 0 && (pm.inTeaser(n) || !strings.EqualFold(lead[dated:min(dated+2, len(lead))], "by") && (n.DataAtom == atom.Li || enclosedBy(n, atom.Li))) { // a card's; a list's of speeches
				continue
			}
		}
		lead = lead[dated:]
		m := datelineCredit(lead)
		opensStory := m != nil // the dateline's paragraph goes on with the story's first sentence
		if m == nil {
			if _, local := cutLocalBy(lead, by); len(lead) < 2 || !local && !strings.ContainsRune(creditInitials, unicode.ToLower(rune(lead[0]))) {
				continue
			}
			t := hanReporter(cleanInline(shortText(n, maxCreditLine)))
			if spokenLabel {
				t = strings.TrimSuffix(t, ",")
			}
			if br := first.NextSibling; br != nil && br.DataAtom == atom.Br && strings.Contains(lead, " ") {
				if own := cleanInline(lead); len(own) < len(t) && roleOrDay(t[len(own):]) {
					t = own // "By Jane Roe<br>Staff Reporter": the credit before the role
				}
			}
			if dated > 0 {
				t = reLeadDate.ReplaceAllString(t, "")
			}
			if rest, ok := cutLocalBy(t, by); ok {
				m = []string{t, rest}
			} else if mayCredit(t) {
				m = reCredit.FindStringSubmatch(t)
			}
		}
		if m == nil || strings.HasSuffix(m[1], ":") {
			continue // "By phone:", "By Contact Form:": a way to reach the site
		}
		read++
		names := []string{withoutRole(strings.TrimSpace(reCreditTail.ReplaceAllString(reAfterWriter.ReplaceAllString(reAuthorDate.ReplaceAllString(m[1], ""), ""), "")))}
		if names[0] == "" {
			names = labelledNames(n)
		}
		for _, name := range names {
			if namesPeople(name) && !hasProse(name) && !pm.inChrome(n) && !inMenu(n) && !inCaption(n) && !pm.inTeaser(n) && !pm.inCardArticle(n) {
				pm.writtenBy = append(pm.writtenBy, name)
				if !opensStory {
					pm.addCreditLine(n, name)
				}
				if nearHeadline && !inQuote(n) {
					pm.creditedNearHeadline = append(pm.creditedNearHeadline, name)
				}
			}
		}
	}
}

// addCreditLine records n as a credit line naming name.
func (pm *pageMeta) addCreditLine(n *html.Node, name string) {
	if pm.creditLines == nil {
		pm.creditLines = map[*html.Node]string{}
	}
	pm.creditLines[n] = name
}

// inCardArticle says whether n stands in an <article> that is another
// story's card: short (under 400 letters), with a linked heading, and not
// holding the page's headline ("Mehr lesen über" under a Spiegel story:
// <article><h2><a …>Kita-Notstand: Warum Erzieherinnen kündigen</a></h2>
// <footer>Von Jonas Weber</footer></article>).
func (pm *pageMeta) inCardArticle(n *html.Node) bool {
	a := n.Parent
	for a != nil && a.DataAtom != atom.Article {
		a = a.Parent
	}
	if a == nil || pm.h1Holders[a] || shortText(a, 400) == "" {
		return false
	}
	linked := false
	walkElements(a, func(c *html.Node) bool {
		if linked {
			return false
		}
		if isHeading(c.DataAtom) {
			walkElements(c, func(l *html.Node) bool {
				linked = linked || l.DataAtom == atom.A && attr(l, "href") != ""
				return !linked
			})
			return false
		}
		return true
	})
	return linked
}

// roleOrDay reports the rest of a short credit line after a line break
// that is the writer's role or the day ("Staff Reporter", "March 5,
// 2024"), not a paragraph or an address.
func roleOrDay(rest string) bool {
	rest = strings.TrimSpace(rest)
	if rest == "" || len(rest) > 60 {
		return false
	}
	if reJobTitleEnd.MatchString(rest) {
		return true
	}
	loc := shownDateIndex(strings.ToLower(rest))
	return loc != nil && loc[0] == 0
}

// hasProse reports a word of lower-case letters in a credit's first part
// (up to its first comma or bar) that no list of names holds ("signing up
// you agree to receive emails, Privacy Policy"): a sentence that opens
// with "By", not a credit ("ZHANG WEI and LIU YANG in Beijing"). What
// follows the first part is the tail's (", contributing writer"), and
// short words, particles with their names ("al-Masri", "d'Estaing") and
// agencies ("dpa") are no prose.
func hasProse(credit string) bool {
	first := reListSep.Split(credit, 2)[0]
	for _, w := range strings.Fields(first) {
		if len(w) >= 4 && !slices.Contains(creditConnectors, w) && strings.IndexFunc(w, func(r rune) bool { return !unicode.IsLower(r) }) < 0 {
			return true
		}
	}
	return false
}

// creditConnectors are the lower-case words a credit holds between and
// after names: "and" in the languages of reAndSep, and where or for whom
// the writer files.
var creditConnectors = []string{"and", "und", "et", "y", "e", "en", "og", "och", "i", "in", "at", "for", "from", "with", "aus", "mit", "avec", "con", "em", "na", "w", "z"}

// maxCreditLines bounds the credit lines collectWrittenBy reads per page,
// those that name no one too: a page of a thousand "By … staff writer"
// teasers costs no more than one of a few.
const maxCreditLines = 32

// maxCreditLine bounds the text of a credit line collectWrittenBy reads:
// a name or two and the stamps after them ("By ZHANG WEI and LIU YANG in
// Beijing | China Daily | Updated: 2023-08-10 10:15").
const maxCreditLine = 140

// reHanDateline is the dateline a Chinese story opens with, and its
// reporters' credit in brackets after it ("新华社北京3月3日电（记者 张伟
// 李明）…", "本报讯（记者 张伟）…"): there "记者" needs no space after
// it. A stringer or an intern credited after them ("通讯员 王五") is not
// read.
var reHanDateline = quickre.MustCompile(`^(?:\p{Han}{2,12}?(?:[\d０-９]{1,2}月)?[\d０-９]{1,2}日[电電]|\p{Han}{1,6}?[讯訊])\s*[（(]\s*(?:记者|記者)\s*[：:]?\s*(\p{Han}{2,4}(?:(?:\s*[、，,]\s*|\s+)\p{Han}{2,4})*?)\s*(?:(?:通讯员|通訊員|实习生|實習生)[^）)]*)?[）)]`)

// hanReporterWords follow "记者" in words that name no one: notes, a
// press conference, "learnt".
var hanReporterWords = []string{"手记", "手記", "招待会", "招待會", "获悉", "獲悉"}

// hanCreditRoles are the words a dateline's credit writes beside the
// names: "reported", "editor", "photographer".
var hanCreditRoles = []string{"报道", "報導", "报导", "编辑", "編輯", "摄影", "攝影", "摄", "攝"}

// datelineCredit returns a Chinese dateline's credit line and its names,
// joined by "、" (reHanDateline), or nil.
func datelineCredit(lead string) []string {
	if len(lead) == 0 || lead[0] < 0xe4 { // Han characters begin 0xe4 to 0xe9
		return nil
	}
	m := reHanDateline.FindStringSubmatch(lead[:min(len(lead), 240)]) // a dateline and its credit fit
	if m == nil {
		return nil
	}
	names := strings.FieldsFunc(m[1], func(r rune) bool { return unicode.IsSpace(r) || r == '、' || r == '，' || r == ',' })
	for _, n := range names {
		if slices.Contains(hanReporterWords, n) {
			return nil // "（记者手记）": the reporter's notes, no name
		}
	}
	names = slices.DeleteFunc(names, func(n string) bool { return slices.Contains(hanCreditRoles, n) })
	if len(names) == 0 {
		return nil
	}
	return []string{m[0], strings.Join(names, "、")}
}

// inCaption reports an element inside a figure's caption, whose credit
// ("The Mythical Man-Month by Fred Brooks", "by Jane Roe/Reuters") is a
// work's or a photo's, not the story's.
func inCaption(n *html.Node) bool {
	return n.DataAtom == atom.Figcaption || enclosedBy(n, atom.Figcaption)
}

// localBy are the words for "by" and "author" that open a credit line on
// a page declared in their language ("Von", "Par", "Автор:"), or none. On
// other pages "Von Braun Center" is a name.
func localBy(lang string) []string {
	return localCredits[strings.ToLower(lang[:min(len(lang), 2)])]
}

// localCredits are localBy's words by language code.
var localCredits = map[string][]string{
	"de": {"von", "autor"}, "fr": {"par", "auteur"}, "es": {"por", "autor"}, "pt": {"por", "autor"},
	"it": {"di", "autore"}, "nl": {"door", "auteur"}, "sv": {"av"}, "no": {"av"}, "nb": {"av"}, "nn": {"av"},
	"da": {"af"}, "pl": {"autor"}, "cs": {"autor"}, "sk": {"autor"}, "ru": {"автор"}, "uk": {"автор"},
	"tr": {"yazar"}, "id": {"oleh", "penulis"}, "ms": {"oleh", "penulis"}, "hi": {"लेखक"}, "ar": {"بقلم", "كتب:", "كتبت:", "الكاتب:"}, "he": {"מאת"},
	"fa": {"نویسنده"}, "zh": {"作者", "本报记者", "本報記者", "记者", "記者", "文", "撰文"}, "ja": {"文", "取材・文", "文・写真", "執筆", "著者", "筆者", "記者"}, "ko": {"글"},
}

// bylinePrefixes are the words cut before a byline element's name: "by",
// Polish "przez", Russian "от" and every language's localCredits. Italian
// "di" counts in lower case only ("Di Maria" is a surname), and Danish
// "af" not in capitals ("AF Branco" is a name).
func bylinePrefixes() string {
	words := []string{"by", "przez", "от", "كتب", "كتبت", "الكاتب"}
	for _, ws := range localCredits {
		words = append(words, ws...)
	}
	slices.Sort(words)
	words = slices.Compact(words)
	for i, w := range words {
		switch w {
		case "di":
			words[i] = "(?-i:di)"
		case "af":
			words[i] = "(?-i:[Aa]f)"
		}
	}
	return strings.Join(words, "|")
}

// cutLocalBy returns what follows one of words at the start of t, and
// whether t opens with one. Italian "di" counts in lower case only: "Di
// Maria" is a surname.
func cutLocalBy(t string, words []string) (string, bool) {
	for _, by := range words {
		if len(t) < len(by) || !strings.EqualFold(t[:len(by)], by) {
			continue
		}
		if r, _ := utf8.DecodeRuneInString(t[len(by):]); len(t) > len(by) && !strings.ContainsRune(creditSeparators, r) {
			continue
		}
		if by == "di" && t[0] != 'd' {
			continue
		}
		return strings.TrimLeft(t[len(by):], creditSeparators), true
	}
	return "", false
}

// creditSeparators stand between a credit's word and the name: a space or
// a colon, and in Chinese and Japanese full-width ones, a slash or a bar
// ("文/张伟", "作者｜张伟").
const creditSeparators = " :：　/／|｜"

// namesPeople says whether a credit names people and nothing else: each
// of its names ("Anna Schmidt and Jonas Weber") reads as a person's, and
// none is a desk ("By Staff and Wire Reports").
func namesPeople(credit string) bool {
	if reAuthorGroup.MatchString(credit) {
		return false
	}
	names, _ := splitAuthors(credit)
	for _, n := range names {
		if !rePersonName.MatchString(n) && !reCaselessName.MatchString(n) {
			return false
		}
	}
	return len(names) > 0
}

// labelledNames returns what a label ("Written by", "Authors") names: the
// next element's text, or each item's when it is a list.
func labelledNames(label *html.Node) []string {
	sib := nextElement(label)
	if sib == nil {
		return nil
	}
	if sib.DataAtom != atom.Ul && sib.DataAtom != atom.Ol {
		return []string{cleanInline(shortText(sib, 60))}
	}
	var names []string
	for li := sib.FirstChild; li != nil && len(names) < maxWrittenBy; li = li.NextSibling {
		if li.DataAtom == atom.Li {
			names = append(names, cleanInline(shortText(li, 60)))
		}
	}
	return names
}

// inMenu reports whether n is inside a navigation or menu (its tag or
// ARIA role), a dozen levels up at most.
func inMenu(n *html.Node) bool {
	for depth := 0; n != nil && depth < 12; n, depth = n.Parent, depth+1 {
		if n.DataAtom == atom.Nav || n.DataAtom == atom.Menu {
			return true
		}
		switch strings.ToLower(attr(n, "role")) {
		case "navigation", "menu", "menubar", "menuitem":
			return true
		}
	}
	return false
}

// sluggedFirstName says whether name is one capitalised word that the
// author page's address spells too (/author/amanda/ for "Amanda"): a
// writer who goes by a first name. A role ("Admin", "Staff") is none.
func sluggedFirstName(name, pagePath string) bool {
	return reFirstName.MatchString(name) && !roleNames[strings.ToLower(name)] && path.Base(pagePath) == strings.ToLower(name)
}

var (
	reFirstName = quickre.MustCompile(`^\p{Lu}\p{Ll}+$`)
	roleNames   = map[string]bool{"admin": true, "administrator": true, "staff": true, "editor": true, "editors": true,
		"team": true, "guest": true, "contributor": true, "author": true, "webmaster": true, "newsroom": true, "editorial": true, "desk": true}
)

// maxAuthorLinks bounds the author links read per page.
const maxAuthorLinks = 2

// collectAuthorLinks records the text of links to an author's page that
// reads as a person's name: the byline of many pages that mark it up no
// other way ("By <a href="/author/jane-roe">Jane Roe</a> · Editor"). A
// link in a menu leads to a columnist; an account's page (a staff
// member's) counts only after "by", and not in a paragraph of prose
// ("drafted by <a>John Doe</a> of the planning office, who …").
func (pm *pageMeta) collectAuthorLinks(nodes []*html.Node) {
	by := localBy(pm.regionalLang())
	for _, n := range nodes {
		if len(pm.authorLinks) >= maxAuthorLinks {
			return
		}
		if n.DataAtom != atom.A {
			continue
		}
		name, path, account := writerLink(n)
		if name != "" && (rePersonName.MatchString(name) || reCaselessName.MatchString(name) || sluggedFirstName(name, path)) && !pm.inChrome(n) && !inMenu(n) &&
			(!account || creditedLink(n, by) && !inLongParagraph(n)) {
			pm.authorLinks = append(pm.authorLinks, name)
		}
	}
}

// inLongParagraph reports a link inside a paragraph longer than a meta line.
func inLongParagraph(n *html.Node) bool {
	for p := n.Parent; p != nil; p = p.Parent {
		if p.DataAtom == atom.P {
			return shortText(p, maxCreditLine) == "" // "" past the bound
		}
	}
	return false
}

// authorPage is the page a link leads to when it is an author's: its
// path, its folder in lower case ("author", "staff") and whether it is a
// handle (/@janeroe).
type authorPage struct {
	path, folder string
	handle       bool
}

// authorPageOf is the author's page href leads to: a name under one of
// authorDirs or accountDirs (/author/jane-roe, /staff/jane-roe.html,
// Drupal's /user/12) or a handle in a relative link or on Medium or
// Substack (/@janeroe).
func authorPageOf(href string) (authorPage, bool) {
	if i := strings.IndexAny(href, "?#"); i >= 0 {
		href = href[:i]
	}
	href = strings.TrimSuffix(href, "/")
	slash := strings.LastIndexByte(href, '/')
	if slash < 0 {
		return authorPage{}, false
	}
	slug, dir := href[slash+1:], href[:slash]
	dir = strings.ToLower(dir[strings.LastIndexByte(dir, '/')+1:])
	handle := len(slug) > 1 && slug[0] == '@'
	if !handle && (len(dir) > len("contributors") || !authorDirs[dir] && !accountDirs[dir]) { // most links: no parse
		return authorPage{}, false
	}
	u, err := url.Parse(href)
	if err != nil || handle && u.Host != "" && !handleHosts[strings.TrimPrefix(strings.ToLower(u.Host), "www.")] {
		return authorPage{}, false
	}
	slug, _ = strings.CutSuffix(strings.TrimPrefix(path.Base(u.Path), "@"), ".html")
	if slug == "" || strings.ContainsFunc(slug, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '.' && r != '_' && r != '-'
	}) {
		return authorPage{}, false
	}
	return authorPage{path: u.Path, folder: dir, handle: handle}, true
}

// handleHosts are the hosts whose /@name pages are writers'; elsewhere a
// handle on another host is a social network's account ("Tik Tok" in a
// shop's footer).
var handleHosts = map[string]bool{"medium.com": true, "substack.com": true}

// isAuthorPage reports whether href leads to an author's page.
func isAuthorPage(href string) bool {
	_, ok := authorPageOf(href)
	return ok
}

// writerLink is the text of a link to an author's page, the page's path,
// and whether the page is an account's (accountDirs: a staff member's, a
// contributor's or a site user's, who may be anyone, or a page about
// contributing), or "". Under the folders of user accounts (userDirs)
// the page must be named by a number or by the text's words ("/user/12",
// "/users/jane-roe"): "/user/memberlist" and "/profile/stevenhgm" behind
// "名片" (a business card) are the site's controls.
func writerLink(a *html.Node) (name, pagePath string, account bool) {
	pg, ok := authorPageOf(attr(a, "href"))
	if !ok {
		return "", "", false
	}
	text := cleanInline(shortText(a, 60))
	if slug := path.Base(pg.path); userDirs[pg.folder] && !numeric(slug) && !slugOf(slug, text) {
		return "", "", false
	}
	return text, pg.path, !authorDirs[pg.folder] && !pg.handle
}

// creditedLink reports a link with "by" (or a word of by, the page's own)
// before it in its parent's text: "By <a>Jane Roe</a>", "Submitted by
// <a>…</a> on", "By <a>A</a>, <a>B</a>" — not "said <a>John Doe</a>", a
// staff directory's card or a team sheet.
func creditedLink(a *html.Node, by []string) bool {
	var pre strings.Builder
	for s := a.Parent.FirstChild; s != nil && s != a && pre.Len() < maxCreditLine; s = s.NextSibling {
		if s.Type == html.TextNode {
			pre.WriteString(s.Data)
		} else {
			pre.WriteString(shortText(s, 60))
		}
		pre.WriteByte(' ')
	}
	words := strings.FieldsFunc(strings.ToLower(pre.String()), func(r rune) bool { return !unicode.IsLetter(r) })
	return slices.Contains(words, "by") || slices.ContainsFunc(by, func(w string) bool { return slices.Contains(words, w) })
}

// userDirs are the accountDirs of any user's account, not a writer's.
var userDirs = map[string]bool{"user": true, "users": true, "profile": true, "profiles": true}

// numeric reports a non-empty run of ASCII digits.
func numeric(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// slugOf reports whether slug is text's words, lower-cased, joined by a
// hyphen, an underscore or a dot ("jane-roe" for "Jane Roe").
func slugOf(slug, text string) bool {
	words := strings.Fields(strings.ToLower(text))
	if len(words) < 2 {
		return false
	}
	for _, sep := range []string{"-", "_", "."} {
		if strings.EqualFold(slug, strings.Join(words, sep)) {
			return true
		}
	}
	return false
}

// authorDirs are the folders of writers' pages in the languages of
// localCredits, and accountDirs those of people who may be writers: a
// link there is a credit only after "by" (creditedLink). "team" and
// "people" are neither: a sports team's page and a topic page on a
// person the story names live there.
var (
	authorDirs = map[string]bool{
		"author": true, "authors": true, "autor": true, "autoren": true, "autores": true, "autore": true, "autori": true,
		"auteur": true, "auteurs": true, "writer": true, "writers": true, "columnist": true, "columnists": true,
	}
	accountDirs = map[string]bool{
		"contributor": true, "contributors": true, "journalist": true, "journalists": true, "reporter": true, "reporters": true, "staff": true, "profile": true, "profiles": true, "user": true, "users": true,
	}
)

// imgSources are the attributes imgSrc reads, lazy loaders' included
// (dropScriptText keeps their values).
var imgSources = []string{"src", "data-src", "data-original", "data-lazy-src"}

// imgSrc returns the best source attribute of an image (lazy-load aware).
func imgSrc(s *goquery.Selection) string {
	for _, k := range imgSources {
		if v := strings.TrimSpace(s.AttrOr(k, "")); v != "" && !strings.HasPrefix(v, "data:") {
			return v
		}
	}
	return ""
}

// get returns the first value for any of the keys.
func (pm *pageMeta) get(keys ...string) string {
	for _, k := range keys {
		for _, v := range pm.meta[k] {
			if v = cleanInline(v); v != "" {
				return v
			}
		}
	}
	return ""
}

// all returns every value for the keys, in key order.
func (pm *pageMeta) all(keys ...string) []string {
	var out []string
	for _, k := range keys {
		for _, v := range pm.meta[k] {
			if v = cleanInline(v); v != "" {
				out = append(out, v)
			}
		}
	}
	return out
}

// siteName picks the publisher name.
func (pm *pageMeta) siteName() string {
	if s := pm.get("og:site_name", "application-name", "al:android:app_name", "al:iphone:app_name", "twitter:app:name:iphone"); s != "" {
		return s
	}
	if pm.ld.publisher != "" {
		return cleanInline(pm.ld.publisher)
	}
	return ""
}

// reTitleSep splits "Headline | Site" style titles.
var reTitleSep = quickre.MustCompile(`\s+(?:[|\-–—·•:»«/]|::)\s+`)

// title picks the headline: JSON-LD, Dublin Core, Open Graph, Twitter,
// then <title>, with a trailing or leading site name removed.
func (pm *pageMeta) title(site string) string {
	if h := pm.headline(site); h != "" {
		return h
	}
	cands := []string{pm.ldTitle(), pm.get("dc:title", "dcterms:title", "dc.title"), pm.get("og:title"), pm.get("twitter:title"),
		pm.get("itemprop:headline", "headline", "title")}
	h1s, named := pm.storyH1s()
	if site == "" {
		site = named // the masthead's h1 names the site the page does not declare
	}
	for _, c := range cands {
		if c != "" {
			return stripSiteName(withoutBlogName(c, named), site, h1s)
		}
	}
	if pm.htmlTitle != "" {
		return stripSiteName(withoutBlogName(pm.htmlTitle, named), site, h1s)
	}
	if len(pm.h1s) > 0 {
		return pm.h1s[0]
	}
	return ""
}

// metaTitles are the titles the metadata gives, the first one first:
// JSON-LD's, Open Graph's, Twitter's and the document's.
func (pm *pageMeta) metaTitles() []string {
	return []string{pm.ldTitle(), pm.get("og:title"), pm.get("twitter:title"), pm.htmlTitle}
}

// extendsTitle says whether headline h opens with every word of title t
// and goes on: the metadata's title is the headline cut short ("Why we
// rewrote our sync engine" of "Why we rewrote our sync engine (and what
// we'd do differently)").
func extendsTitle(h, t string) bool {
	wh, wt := words(h), words(t)
	return len(wt) >= 3 && len(wh) > len(wt) && slices.Equal(wh[:len(wt)], wt)
}

// withoutBlogName cuts the blog's name, as its masthead h1 writes it,
// and a colon from the start of a title ("Blog Name: Post Title",
// Blogger's). A declared site's name before a colon is kept: "Figma: The
// Collaborative Interface Design Tool" is a home page's whole title.
func withoutBlogName(t, blog string) string {
	if n := len(blog); n > 0 && len(t) > n+2 && strings.EqualFold(t[:n], blog) && t[n] == ':' && t[n+1] == ' ' {
		return strings.TrimSpace(t[n+2:])
	}
	return t
}

// storyH1s are the page's h1s but those that name the site (namesSite),
// and the first of those: a blog's name in its masthead h1 tells no
// headline, but which part of the <title> is the blog's.
func (pm *pageMeta) storyH1s() (story []string, site string) {
	for i, h := range pm.h1s {
		switch {
		case !pm.h1Site[i]:
			story = append(story, h)
		case site == "" && (countWords(h) >= 2 || utf8.RuneCountInString(h) >= 8):
			site = h // not a link's word alone ("Home", "Review")
		}
	}
	return story, site
}

// headline is the page's one <h1> when it reads as the story's headline:
// people read the headline the page shows, and the metadata's title is
// often another one written for search engines and social cards. It must
// be the only h1, outside the masthead and not a link, of 2 to 30 words,
// not the site's name, and more than half of its longer words must be in
// the metadata's or the document's title (a logo, a blog's name or a
// section name in an h1 fails one of these).
func (pm *pageMeta) headline(site string) string {
	if len(pm.h1s) != 1 || pm.h1Chrome[0] {
		return ""
	}
	h := pm.h1s[0]
	if n := countWords(h); n < 2 || n > 30 || site != "" && (containsFold(h, site) || containsFold(site, h)) {
		return ""
	}
	metas := pm.metaTitles()
	titles := strings.ToLower(strings.Join(append(metas, pm.ld.headline, pm.ld.pageHeadline), " "))
	long, found := 0, 0
	for _, w := range strings.Fields(strings.ToLower(h)) {
		if w = strings.Trim(w, ".,:;!?\"'()[]“”‘’"); len(w) >= 4 {
			long++
			if strings.Contains(titles, w) {
				found++
			}
		}
	}
	if long == 0 || found*2 <= long && !extendsTitle(h, stripSiteName(firstNonEmpty(metas...), site, nil)) {
		return ""
	}
	if strings.EqualFold(h, pm.htmlTitle) {
		return stripSiteName(h, site, nil) // the document title shown as it is, site name and all
	}
	return h
}

// inPageChrome reports an element inside a <header>, <nav>, <aside> or
// <footer> that no <article> or <main> encloses and that holds no <h1>:
// the site's menus and columns (a mega-menu's dated news list), not the
// story's own header, which some pages set outside their <article>.
func (pm *pageMeta) inPageChrome(n *html.Node) bool {
	chrome := false
	for p := n.Parent; p != nil; p = p.Parent {
		switch p.DataAtom {
		case atom.Article, atom.Main:
			return false
		case atom.Header, atom.Nav, atom.Aside, atom.Footer:
			if pm.h1Holders[p] {
				return false
			}
			chrome = true
		}
	}
	return chrome
}

// isMastheadHeading reports a heading inside a <header> or <nav> that no
// <article> or <main> encloses, or one whose text is a link: a site's
// logo or name, not a story's headline.
func isMastheadHeading(n *html.Node) bool {
	if only := onlyChild(n); only != nil && only.DataAtom == atom.A {
		return true
	}
	return inMasthead(n)
}

// namesSite reports a heading that names the site, not the story: a link
// to the site's home page ("<h1><a href="/">Jane's Garden Notes</a></h1>",
// Blogger's masthead). A story's heading may link to the story itself,
// and may stand in a <header> outside the <article>.
func namesSite(n *html.Node) bool {
	only := onlyChild(n)
	if only == nil || only.DataAtom != atom.A {
		return false
	}
	u, err := url.Parse(attr(only, "href"))
	return err == nil && u.RawQuery == "" && (u.Path == "/" || u.Path == "" && u.Host != "")
}

// onlyChild is n's one child that is not blank, or nil.
func onlyChild(n *html.Node) *html.Node {
	var only *html.Node
	for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
		if ch.Type == html.TextNode && strings.TrimSpace(ch.Data) == "" {
			continue
		}
		if only != nil {
			return nil
		}
		only = ch
	}
	return only
}

// inMasthead reports an element inside a <header> or <nav> that no
// <article> or <main> encloses.
func inMasthead(n *html.Node) bool {
	inHeader := false
	for p := n.Parent; p != nil; p = p.Parent {
		switch p.DataAtom {
		case atom.Article, atom.Main:
			return false
		case atom.Header, atom.Nav:
			inHeader = true
		}
	}
	return inHeader
}

// ldTitle is JSON-LD's headline, or its name where the two differ and only
// the name is in the page's <title> (Wikipedia's headline is a description).
func (pm *pageMeta) ldTitle() string {
	h, n := cleanInline(pm.ld.headline), cleanInline(pm.ld.name)
	if h == "" || (n != "" && n != h && !containsFold(pm.htmlTitle, h) && containsFold(pm.htmlTitle, n)) {
		return n
	}
	return h
}

// containsFold reports whether sub is in s, ignoring case.
func containsFold(s, sub string) bool {
	return sub != "" && strings.Contains(strings.ToLower(s), strings.ToLower(sub))
}

// sameWords says whether two texts are the same words, whatever their
// case and punctuation ("Brake pads – From a mechanic" and "Brake pads -
// from a mechanic").
func sameWords(a, b string) bool {
	wa := words(a)
	return len(wa) > 0 && slices.Equal(wa, words(b))
}

// stripSiteName removes a site-name part from a title. Without a known site
// name, a short trailing part (1-4 words) after a separator is treated as one
// when the remainder is clearly the headline.
func stripSiteName(t, site string, h1s []string) string {
	for _, h := range h1s {
		if h != "" && sameWords(h, t) {
			return t
		}
	}
	locs := reTitleSep.FindAllStringIndex(t, -1)
	if len(locs) == 0 {
		return withoutCJKSite(withoutCJKSite(t, site), "") // the site's name, then a channel's ("…_教育频道_中国青年网")
	}
	if strings.Contains(t, "«") && strings.Contains(t, "»") {
		// French quotation marks, not separators ("le maire « ne reculera pas »")
		locs = slices.DeleteFunc(locs, func(l []int) bool { return strings.ContainsAny(t[l[0]:l[1]], "«»") })
		if len(locs) == 0 {
			return t
		}
	}
	first, last := locs[0], locs[len(locs)-1]
	if len(locs) >= 2 && isHomeCrumb(t[:first[0]]) && allSeparators(t, locs, "»", "/") && !isSitePart(t[last[1]:], site) {
		return strings.TrimSpace(t[last[1]:]) // a breadcrumb: "Home » News » Headline"
	}
	if isSitePart(t[last[1]:], site) {
		head := strings.TrimSpace(t[:last[0]])
		if cut := withoutSection(head, strings.TrimSpace(t[last[0]:last[1]])); countWords(cut) > countWords(head)-countWords(cut) {
			return cut // a section shorter than the headline ("Headline | Politics | Site"), not a kicker ("Live updates | Storm hits coast")
		}
		return head
	}
	if isSitePart(t[:first[0]], site) {
		return strings.TrimSpace(t[first[1]:])
	}
	// A matching <h1> tells which part is the headline.
	for _, h := range h1s {
		if h != "" && strings.HasPrefix(t, h) && len(h) >= len(t)/3 {
			return h
		}
	}
	// Otherwise a short last part after a strong separator ("|", "·", "»")
	// or, more cautiously, after a dash is taken to be the site name.
	sep := strings.TrimSpace(t[last[0]:last[1]])
	tail := t[last[1]:]
	headPart := strings.TrimSpace(t[:last[0]])
	tailWords, headWords := len(strings.Fields(tail)), len(strings.Fields(headPart))
	switch sep {
	case "|", "·", "»", "«", "•", "::":
		if tailWords <= 5 && headWords >= 2 {
			return withoutSection(headPart, sep)
		}
	case "-", "–", "—":
		if tailWords <= 4 && headWords >= 3 && headWords > tailWords && !isClause(tail) {
			return headPart
		}
	}
	return t
}

// isClause says whether a title's part after a dash goes on with the
// headline ("– aber auf Rekordniveau", "- and why it matters"): words, the
// first in lower case, and no domain. A site's name begins with a capital
// or is a domain ("golem.de").
func isClause(part string) bool {
	f := strings.Fields(part)
	if len(f) < 2 || strings.Contains(part, ".") {
		return false
	}
	r, _ := utf8.DecodeRuneInString(f[0])
	return unicode.IsLower(r)
}

// withoutCJKSite cuts the site's name from a Chinese or Japanese title,
// whose separator has no spaces either ("美国大选结果揭晓_新浪新闻",
// "…｜聯合新聞網"): after the last "_", "｜" or "|" between two Han or kana
// letters, the declared site's name, or after "_" a part of at most twelve
// letters and shorter than the headline. A dash and a bar with no site
// declared stay: they part a match's sides and a headline's two halves
// ("申花-国安", "東京都知事選挙の結果｜候補者の得票数一覧").
func withoutCJKSite(t, site string) string {
	i := strings.LastIndexFunc(t, func(r rune) bool { return r == '_' || r == '｜' || r == '|' })
	if i <= 0 {
		return t
	}
	sep, size := utf8.DecodeRuneInString(t[i:])
	head, tail := t[:i], t[i+size:]
	before, _ := utf8.DecodeLastRuneInString(head)
	after, _ := utf8.DecodeRuneInString(tail)
	if !isHanOrKana(before) || !isHanOrKana(after) {
		return t
	}
	if n := utf8.RuneCountInString(tail); isSitePart(tail, site) || sep == '_' && site == "" && n <= 12 && n < utf8.RuneCountInString(head) {
		return head
	}
	return t
}

// isHanOrKana reports a Chinese character or Japanese kana.
func isHanOrKana(r rune) bool {
	return r >= 0x3040 && unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana)
}

// isSitePart reports a part of a <title> that is the site's declared
// name, holds it or is held in it.
func isSitePart(part, site string) bool {
	if site = strings.TrimSpace(site); site == "" {
		return false
	}
	part = strings.TrimSpace(part)
	return part == "" || containsFold(site, part) || containsFold(part, site)
}

// withoutSection drops a section's name from the end of a headline the
// site's name followed ("Headline | Politics | Site"): a short last part
// after a strong separator.
func withoutSection(head, sep string) string {
	switch sep {
	case "|", "·", "»", "«", "•", "::":
	default:
		return head
	}
	if i := strings.LastIndex(head, " "+sep+" "); i > 0 && len(strings.Fields(head[i+len(sep)+2:])) <= 3 && len(strings.Fields(head[:i])) >= 2 {
		return strings.TrimSpace(head[:i])
	}
	return head
}

// allSeparators reports whether every separator locs finds in t is one
// of seps.
func allSeparators(t string, locs [][]int, seps ...string) bool {
	for _, l := range locs {
		if !slices.Contains(seps, strings.TrimSpace(t[l[0]:l[1]])) {
			return false
		}
	}
	return true
}

// isHomeCrumb reports a breadcrumb's first step.
func isHomeCrumb(s string) bool {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "home", "startseite", "accueil", "inicio", "home page", "homepage":
		return true
	}
	return false
}

// resolveURL makes ref absolute against base; invalid input is returned as is.
func resolveURL(base *url.URL, ref string) string {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return ""
	}
	if strings.HasPrefix(ref, "//") && (base == nil || base.Scheme == "") {
		return "https:" + ref
	}
	if base == nil {
		return ref
	}
	u, err := url.Parse(ref)
	if err != nil {
		return ref
	}
	return base.ResolveReference(u).String()
}

// publishedAt picks the publication time from the strongest source
// available: explicit metadata (declared true) unless the URL names
// another day — the permalink's day is the local one, and it stays when a
// republished page's metadata moves — then a date in the URL,
// then any <time>, then the first date a dated element shows (shownDate),
// then a line near the headline that is a date and nothing else
// (dateLinesNearHeadline); a shown date that is the day the page declares
// as modified is an "updated" stamp, and gives none. A URL that names only the month
// (/2025/12/) gives no day: it only keeps the later sources to that month
// (its first day was a wrong day on most such pages of WCXB's tune half).
// undated reports that no source gave a day and none was passed over as
// the modified day: a story's WebPage object may date it then (see
// assemble).
func (pm *pageMeta) publishedAt(pageURL string) (t *time.Time, declared, undated bool) {
	urlDay, month := pm.urlDays(pageURL)
	if t := pm.declaredPublished(); t != nil {
		if urlDay != nil && urlDay.Format(time.DateOnly) != t.Format(time.DateOnly) {
			return urlDay, true, false
		}
		line, shown := pm.firstDateLine()
		if earlier := earlierShownDay(*t, shown); earlier != nil {
			return earlier, true, false
		}
		local := inShownZone(*t, line, shown)
		return &local, true, false
	}
	if urlDay != nil {
		return urlDay, false, false
	}
	inMonth := func(t *time.Time) bool { return sameMonth(t, month) }
	for _, s := range pm.pageTimes {
		if t := cmp.Or(parseDate(s), shownDate(s, pm.slashes)); t != nil && inMonth(t) {
			return t, false, false
		}
	}
	shown := func(lines []string) (t *time.Time, found bool) {
		for _, s := range lines {
			if t := shownDate(s, pm.slashes); t != nil && inMonth(t) {
				if mod := pm.modifiedAt(); mod != nil && mod.UTC().Format(time.DateOnly) == t.Format(time.DateOnly) && !pm.showsOtherUpdatedDay(t) {
					return nil, true
				}
				return t, true
			}
		}
		return nil, false
	}
	if t, found := shown(pm.shownDates); found {
		return t, false, false
	}
	t, found := shown(pm.dateLinesNearHeadline()) // read only now: most pages never get here
	return t, false, !found
}

// urlDays are the day and the month that the page's URL or its canonical
// URL name, the first of each.
func (pm *pageMeta) urlDays(pageURL string) (day, month *time.Time) {
	for _, u := range []string{pageURL, pm.canonical} {
		switch t, isDay := urlDate(u); {
		case isDay && day == nil:
			day = t
		case t != nil && month == nil:
			month = t
		}
	}
	return day, month
}

// sameMonth says whether t falls in month, or month is unknown.
func sameMonth(t, month *time.Time) bool {
	return month == nil || t.Year() == month.Year() && t.Month() == month.Month()
}

// updatedDay is the day of the first "Updated" line near the headline. A
// story that shows no other day is dated by it: WCXB's annotators took
// that day on every such tune page, and the page has no publication day
// to be wrong against. publishedAt never takes it, so a shown publication
// day always wins.
func (pm *pageMeta) updatedDay(pageURL string) *time.Time {
	_, month := pm.urlDays(pageURL)
	for _, s := range pm.linesNearHeadline(reUpdatedLine, reUpdatedLine) {
		if t := shownDate(s, pm.slashes); t != nil && sameMonth(t, month) {
			return t
		}
	}
	return nil
}

// showsOtherUpdatedDay reports an "Updated" line near the headline on
// another day than t: beside it, t is the day the story was published,
// whatever day the page declares as modified (a stale declaration).
func (pm *pageMeta) showsOtherUpdatedDay(t *time.Time) bool {
	for _, s := range pm.linesNearHeadline(reUpdatedLine, reUpdatedLine) {
		if u := shownDate(s, pm.slashes); u != nil && reUpdated.MatchString(s) && u.Format(time.DateOnly) != t.Format(time.DateOnly) {
			return true
		}
	}
	return false
}

// firstDateLine is the first date line near the headline that shows a
// day, and that day; none is "" and nil.
func (pm *pageMeta) firstDateLine() (string, *time.Time) {
	for _, s := range pm.dateLinesNearHeadline() {
		if shown := shownDate(s, pm.slashes); shown != nil {
			return s, shown
		}
	}
	return "", nil
}

// inShownZone is a declared instant given in UTC, in the zone of the clock
// the page shows by its headline (line, which shows the day shown): NZZ's
// "12.09.2024, 00.40 Uhr" beside a declared 2024-09-11T22:40Z is that
// instant at UTC+2, and the story's day is the 12th where it was
// published. The shown clock must be off the instant by whole quarter
// hours within UTC-12 to UTC+14; otherwise, and for a declared day without
// a time, the declaration stands. A clock that names its zone and shows
// the instant gives that zone (CBC's "Posted: Nov 18, 2025 9:30 PM EST"
// beside 02:30 UTC on the 19th).
func inShownZone(declared time.Time, line string, shown *time.Time) time.Time {
	if _, offset := declared.Zone(); offset != 0 || declared.Hour() == 0 && declared.Minute() == 0 && declared.Second() == 0 || shown == nil {
		return declared // the declaration carries its zone, has no clock to compare, or the page shows no day
	}
	if _, offset := shown.Zone(); offset != 0 && shown.Equal(declared.Truncate(time.Minute)) {
		return declared.In(shown.Location()) // the page shows the instant in the zone it names ("9:30 PM EST")
	}
	h, mi, ok := wallClock(line)
	if !ok {
		return declared // no clock, or one in a zone it names
	}
	d := time.Date(shown.Year(), shown.Month(), shown.Day(), h, mi, 0, 0, time.UTC).Sub(declared.Truncate(time.Minute))
	if d == 0 || d%(15*time.Minute) != 0 || d < -12*time.Hour || d > 14*time.Hour {
		return declared
	}
	return declared.In(time.FixedZone("", int(d/time.Second)))
}

// earlierShownDay is the day shown in the page's first date line near the
// headline when it is two days or more before the declared publication
// day. A declared date that late is a later publish stamped as the first
// (some CMSs declare one instant as both published and modified), and the
// day the page shows is the story's. A day apart may be the time zone,
// and the declared instant stays, unless no zone puts it on the shown day
// (22:02 UTC is the same day from UTC-12 to UTC+1: a page showing the day
// before dates the story by its own field, not by the publish).
func earlierShownDay(declared time.Time, shown *time.Time) *time.Time {
	if shown == nil {
		return nil
	}
	day := time.Date(declared.Year(), declared.Month(), declared.Day(), 0, 0, 0, 0, time.UTC)
	westmost := declared.UTC().Add(-12 * time.Hour) // the instant's wall clock at UTC-12
	earliest := time.Date(westmost.Year(), westmost.Month(), westmost.Day(), 0, 0, 0, 0, time.UTC)
	if shown.AddDate(0, 0, 2).After(day) && !shown.Before(earliest) {
		return nil
	}
	return shown
}

// prefixedPublished are the values of metas a site names with a prefix of
// its own before a publication date's usual name ("w-published-date"), in
// the order of their names.
func (pm *pageMeta) prefixedPublished() []string {
	var names []string
	for name := range pm.meta {
		for _, suffix := range []string{"-published-date", "_published_date", "-publish-date", "-publication-date", "_publication_date", "-date-published"} {
			if strings.HasSuffix(name, suffix) && len(name) > len(suffix) {
				names = append(names, name)
				break
			}
		}
	}
	slices.Sort(names)
	var out []string
	for _, n := range names {
		out = append(out, pm.meta[n]...)
	}
	return out
}

// declaredPublished is the publication time stated by JSON-LD, meta tags,
// microdata or a <time pubdate>.
func (pm *pageMeta) declaredPublished() *time.Time {
	srcs := []string{pm.ld.published}
	srcs = append(srcs, pm.all("article:published_time", "og:article:published_time")...)
	if items := pm.all("itemprop:datepublished"); oneDay(items) {
		srcs = append(srcs, items...)
	}
	srcs = append(srcs, pm.all("datepublished", "article:published", "pubdate", "publishdate", "publish-date", "publish_date",
		"article.published", "parsely-pub-date", "sailthru.date", "dc.date.issued", "dcterms.issued")...)
	srcs = append(srcs, pm.undatedModified(pm.all("dc.date", "dcterms.date", "date"))...)
	srcs = append(srcs, pm.all("dcterms.created", "og:published_time", "published_time",
		"article_date_original", "original-publish-date", "cxenseparse:recs:publishtime", "itemprop:datecreated",
		"published-date", "citation_publication_date", "citation_date", "citation_online_date")...)
	srcs = append(srcs, pm.pubTimes...)
	srcs = append(srcs, pm.prefixedPublished()...)
	for _, s := range srcs {
		if t := parseDate(s); t != nil {
			return t
		}
	}
	return nil
}

// undatedModified drops, from dates that do not say what they date (a
// plain "date" or "DC.date" meta), those on the declared modified day:
// there they date the last edit, and the page's own dated elements know
// the published day better.
func (pm *pageMeta) undatedModified(dates []string) []string {
	mod := pm.modifiedAt()
	if mod == nil {
		return dates
	}
	var kept []string
	for _, s := range dates {
		if t := parseDate(s); t == nil || t.UTC().Format(time.DateOnly) != mod.UTC().Format(time.DateOnly) {
			kept = append(kept, s)
		}
	}
	return kept
}

// oneDay reports whether the dates given name one day at most. Microdata
// that names several is a list's cards ("Mar 13, 2026 · 9 mins" under
// every teaser), not the story's own date.
func oneDay(dates []string) bool {
	day := ""
	for _, s := range dates {
		if t := parseDate(s); t != nil {
			switch d := t.Format(time.DateOnly); {
			case day == "":
				day = d
			case d != day:
				return false
			}
		}
	}
	return true
}

// modifiedAt picks the last-modified time.
func (pm *pageMeta) modifiedAt() *time.Time {
	srcs := append([]string{pm.ld.modified}, pm.all("article:modified_time", "og:updated_time",
		"itemprop:datemodified", "datemodified", "dcterms.modified", "last-modified", "lastmod",
		"article.updated", "parsely-updated", "updated_time")...)
	for _, s := range srcs {
		if t := parseDate(s); t != nil {
			return t
		}
	}
	return nil
}

// authors takes clean person names from the first source that has any:
// JSON-LD, meta tags, scholarly citation metas, the page's bylines, its
// unmarked credit lines, then links to an author's page.
// A source whose values are no names (article:author is often a profile
// URL) does not count. Declared authors that only name the site
// ("GlossGenius" on glossgenius.com, an Organization) give way to a
// person the page itself credits; with none, they stay (WCXB's
// annotators keep "Everfit Team" and "Podium Staff" too). pageURL may be
// empty.
func (pm *pageMeta) authors(pageURL string) []string {
	sources := [][]string{pm.ld.authors,
		pm.all("dc:creator", "dcterms:creator", "dc.creator", "author", "article:author", "og:article:author",
			"parsely-author", "sailthru.author", "dcterms.creator", "byl", "twitter:creator:name",
			"itemprop:author", "itemprop:creator"),
		citationNames(pm.all("citation_author")), pm.bylines, pm.writtenBy, pm.labelledAuthors(), pm.authorLinks, pm.boxNames,
		nil} // analyticsAuthors, read only when every other source has failed
	const declared = 3 // the sources before the page's own credits
	var site siteNames
	var fallback []string
	for i, raw := range sources {
		if i == len(sources)-1 {
			raw = pm.analyticsAuthors()
		}
		var out, desks []string
		seen := map[string]bool{}
		for _, r := range raw {
			names, desk := splitAuthors(r)
			for _, name := range names {
				if site == nil {
					site = pm.siteNames(pageURL)
				}
				name = site.withoutRunIn(name)
				if k := strings.ToLower(name); !seen[k] {
					seen[k] = true
					out = append(out, name)
				}
			}
			if desk != "" {
				desks = append(desks, desk)
			}
		}
		if len(out) == 0 {
			out = desks // a desk is the author only where no person is named
		}
		if len(out) == 0 {
			continue
		}
		if fallback == nil && i < declared && site.namesAll(out) {
			fallback = out // look on in the page's own credits
			continue
		}
		if fallback == nil && i < declared && site.addresses(out) {
			fallback = out[:1] // the site, not its town
			continue
		}
		if fallback != nil && (i < declared || !site.credits(out)) {
			continue
		}
		if i >= declared {
			out = pm.linkedNames(out)
		} else if shown := pm.creditedOthers(out); shown != nil {
			out = shown
		} else {
			out = pm.withCoauthors(out)
		}
		return site.without(out)
	}
	return fallback
}

// withCoauthors is the page's byline that names every declared author and
// more ("By Owen Blackfeather, Marisol Lucero and Terrence Green" where the
// metadata names the first alone, as some plugins declare), or declared.
// A single name more must be joined by "and" or link to an author's page.
func (pm *pageMeta) withCoauthors(declared []string) []string {
	for _, r := range pm.bylines {
		names, _ := splitAuthors(r)
		if len(names) <= len(declared) || len(names) == len(declared)+1 && !reAndSep.MatchString(r) && !pm.linksAuthor(names[len(names)-1]) {
			continue // "By Jane Roe, New York": one more name after a comma may be a place, a school or a paper
		}
		found := 0
		for _, n := range names {
			switch {
			case slices.ContainsFunc(declared, func(d string) bool { return strings.EqualFold(n, d) }):
				found++
			case !isFullName(n) || namesRole(n) || isPublication(n) || wireAgencies[letters(n)] || endsInPaperWord(n) || slices.ContainsFunc(declared, func(d string) bool { return sharesName(n, d) }):
				return declared // a role, a credential or the name again ("FAND Dylan Bailey"): not a list of writers
			}
		}
		if found == len(declared) {
			return names
		}
	}
	return declared
}

// endsInPaperWord says whether a name ends as a paper's may ("Washington
// Post", "Toronto Star"): not a co-author to add, though a surname.
func endsInPaperWord(name string) bool {
	return strings.HasSuffix(name, " Post") || strings.HasSuffix(name, " Star")
}

// linksAuthor says whether a link to an author's page reads name.
func (pm *pageMeta) linksAuthor(name string) bool {
	return slices.ContainsFunc(pm.authorLinks, func(l string) bool { return strings.EqualFold(l, name) })
}

// creditedOthers is the one person the page's credit lines name ("By:
// Paul Fenaroli") where that line stands by the headline and the page
// shows no declared author anywhere, not even as text or an image's
// description: the declared author is then the account that posted the
// story. Otherwise nil.
func (pm *pageMeta) creditedOthers(declared []string) []string {
	if len(pm.creditedNearHeadline) == 0 {
		return nil
	}
	for _, d := range declared {
		for _, shown := range [][]string{pm.bylines, pm.authorLinks, pm.boxNames} {
			if slices.ContainsFunc(shown, func(s string) bool { return sharesName(s, d) }) {
				return nil
			}
		}
		if pm.showsText(d) {
			return nil
		}
	}
	var shown []string
	for _, r := range pm.writtenBy {
		names, _ := splitAuthors(r)
		for _, n := range names {
			if !slices.Contains(shown, n) {
				shown = append(shown, n)
			}
		}
	}
	if len(shown) != 1 || strings.HasPrefix(shown[0], "The ") || !slices.ContainsFunc(pm.creditedNearHeadline, func(r string) bool {
		names, _ := splitAuthors(r)
		return slices.Contains(names, shown[0])
	}) {
		return nil // other stories' cards, "By The Numbers", or a line far from the headline
	}
	for _, d := range declared {
		if sharesName(shown[0], d) {
			return nil
		}
	}
	return shown
}

// showsText says whether the page's body shows s (any case) as text or
// as an image's description.
func (pm *pageMeta) showsText(s string) bool {
	if pm.bodyText == "" {
		var sb strings.Builder
		for _, n := range pm.nodes {
			switch n.DataAtom {
			case atom.Img:
				sb.WriteString(attr(n, "alt") + " ")
			case atom.Script, atom.Style, atom.Title, atom.Noscript, atom.Template:
				continue // the head's text, or no text shown
			}
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				if c.Type == html.TextNode {
					sb.WriteString(c.Data + " ")
				}
			}
		}
		pm.bodyText = strings.ToLower(joinFields(sb.String())) + " "
	}
	return strings.Contains(pm.bodyText, strings.ToLower(joinFields(s)))
}

// sharesName says whether two names have a word of three letters or more
// in common ("Brett" and "Brett Larkin").
func sharesName(a, b string) bool {
	for _, w := range strings.Fields(strings.ToLower(a)) {
		if len(w) >= 3 && slices.Contains(strings.Fields(strings.ToLower(b)), w) {
			return true
		}
	}
	return false
}

// linkedNames trims a credit read from the page's text to the name its
// author link gives, where the text runs on past it ("Sofia Kondrat
// EdTech Content writer" beside a link to /authors/sofia-kondrat reading
// "Sofia Kondrat").
func (pm *pageMeta) linkedNames(names []string) []string {
	out := names[:0]
	for _, n := range names {
		for _, l := range pm.authorLinks {
			if len(l) < len(n) && strings.HasPrefix(n, l+" ") && strings.Contains(l, " ") {
				n = l
				break
			}
		}
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// siteNames are the names a site goes by, in letters and digits alone:
// its host's labels (but the TLD and www) and its declared site and
// publisher names, each mapped to whether the page declares it.
type siteNames map[string]bool

func (pm *pageMeta) siteNames(pageURL string) siteNames {
	names := siteNames{}
	if u, err := url.Parse(pageURL); err == nil {
		labels := strings.Split(strings.ToLower(u.Hostname()), ".")
		for _, l := range labels[:max(len(labels)-1, 0)] {
			if l != "www" {
				names[letters(l)] = false
			}
		}
	}
	for _, n := range []string{pm.get("og:site_name", "application-name"), pm.ld.publisher} {
		if k := letters(n); k != "" {
			names[k] = true
		}
	}
	return names
}

// without drops the site's own name and an agency's from names that also
// credit someone else ("Ashley Biancuzzo, PCWorld", "Jane Roe, Reuters").
func (s siteNames) without(names []string) []string {
	if len(names) < 2 || s.namesAll(names) {
		return names
	}
	return slices.DeleteFunc(names, func(n string) bool {
		_, site := s[letters(n)]
		return site || wireAgencies[letters(n)]
	})
}

// wireAgencies are the news agencies whose names a byline runs in after
// the writer's, in letters and digits alone. withoutRunIn cuts those of
// one word only in capitals, or "Reuters" as written: "Bloomberg", "Efe"
// and "Ansa" are surnames too.
var wireAgencies = map[string]bool{
	"ap": true, "associatedpress": true, "theassociatedpress": true, "reuters": true, "afp": true,
	"agencefrancepresse": true, "bloomberg": true, "bloombergnews": true, "upi": true, "dpa": true, "efe": true, "ansa": true,
	"canadianpress": true, "thecanadianpress": true, "aap": true, "pa": true, "pamedia": true,
}

// withoutRunIn cuts the publication a byline runs in after the writer's
// name ("Kevin McCoy USA TODAY", "Tom Davies Associated Press", "Jane Roe
// The Washington Post"): a news agency's name, a paper's of two words or
// more (rePublication), or the site's as the page declares it (two words
// or more, or in capitals) or as its host is written in capitals. Names
// in capitals keep a site's name ("JANE LELAND STANFORD" on
// stanford.edu), and a capitalised word stays ("Michael R. Bloomberg",
// "Anna Maria Garcia" on garcia.com).
func (s siteNames) withoutRunIn(name string) string {
	f := strings.Fields(name)
	for k := min(3, len(f)-2); k >= 1; k-- {
		tail, head := strings.Join(f[len(f)-k:], " "), strings.Join(f[:len(f)-k], " ")
		key, caps := letters(tail), tail == strings.ToUpper(tail)
		declared, site := s[key]
		agency := wireAgencies[key] && (k > 1 || caps || tail == "Reuters")
		paper := k > 1 && rePublication.MatchString(tail)
		if !agency && !paper && !(site && head != strings.ToUpper(head) && (caps || declared && k > 1)) {
			continue
		}
		if rePersonName.MatchString(head) {
			return head
		}
	}
	return name
}

// namesAll tells whether every name is one the site goes by.
func (s siteNames) namesAll(names []string) bool {
	for _, n := range names {
		k := letters(n)
		if _, site := s[k]; k == "" || !site {
			return false
		}
	}
	return len(names) > 0
}

// addresses tells whether names are the site's name and its address
// ("DER SPIEGEL, Hamburg, Germany" in Der Spiegel's author meta): the
// site's name first, then single words.
func (s siteNames) addresses(names []string) bool {
	if len(names) < 2 {
		return false
	}
	if _, site := s[letters(names[0])]; !site {
		return false
	}
	for _, n := range names[1:] {
		if strings.Contains(n, " ") {
			return false
		}
	}
	return true
}

// credits tells whether names read as the one or two people a page
// credits, none of them holding a site's name ("Author Venteur" on
// venteur.com is the site again, "Brian Truitt USA TODAY" a byline with
// the paper's name run in).
func (s siteNames) credits(names []string) bool {
	if len(names) > 2 {
		return false
	}
	for _, n := range names {
		if !rePersonName.MatchString(n) && !reCaselessName.MatchString(n) {
			return false
		}
		k := letters(n)
		for site := range s {
			if len(site) >= 3 && strings.Contains(k, site) {
				return false
			}
		}
	}
	return true
}

// labelledAuthors reads the label/value pairs of a summary card
// (twitter:label1 "Written by", twitter:data1 "Jane Roe"), which SEO
// plugins write when the page has no author meta.
func (pm *pageMeta) labelledAuthors() []string {
	var out []string
	for i := 1; i <= 4; i++ {
		n := strconv.Itoa(i)
		if reCardAuthor.MatchString(pm.get("twitter:label" + n)) {
			out = append(out, pm.all("twitter:data"+n)...)
		}
	}
	return out
}

// reCardAuthor matches a summary-card label that names the author.
var reCardAuthor = quickre.MustCompile(`(?i)^\s*(?:(?:` + creditVerbs + `)\s+by|author|by)\s*$`)

// citationNames turns scholarly citation_author values, one author each,
// into names: "Roy, Aniruddha" is Aniruddha Roy (splitAuthors would make
// two names of it).
func citationNames(values []string) []string {
	out := make([]string, 0, len(values))
	for _, v := range values {
		if last, first, ok := strings.Cut(v, ","); ok && !strings.Contains(first, ",") {
			v = strings.TrimSpace(first) + " " + strings.TrimSpace(last)
		}
		out = append(out, v)
	}
	return out
}

// titleNouns are the jobs a byline writes after a name ("Jane Roe
// Founder at Acme", reAuthorTitle); jobNouns are more, which end a title
// given as a list item of its own ("Paul Frew, Home and Digital Security
// Expert", reJobTitleEnd).
const (
	titleNouns = `founder|co-?founder|ceo|cto|editor|writer|correspondent|reporter|columnist|director|manager|president`
	// stampClock is a time of day in a byline's stamp ("10:30", "7:05:12").
	stampClock = `\b\d{1,2}:\d{2}(?::\d{2})?`
	jobNouns   = `expert|specialist|educator|veterinarian|horticultur(?:al)?ist|analyst|strategist|consultant|advis[oe]r|scientist|researcher|engineer|designer|developer|nutritionist|dietitian|therapist|physician|psychologist|psychiatrist|counsel+or|pharmacist|surgeon|dentist|economist|historian|architect|instructor|professor|attorney|lawyer|officer|coordinator|producer|journalist|photographer`
)

var (
	// reAuthorDate is a day and all after it in a credit ("Jane Roe |
	// March 3, 2024", "Jean Dupont, le 3 mars 2024", "Jane Roe, Modified:
	// 03/03/2024"). The six languages' "on" ("le", "am", "el" …) counts in
	// lower case only: capitalised, it is a surname ("Thanh Le 12 May
	// 2024").
	reAuthorDate = quickre.MustCompile(`(?i)\s*(?:[|,·•–—-]\s*)?(?:(?:(?:last\s+)?(?:updated|modified|published|posted)(?:\s+(?:on|at))?:?|on|at|(?-i:le|el|am|em|il|op|vom|du|del))\s+)?(?:(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*\.?,?\s+)?(?:\b(?:` + monthWords + `)\.?\s+\d|` + stampClock + `(?:\s*(?:$|[,|·•])|\s*[ap]\.?\s?m\b|(?-i:\s+[A-Z]{2,4}\b))|\d{1,2}` + dayMark + `(?:de\s+)?` + shownMonth + `(?:[^\pL]|$)|\d{1,4}[/.-]\d|\d+\s+(?:sec|min|hour|hr|day|week|month)s?\s+ago).*$`)
	// reLeadDate is a day before the name in a date-and-author line
	// ("Dec 17, 2025 · Julian K. Arni"); reAuthorDate would cut the rest.
	reLeadDate = quickre.MustCompile(`(?i)^\s*(?:` + weekday + `\.?,?\s+)?(?:` + englishMonth + `\.?\s+\d{1,2}(?:st|nd|rd|th)?,?\s+\d{4}|\d{1,2}` + dayMark + `(?:de\s+)?` + shownMonth + `\.?,?\s+(?:de\s+)?\d{4}|\d{4}-\d{2}-\d{2}|\d{1,2}[./]\d{1,2}[./]\d{4}|\d{4}年\d{1,2}月\d{1,2}日)(?:,?\s*(?:at|um|à|alle|ore|om|às|a las)?\s*\d{1,2}[:.h]\d{2}(?:\s*(?:[ap]\.?m\.?|uhr))?)?\s*(?:[|,·•–—-]\s*)?`)
	// reAfterWriter is what follows a writer's name and is no credit for
	// writing: whom the writer speaks for ("Jane Roe on behalf of the
	// team"), an editor's or a reviewer's credit ("Written by Jane Roe
	// Edited by John Doe", "Medically reviewed by …"), what a bio says of
	// the writer ("Written by Jane Roe who lives in Oslo"), in Chinese and
	// Japanese an editor's, a photographer's or a stringer's ("文/张伟
	// 图/李明", "记者 张伟 通讯员 李明", "文：山田太郎 写真：佐藤花子").
	reAfterWriter = quickre.MustCompile(`(?i)\s+(?:on behalf of|(?:medically\s+)?(?:edited|editing|reviewed|fact[- ]checked|illustrated|translated)\s+by)\b.*$|,?\s+who\s+(?:lives|works|writes|covers|loves|enjoys|builds|helps)\b.*$` +
		`|(?:^|[\s，,、|]+)(?:责任编辑|責任編輯|编辑|編輯|图|圖|摄影|攝影|通讯员|通訊員|写真|撮影|イラスト)\s*[：:/／=＝].*$|\s+(?:通讯员|通訊員|实习生|實習生)\s.*$`)
	// reAmpersandTeam is a brand's team whose name holds an ampersand and
	// no other list separator.
	reAmpersandTeam = quickre.MustCompile(`(?i)^[^,;|]*\S\s*&\s*\S[^,;|]*\s(?:team|staff|editors|editorial team)$`)
	// reLegalForm is a firm's legal form at the end of its name.
	reLegalForm = quickre.MustCompile(`(?i),?\s+(?:pllc|llc|l\.l\.c\.|llp|inc\.?|ltd\.?|limited|gmbh|plc|corp\.?|s\.a\.|s\.l\.|b\.v\.|pty ltd)$`)
	// reSourceLead is the source a Chinese credit names before the writer
	// ("来源：新华社 作者：张伟").
	reSourceLead = quickre.MustCompile(`^\s*(?:来源|來源)\s*[：:][^\s，,|]*[\s，,|]*`)
	// reHanReportFrom is where a Chinese reporter files from, after the
	// name ("记者 张伟 北京报道", "記者王小明／台北報導"), and
	// reHanReporter a reporter's credit with the paper or agency before
	// "reporter", in brackets or not ("（本报记者 张伟）", "新华社记者：张伟",
	// "聯合報／ 記者王小明"), the names apart by a comma or a space.
	// Without a filing place after the name, a space or a colon must
	// follow "reporter": "记者手记", "记者招待会" and "记者获悉" are words.
	reHanReportFrom = quickre.MustCompile(`\s*[／/\s]\s*\p{Han}{0,6}?(?:报道|報導)\s*$`)
	reHanReporter   = quickre.MustCompile(`^[（(]?\s*(?:\p{Han}{1,6}\s*[／/]\s*)?\p{Han}{0,6}?(记者|記者)(\s*[：:]\s*|\s+)?(\p{Han}{2,5}(?:(?:\s*[、，,]\s*|\s+)\p{Han}{2,5})*)\s*[）)]?$`)
	// reHanNameSep parts the names of a reporters' credit ("张伟 李娜");
	// after the traditional "記者", reHanListSep, as Japanese writes a
	// space within a name ("記者 山田 太郎").
	reHanNameSep = quickre.MustCompile(`\s*[、，,]\s*|\s+`)
	reHanListSep = quickre.MustCompile(`\s*[、，,]\s*`)
	// reLaterBy opens a later part of a credit with "By" after one part, or
	// after stamps alone: that part is the credit ("Published 10:30 AM ET,
	// Sun March 3, 2024 | By Jane Roe", "Opinion | By Jane Roe", "Published
	// March 3, 2024 · Updated 11:00 AM · By Jane Roe"), where reAuthorDate
	// would cut the name with the stamp. After a name and more it is a
	// column's or a photographer's ("Jane Roe | March 3, 2024 | By the
	// Book"). A lower-case "by" is prose ("Jane Roe 2nd · by the editors").
	reLaterBy = quickre.MustCompile(`^(?:[^|•·]*[|•·]\s*|(?:[^|•·\d]*\d[^|•·]*[|•·]\s*){2,})(?:By|BY)\s+`)
	// reLeadClock is a time of day before the name, with its label, zone
	// and separator ("10:30 AM EST | Jane Roe", "at 10:30 am · Jane Roe",
	// "Updated 10:30 AM ET By Jane Roe").
	reLeadClock = quickre.MustCompile(`(?i)^\s*(?:(?:at|(?:last\s+)?(?:updated|modified|published|posted)(?:\s+(?:on|at))?:?)\s+)?` + stampClock +
		`(?:\s*[ap]\.?\s?m\b\.?)?(?-i:\s+(?:` + zoneNames() + `)\b)?[\s|·•,–—-]*`)
	// reAuthorTitle is a job title after a name ("Jane Roe Founder at Acme").
	reAuthorTitle = quickre.MustCompile(`(?i)\s+(?:(?:senior|chief|lead|managing|executive|contributing|staff)\s+)?(?:` + titleNouns + `)\b.*$`)
	// reRoleAfterName is a Korean, Chinese or Japanese reporter's title
	// after the name, and the e-mail address after that ("홍길동 기자
	// hong@example.com", "张伟 记者"; "资深记者" is a title alone).
	reRoleAfterName = quickre.MustCompile(`\s+(?:기자|특파원|记者|記者)(?:\s+\S+@\S+)?$`)
	reAuthorRole    = quickre.MustCompile(`(?i)\b(?:writer|editor|correspondent|reporter|columnist|staff)\b`)
	reByPrefix      = quickre.MustCompile(`(?i)^\s*(?:(?:(?:(?:` + wordsOpener + `)|` + genreOpener + `|` + localCreditVerbs + `|posted)\s+)?(?:` + bylinePrefixes() + `)\s*[:：\s/／|｜=＝,]\s*|(?:text|texte|testo|texto|tekst|words)\s*[:：]\s*|` + envoyOpener + `\s+)`) // one ^ before all: see reSignOffLine
	// A credit is a list (reListSep) of names joined by "and" (reAndSep);
	// a "·" parts it between spaces ("Jane Roe · Follow · 5 min read"), as
	// transcribed names hold one ("迈克尔·乔丹").
	reListSep = quickre.MustCompile(`\s*[,;|•、，]\s*|\s+·\s+`)
	reAndSep  = quickre.MustCompile(`\s*(?:&|\s(?:and|AND|And|und|et|y|e|en|og|och)\s)\s*`)
	// reWithAside is a note naming who wrote with the writer ("Martin
	// Untersinger (avec Damien Leloup et Morgane Tual)"): more names, or
	// an agency ("mit dpa", "con información de EFE").
	reWithAside = quickre.MustCompile(`(?i)\s*\((?:with|avec|mit|con|com|met|med)\s+([^()]+)\)`)
	// reListAside is a note in brackets holding a list after a name
	// ("Jane Doe (Reuters, Berlin)"): a place or a desk, cut before the
	// credit is split as a list.
	reListAside = quickre.MustCompile(`\s*\([^()]*[,;|][^()]*\)(\s*(?:$|[,;|&]|\s(?:and|und|et|y|e)\s))`)
	// reJobTitleEnd is a list item that ends in a job ("Paul Frew, Home
	// and Digital Security Expert"): the title of the name before it,
	// however many words it runs to.
	reJobTitleEnd = quickre.MustCompile(`(?i)\b(?:` + jobNouns + `|` + titleNouns + `)s?$`)
	reAuthorJunk  = quickre.MustCompile(`(?i)https?://|www\.|@|\d{3,}|updated|published|follow|\bmeet the\b|[<>{}=]|\s[»›]\s|[摄攝]影?$|撮影$|^undefined$|简介|簡介|介绍|プロフィール|一覧|更多|全部|المقالات`)
	// reInstitution is the office or school a writer writes for, after the
	// name ("Jennifer Wu, Office of Communications", "Jane Roe, Department
	// of Biology", "John Doe, Stanford University").
	reInstitution = quickre.MustCompile(`^(?:The\s+)?(?:Office|Department|Dept\.|Division|School|College|Faculty|Institute|Cent(?:er|re)|Bureau|Ministry|University|Council|Board)\s+(?:of|for)\s+\p{Lu}|\s(?:University|College|Institute|Communications|News Service|News Office|Press Office|Newsroom)$`)
	// reAuthorGroup is a desk, not a person: "Staff", "Contributor", an
	// editorial office ("编辑部", "編集部", "فريق التحرير", "מערכת").
	reAuthorGroup = quickre.MustCompile(`(?i)\bstaff\b|contributor$|编辑部|編輯部|編集部|新闻中心|本报|本報|التحرير|المحرر|מערכת`)
	// reAuthorLabel is what stands before a name in a credit's part
	// ("Author: Jane Roe", "Authors: Jane Roe and …", "About Jane Roe").
	reAuthorLabel = quickre.MustCompile(`(?i)^\s*(?:(?:authors?|about|and)\s*:?\s+|(?:authors?|reporters?|writers?|penulis|wartawan)\s*:\s*)`)
	// rePostNominal is a degree, a credential or a suffix after a name
	// ("Jane Roe, MS, RD", "Ph.D.", "Jr."): the name's, not a second one.
	rePostNominal = quickre.MustCompile(`^(?:\p{Lu}{2,5}|Ph\.?\s?D|M\.D|Jr|Sr|I{2,3}|Esq)\.?$`)
	// rePublication is the paper a credit names after the writer ("Jane
	// Roe, The New York Times", "…, USA TODAY", "…, for The Guardian",
	// "…, Special to The Globe", "…, Süddeutsche Zeitung", "…, Die Welt",
	// "…, Daily Star", "…, Times of India"). "Post", "Star" and "Spiegel"
	// are surnames too, so only an article or "Daily" makes them a paper's;
	// "Le" and "De" open Vietnamese and Dutch names ("Le Minh", "De Jong").
	rePublication = quickre.MustCompile(`^(?:(?i:special\s+to|for)\s+\S.*|(?:The|Der|Die|Das)\s+\p{Lu}.*|` +
		`(?:\p{Lu}[\p{L}.&'’-]*\s+){1,3}(?:Times|Journal|Tribune|Gazette|Chronicle|Telegraph|Inquirer|Examiner|Dispatch|News|Magazine|Herald|Observer|Daily|` +
		`Zeitung|Rundschau|Kurier|Anzeiger|Tagblatt|Nachrichten|Presse|Monde|Figaro|Parisien|Repubblica|Stampa|Mundo|País|Tiempo|Nación)|` +
		`(?:Daily|Evening|Morning|Weekly|Corriere|Gazzetta|Diario|Jornal|Folha)(?:\s+\p{Lu}[\p{L}.&'’-]*){1,3}|(?:Times|News|Voice)\s+of\s+\p{Lu}\p{L}+|USA (?:TODAY|Today))$`)
	// reVisualAside is a reAside that names a visual trade ("(Fotos)").
	reVisualAside = quickre.MustCompile(`(?i)^\s*\(\s*(?:` + visualTrades + `)\s*\)$`)
	// reAside is a parenthesised note after a name ("Jane Roe (Data
	// Analyst)", "Jean Doe (CNXSoft)"), cut unless it names a role.
	reAside = quickre.MustCompile(`\s*\([^()]*\)$`)
	// reAuthorControl is an author box's link or button, a label alone, a
	// numbered heading or a commenter's credit: no name.
	reAuthorControl = quickre.MustCompile(`(?i)^(?:(?:view|see|read|more|all)\b.*\b(?:posts?|articles?|stories|author)$|(?:read\s+)?more\s+(?:from|by)\s|(?:learn|read)\s+more\b|(?:the\s+)?authors?$|write\s+(?:a|your)\s+review|\d+\.\s)|\scommented(?:\s+on)?$`)
	// reVisualCredit is a part crediting the pictures, not the words
	// ("Photos by John Doe", ", Illustration: Ann Lee", "· Video by …"),
	// with the names after it up to the next part. The prepositions of
	// other languages are lower case: "Art De Luca" is a name.
	reVisualCredit = quickre.MustCompile(`(?i)(?:^|[,;|•.]\s*|\s[·/]\s*)(?:` + visualTrades + `)(?:\s+(?:and|&)\s+(?:` + visualTrades + `))*\s*(?:by\b|:|(?-i:von|de|di|por|par|door|av)\b)[^|•;·]*`)
	// reWriterAfter is the writer's credit that may follow a picture
	// credit after a comma ("Photos by John Doe, text by Jane Roe").
	reWriterAfter = quickre.MustCompile(`(?i),\s*(?:` + creditVerbs + `|by)\b`)
	// reListenPart is an audio player's label or a reading time among a
	// credit's parts ("Listen 3:16", "5 min read"): no name.
	reListenPart = quickre.MustCompile(`(?i)^(?:listen(?:\s+to\s+(?:this|the)\s+(?:article|story))?(?:\s+` + duration + `)?|` + duration +
		`(?:\s+(?:read|listen))?|(?:reading|read|listening)\s+time:?\s*` + duration + `)$`)
	// reColophon is a credit by trade ("design: Jane Roe, code: John Doe").
	reColophon = quickre.MustCompile(`(?i)(?:^|[,;]\s*)(?:design|code|development|hosting|photos?|illustrations?|fotos?|foto's|photographie|fotografía|fotografia|ilustración|illustrazione)\s*:`)
)

// withNames turns a reWithAside note into the names it holds (", Damien
// Leloup et Morgane Tual"), or cuts it when it holds other words.
func withNames(aside string) string {
	inner := reWithAside.FindStringSubmatch(aside)[1]
	for _, item := range reListSep.Split(inner, -1) {
		for _, p := range reAndSep.Split(item, -1) {
			if !rePersonName.MatchString(strings.TrimSpace(p)) {
				return ""
			}
		}
	}
	return ", " + inner
}

// reNameTail is what a byline writes after a name: where the writer
// files from ("Jane Roe in Kyiv"), a bio ("Jane Roe is a reporter at
// …"), a handle or an e-mail address ("Jane Roe @janeroe", "PARK MIN-HA
// [park.minha@joongang.co.kr]").
var reNameTail = quickre.MustCompile(`\s+(?:in\s+\p{Lu}[\p{L}'’.-]*(?:\s+\p{Lu}[\p{L}'’.-]*){0,2}|(?:is|was)\s+(?:a|an|the)\s.*|` +
	`(?:(?i:twitter|x|email|e-mail)\s*:?\s*)?[\[(<]?(?:@[\w.]+|[\w.+-]+@[\w-]+\.[\w.-]+)[\])>]?)$`)

// reDashSep stands between a name and what a byline says of it ("Jane
// Roe – Political reporter").
var reDashSep = quickre.MustCompile(`\s+[–—-]\s+`)

// cutNameTail cuts reNameTail from a credit's part, and a dash and the
// role, desk or paper after it.
func cutNameTail(p string) string {
	if strings.Contains(p, " in ") || strings.Contains(p, " is ") || strings.Contains(p, " was ") || strings.Contains(p, "@") {
		if cut := reNameTail.ReplaceAllString(p, ""); rePersonName.MatchString(cut) {
			p = cut // and not "This review is posted" from "… in Mobile App Reviews"
		}
	}
	if i := strings.Index(p, " for "); i > 0 && rePersonName.MatchString(p[:i]) && isPaperFor(strings.TrimSpace(p[i+len(" for "):])) {
		p = p[:i] // "Jane Roe for The Washington Post", not "Texas Coalition for Bilingual Education"
	}
	if strings.ContainsAny(p, "-–—") {
		if d := reDashSep.FindStringIndex(p); d != nil && rePersonName.MatchString(p[:d[0]]) && (isRole(p[d[1]:]) || namesRole(p[d[1]:]) || isPaperFor(p[d[1]:])) {
			p = p[:d[0]]
		}
	}
	return p
}

// joinedNames parts the names Catalan and Polish "i" join ("Joan Puig i
// Maria Vila"): two full names, the second no paper, role or desk; "i"
// between surnames ("Josep Puig i Cadafalch") joins one name. A dash is
// left to cutNameTail: after a name it stands before a paper or a place
// far more often than before a second writer ("Jane Roe - South China
// Morning Post", "Juan Pérez - Buenos Aires").
//
// reJoinSep is what joinedNames parts at.
var reJoinSep = quickre.MustCompile(`\s+i\s+`)

func joinedNames(parts []string) []string {
	for i := 0; i < len(parts); i++ {
		d := reJoinSep.FindStringIndex(parts[i])
		if d == nil {
			continue
		}
		left, right := strings.TrimSpace(parts[i][:d[0]]), strings.TrimSpace(parts[i][d[1]:])
		if isFullName(left) && isFullName(right) && !isPublication(right) && !isRole(right) && !namesRole(right) {
			parts = slices.Insert(slices.Delete(parts, i, i+1), i, left, right)
		}
	}
	return parts
}

// isFullName reports a person's name of two words or more (rePersonName).
func isFullName(s string) bool {
	return strings.Contains(s, " ") && rePersonName.MatchString(s)
}

// isPaperFor reports what a writer writes for: a paper (rePublication),
// a wire agency or a name in capitals ("CNN").
func isPaperFor(s string) bool {
	return isPublication(s) || wireAgencies[letters(s)] || len(s) >= 2 && s == strings.ToUpper(s) && hasLetters(s)
}

// isRole reports what a byline says a writer is ("Political reporter",
// "Author/Reviewer", "Founder at Acme"), not who.
func isRole(s string) bool {
	return reAuthorRole.MatchString(s) || reAuthorTitle.MatchString(" "+s) || indexFold(s, "author") >= 0 || startsLower(s)
}

// startsLower reports a part that opens with a lower-case letter.
func startsLower(p string) bool {
	r, _ := utf8.DecodeRuneInString(p)
	return unicode.IsLower(r)
}

// isLowerPhrase reports a part in lower case after a name: a role or a
// place ("envoyé spécial à Kiev", "photographer John Doe", "de
// Brasília"). A name capitalises what follows its particle ("al-Sayed
// Ahmed").
func isLowerPhrase(p string) bool {
	f := strings.Fields(p)
	if len(f) < 2 || !startsLower(f[0]) {
		return false
	}
	return startsLower(f[1]) || reLowerRole.MatchString(f[0]) || len(f) == 2 && slices.Contains(placeParticles, f[0])
}

// reLowerRole is a role written before a name in lower case.
var reLowerRole = quickre.MustCompile(`^(?:photographers?|illustrators?|videographers?|cameraman|editors?|reporters?|correspondents?|writers?)$`)

// placeParticles open where a writer files from ("de Brasília", "da
// Roma", "aus Berlin").
var placeParticles = []string{"de", "da", "do", "di", "du", "del", "della", "aus", "from", "in", "à", "a"}

// isPublication reports a paper's name after a writer's (rePublication),
// but not a reverend's or an honourable's ("The Rev. John Doe").
func isPublication(p string) bool {
	for _, t := range []string{"The Rev", "The Hon", "The Right", "The Very", "The Most"} {
		if strings.HasPrefix(p, t) {
			return false
		}
	}
	return rePublication.MatchString(p)
}

// visualStems begin every visualTrades word: reVisualCredit's cheap first
// test, as most credits name no pictures.
var visualStems = []string{"photo", "foto", "pictur", "image", "illustr", "ilustr", "graphic", "video", "art", "cartoon", "animation", "map", "bild"}

// mayCreditVisuals reports whether s holds a word reVisualCredit reads.
func mayCreditVisuals(s string) bool {
	for _, w := range visualStems {
		if indexFold(s, w) >= 0 {
			return true
		}
	}
	return false
}

// withoutVisualCredits cuts a credit's parts that credit the pictures
// (reVisualCredit), but a writer's credit after one ("Photos by John Doe,
// text by Jane Roe"). A picture credit alone names no author ("Foto:
// EFE" in an author's element).
func withoutVisualCredits(s string) string {
	locs := reVisualCredit.FindAllStringIndex(s, -1)
	if locs == nil {
		return s
	}
	var b strings.Builder
	kept := 0
	for _, l := range locs {
		end := l[1]
		if w := reWriterAfter.FindStringIndex(s[l[0]:end]); w != nil {
			end = l[0] + w[0] + 1 // keep ", text by …" from its word on
		}
		b.WriteString(s[kept:l[0]])
		kept = end
	}
	b.WriteString(s[kept:])
	return strings.TrimLeft(b.String(), " |•·,;/")
}

// dropListenParts drops the parts of a credit line that are an audio
// player's label or a reading time (reListenPart), with their separators.
func dropListenParts(s string) string {
	if !strings.ContainsAny(s, "0123456789") && indexFold(s, "listen") < 0 {
		return s // every reListenPart holds a digit or "listen"
	}
	seps := reListSep.FindAllStringIndex(s, -1)
	var b strings.Builder
	dropped, start, sep := false, 0, ""
	for i := 0; i <= len(seps); i++ {
		end, next := len(s), len(s)
		if i < len(seps) {
			end, next = seps[i][0], seps[i][1]
		}
		if part := s[start:end]; reListenPart.MatchString(part) {
			dropped = true
		} else {
			if b.Len() > 0 {
				b.WriteString(sep)
			}
			b.WriteString(part)
		}
		sep, start = s[end:next], next
	}
	if !dropped {
		return s
	}
	return b.String()
}

// hangulDots parts Korean names a middle dot joins ("최지훈·한수빈 기자"):
// between Hangul it is a list's, where transcribed names keep theirs
// ("迈克尔·乔丹").
func hangulDots(s string) string {
	i := strings.IndexRune(s, '·')
	if i <= 0 {
		return s
	}
	var b strings.Builder
	for i >= 0 {
		before, _ := utf8.DecodeLastRuneInString(s[:i])
		after, _ := utf8.DecodeRuneInString(s[i+len("·"):])
		b.WriteString(s[:i])
		if unicode.Is(unicode.Hangul, before) && unicode.Is(unicode.Hangul, after) {
			b.WriteString(", ")
		} else {
			b.WriteString("·")
		}
		s = s[i+len("·"):]
		i = strings.IndexRune(s, '·')
	}
	b.WriteString(s)
	return b.String()
}

// unbracketed is a credit without the brackets around the whole of it
// where they hold a credit word ("（文/张伟）", "(By Jane Roe)"); "(Reuters)"
// and "(AP Photo)" stay an agency's note.
func unbracketed(s string) string {
	for _, b := range [][2]string{{"(", ")"}, {"（", "）"}} {
		if inner, ok := strings.CutPrefix(s, b[0]); ok && strings.HasSuffix(inner, b[1]) && !strings.ContainsAny(inner[:len(inner)-len(b[1])], "()（）") {
			if inner = strings.TrimSpace(inner[:len(inner)-len(b[1])]); reByPrefix.MatchString(inner) {
				return inner
			}
		}
	}
	return s
}

// withoutAvatarInitials drops the initials an avatar draws before a name
// ("CM Craig McCarthy" where the picture is missing).
func withoutAvatarInitials(name string) string {
	first, rest, ok := strings.Cut(name, " ")
	words := strings.Fields(rest)
	if !ok || len(words) < 2 || len(first) != len(words) {
		return name
	}
	for i, w := range words {
		if r, _ := utf8.DecodeRuneInString(w); first[i] != byte(r) || !unicode.IsUpper(r) {
			return name
		}
	}
	return rest
}

// hasLetters says whether s holds a letter: a name, not a bullet or a
// number.
func hasLetters(s string) bool {
	return strings.IndexFunc(s, unicode.IsLetter) >= 0
}

// hanReporter cuts where a Chinese reporter files from (reHanReportFrom)
// and writes a reporter's credit (reHanReporter) as the plain "记者：张伟"
// (or "記者：", as written: Japanese pages credit with that one).
func hanReporter(s string) string {
	filed := false
	if strings.Contains(s, "报道") || strings.Contains(s, "報導") {
		t := reHanReportFrom.ReplaceAllString(s, "")
		s, filed = t, len(t) < len(s)
	}
	if !strings.Contains(s, "记者") && !strings.Contains(s, "記者") {
		return s
	}
	m := reHanReporter.FindStringSubmatch(s)
	if m == nil || m[2] == "" && !filed {
		return s
	}
	var names []string
	sep := reHanNameSep
	if m[1] == "記者" {
		sep = reHanListSep
	}
	for _, n := range sep.Split(m[3], -1) {
		if slices.Contains(hanStringers, n) || strings.HasPrefix(n, "发自") || strings.HasPrefix(n, "發自") || n == "整理" {
			break // a stringer or an editor credited after the reporters, or where they file from ("发自北京")
		}
		if !slices.Contains(hanCreditRoles, n) {
			names = append(names, n)
		}
	}
	return m[1] + "：" + strings.Join(names, "、")
}

// hanStringers are a stringer, an intern, a trainee reporter and an
// editor, credited after a story's reporters ("记者 张伟 通讯员 李明",
// "记者 张伟 编辑 李娜").
var hanStringers = []string{"通讯员", "通訊員", "实习生", "實習生", "见习记者", "見習記者", "实习记者", "實習記者", "编辑", "編輯", "责编", "責編"}

// splitAuthors turns a byline such as "By Jane Doe and John Roe" into names.
// A credit that is a role and nothing else names a desk ("Resy Staff",
// "SFist Contributor"), returned apart: beside a person, a role is the
// person's title.
func splitAuthors(s string) (names []string, desk string) {
	s = reSourceLead.ReplaceAllString(unbracketed(cleanInline(s)), "")
	if loc := reLegalForm.FindStringIndex(s); loc != nil && loc[0] > 0 && !strings.ContainsAny(s[:loc[0]], ",;|") && !reByPrefix.MatchString(s) {
		return []string{s}, "" // one firm ("Harmon & Reyes, PLLC"), not two people
	}
	if t := reByPrefix.ReplaceAllString(s, ""); reAmpersandTeam.MatchString(t) {
		return nil, t // one brand's team ("The Ember & Oak Team"), not two people
	}
	s = hangulDots(s)
	s = hanReporter(s)
	if mayCreditVisuals(s) {
		s = withoutVisualCredits(s)
	}
	s = dropListenParts(s)
	if loc := reLaterBy.FindStringIndex(s); loc != nil && !reByPrefix.MatchString(s) {
		s = s[loc[1]:]
	}
	if t := strings.TrimRight(s, "。 "); strings.Contains(t, "。") || len(t) < len(s) && strings.Contains(t, "，") {
		return nil, "" // sentences, or one of clauses: an author's bio, not a credit ("记者：张伟。" is one)
	}
	s = reByPrefix.ReplaceAllString(s, "")
	s = reLeadClock.ReplaceAllString(reLeadDate.ReplaceAllString(s, ""), "")
	s = reByPrefix.ReplaceAllString(s, "")
	s = reAfterWriter.ReplaceAllString(s, "")
	if strings.ContainsAny(s, "0123456789") { // every stamp reAuthorDate cuts holds a digit
		s = reAuthorDate.ReplaceAllString(s, "")
	}
	if reColophon.MatchString(s) {
		return nil, "" // the site's makers by their trades, not the story's writer
	}
	s = reWithAside.ReplaceAllStringFunc(s, withNames)
	s = reListAside.ReplaceAllString(s, "$1")
	items := reListSep.Split(s, -1)
	single := len(items) == 1 && !reAndSep.MatchString(s) // desk credits are one part
	titled := false                                       // a job title was dropped: one word after it is its department
	for i, item := range items {
		if i > 0 && len(names) > 0 && reJobTitleEnd.MatchString(item) {
			titled = true
			continue
		}
		if len(names) > 0 && isPublication(strings.Trim(item, " .:-–—|·•")) {
			continue // "Special to The Globe and Mail": one paper, "and" and all
		}
		for _, p := range joinedNames(reAndSep.Split(item, -1)) {
			if len(p) > 3 && strings.EqualFold(p[:3], "by ") {
				p = p[3:] // "By Jane Roe | By John Doe"
			}
			p = cutNameTail(strings.Trim(reAuthorLabel.ReplaceAllString(reRoleAfterName.ReplaceAllString(p, ""), ""), " .:-–—|·•。»«›‹"))
			if aside := reAside.FindString(p); aside != "" && !reAuthorRole.MatchString(aside) {
				if reVisualAside.MatchString(aside) {
					continue // "Felix Haas (Fotos)": the photographer
				}
				p = strings.TrimSuffix(p, aside)
			}
			if len(names) > 0 && (rePostNominal.MatchString(p) || isPublication(p) || reInstitution.MatchString(p) || isLowerPhrase(p) || strings.ContainsAny(p, "0123456789")) || titled && !strings.Contains(p, " ") {
				continue // a degree, a paper, an office, a role, a place ("envoyé spécial à Kiev") or a desk with a number ("g1 SP")
			}
			if i > 0 && i == len(items)-1 && len(names) > 0 && strings.Contains(names[len(names)-1], " ") && !strings.Contains(strings.TrimSpace(item), " ") {
				continue // one word after a full name is where it was filed from ("Jane Roe, Berlin")
			}
			if cut := strings.TrimRight(reAuthorTitle.ReplaceAllString(p, ""), " :-–—|·•"); len(strings.Fields(cut)) >= 2 {
				p = cut
			}
			if !hasLetters(p) || reAuthorJunk.MatchString(p) || reAuthorControl.MatchString(p) || strings.Count(p, "(") != strings.Count(p, ")") {
				continue // a bullet, a placeholder, a fragment of a bracketed note
			}
			if reAuthorRole.MatchString(p) || reAuthorGroup.MatchString(p) || reJobTitleEnd.MatchString(p) {
				if single && len(strings.Fields(p)) <= 4 {
					desk = p
				}
				continue
			}
			p = withoutAvatarInitials(p)
			w := len(strings.Fields(p))
			if w > 5 || len(p) > 60 {
				continue
			}
			if reAuthorTitle.ReplaceAllString(" "+p, "") == "" {
				titled = true // a job title alone is the title of the name before it
				continue
			}
			names = append(names, p)
		}
	}
	// First names alone joined by "&" or "and" are one credit ("Maria &
	// Katerina", a couple's blog): each alone names nobody.
	if len(names) == 2 && len(strings.Fields(names[0])) == 1 && len(strings.Fields(names[1])) == 1 && len(items) == 1 {
		return []string{names[0] + " & " + names[1]}, desk
	}
	return names, desk
}
