package article

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// hint is a bit set of what an element's class/id names suggest.
type hint uint16

const (
	hNeg       hint = 1 << iota // boilerplate name (substring)
	hPos                        // content name (substring)
	hStrongPos                  // names itself the article body
	hNegTok                     // short boilerplate word as a whole token
	hPosTok                     // content word as a whole token
	hHardNeg                    // comments: never content, whatever its size
	hByline                     // author/byline element
	hDated                      // names a date, a time stamp or an entry's meta line
	hConsent                    // a consent manager's banner: never content, whatever its size
	hStrongNeg                  // names a part no story holds (an author's bio), whatever content word is beside it
)

// Class/id vocabulary, matched on the lower-cased value with '-' and '_'
// removed so "most-popular", "most_popular" and "mostPopular" agree.
// Substrings catch compounds ("shareBar"); short words that would hit
// unrelated names ("ad" in "header") are matched as whole tokens instead.
var (
	negSubstrings = append([]string{
		"comment", "disqus", "share", "sharing", "social", "related", "recommend", "promo",
		"newsletter", "subscri", "signup", "sidebar", "breadcrumb", "masthead",
		"footer", "navbar", "navigation", "menu", "cookie", "consent", "gdpr", "popup", "modal",
		"banner", "sponsor", "advert", "outbrain", "taboola", "zergnet", "pagination", "pager",
		"toolbar", "skipto", "skiplink", "jumpto", "jumplink", "jumpmenu", "login", "paywall", "mostpopular", "mostread",
		"mostviewed", "recentpost", "latestpost", "widgetposts", "trending", "morestories", "readmore", "alsoread", "caption", "credit",
		"copyright", "byline", "authorbio", "authorinfo", "authorbox", "biobox", "contributor",
		"tagcloud", "keywords", "rss", "print", "reply", "replies", "community", "shoutbox",
		"sronly", "visuallyhidden", "screenreader", "offscreen", "teaser", "overlay", "subnav",
		"topbar", "dateline", "timestamp", "published", "updated", "metadata", "articlemeta",
		"postmeta", "entrymeta", "infobox", "inlinelink", "inlinestory", "inlinerelated",
		"embed", "video", "gallery", "slideshow", "carousel", "ticker", "follow", "newsfeed",
		"feedback", "survey", "poll", "rating", "donate", "donation", "affiliate", "adsense",
		"dfp", "googlead", "adslot", "adunit", "adcontainer", "adwrapper", "adwrap", "adbox",
		"adblock", "skyscraper", "leaderboard", "remark", "supplemental",
		"emailsignup", "apppromo", "tooltip", "lightbox", "header", "tags", "legend",
		// The same in German, French, Spanish, Italian, Portuguese and
		// Dutch, where a site names its own parts so (their comment
		// sections: foreignCommentSections).
		"teilen", "partage", "compartir", "compartilh", "condividi",
		"verwandt", "relacionad", "correlato", "articolicorrelati", "gerelateerd", "alireaussi", "lesensieauch", "mehrzumthema",
		"werbung", "publicite", "publicidad", "pubblicita", "reclame",
	}, foreignCommentSections...)
	posSubstrings = []string{
		"article", "body", "content", "entry", "main", "post", "story", "text", "blog", "prose",
		"hentry", "single", "paragraph", "column",
		"artikel", "articulo", "artigo", "articolo", "inhalt", "contenu", "contenido", "conteudo", "beitrag",
	}
	strongPosSubstrings = []string{
		"articlebody", "articlecontent", "articletext", "storybody", "storycontent", "storytext",
		"entrycontent", "postcontent", "postbody", "posttext", "bodytext", "maincontent",
		"textcontent", "contentbody", "richtext", "fieldbody", "nodebody", "blogpost",
		"singlecontent", "newstext", "detailcontent", "articledetail", "storydetail",
	}
	hardNegSubstrings = append([]string{"comment", "disqus", "respond"}, foreignCommentSections...)
	// strongNegSubstrings are boilerplate names that a content word beside
	// them does not excuse: Kadence's "entry-author-description
	// author-bio" is the bio under the story, not the entry.
	strongNegSubstrings = []string{"authorbio", "authorbox", "biobox", "authorinfo"}
	// foreignCommentSections name comment sections in German, Spanish,
	// Portuguese and Dutch (French "commentaire" and Italian "commento"
	// hold "comment" already): the German plural and the singular's
	// compounds only, since "kommentar" alone marks an opinion piece.
	foreignCommentSections = []string{"kommentare", "leserkommentar", "kommentarliste", "kommentarbereich", "kommentarform", "comentari", "reactie"}
	// consentSubstrings name the banners of consent managers (OneTrust,
	// Cookiebot, Didomi, Usercentrics, Quantcast's CMP), whose policy text
	// can outweigh a listing's own.
	consentSubstrings = []string{"consent", "onetrust", "cookiebot", "didomi", "usercentrics", "cookiebanner", "cookienotice", "cookielaw", "gdpr", "qccmp", "cmpbox"}
	bylineSubstrings  = []string{"byline", "author", "writer", "reporter", "contributor"}
	datedSubstrings   = []string{"date", "time", "posted", "publish", "updated", "byline", "meta", "fecha"}
	negTokens         = map[string]bool{
		"ad": true, "ads": true, "adv": true, "advt": true, "advertisement": true, "nav": true,
		"foot": true, "meta": true, "share": true, "tools": true, "social": true, "aside": true,
		"side": true, "rail": true, "related": true, "promo": true, "cta": true, "sticky": true,
		"hide": true, "hidden": true, "noprint": true, "date": true, "time": true, "author": true,
		"authors": true, "source": true, "tag": true, "topics": true, "categories": true,
		"category": true, "bio": true, "bios": true, "biography": true, "fecha": true,
	}
	// bylineTokens are "author" in German, French, Spanish, Italian and
	// Portuguese, as whole words: "autor" begins "autorotate" and
	// "autoresize".
	bylineTokens = map[string]bool{
		"autor": true, "autoren": true, "autorin": true, "autores": true, "autore": true, "autori": true,
		"auteur": true, "auteurs": true,
	}
	posTokens = map[string]bool{
		"text": true, "body": true, "content": true, "article": true, "story": true, "entry": true, "post": true,
	}
)

// tokenHints are the hints of the whole-word vocabularies, so a class
// name's word is looked up once.
var tokenHints = func() map[string]hint {
	m := map[string]hint{}
	for _, l := range []struct {
		words map[string]bool
		flag  hint
	}{{negTokens, hNegTok}, {posTokens, hPosTok}, {bylineTokens, hByline | hNegTok}} {
		for w := range l.words {
			m[w] |= l.flag
		}
	}
	return m
}()

// flaggedSubstring is one vocabulary entry and the hint it sets.
type flaggedSubstring struct {
	s    string
	flag hint
	// longer are words that begin with s and mean something else.
	longer []string
}

// otherWords are the words that begin with a vocabulary entry and are
// not it: an "authorization" box holds sign-in links, not a byline. They
// are whole words, as "author-item" is "authoritem" once squashed.
var otherWords = map[string][]string{"author": {"authoriz", "authorisation", "authorise", "authority", "authorities"}}

// pairAt and bySubstringStart group all substring vocabularies by their
// first two bytes, so a name is scanned once instead of once per pattern:
// pairAt gives a byte pair's group in bySubstringStart, 0 where no entry
// starts (most places in a class name), at one look-up.
var pairAt, bySubstringStart = func() (*[1 << 16]uint8, [][]flaggedSubstring) {
	var at [1 << 16]uint8
	groups := [][]flaggedSubstring{nil} // group 0: no entry
	for _, l := range []struct {
		words []string
		flag  hint
	}{{negSubstrings, hNeg}, {posSubstrings, hPos}, {strongPosSubstrings, hStrongPos}, {hardNegSubstrings, hHardNeg}, {consentSubstrings, hConsent}, {bylineSubstrings, hByline}, {datedSubstrings, hDated}, {strongNegSubstrings, hStrongNeg}} {
		for _, w := range l.words {
			if len(w) < 2 {
				panic("hint vocabulary: " + w + " is shorter than computeHints' two-byte test")
			}
			pair := int(w[0])<<8 | int(w[1])
			if at[pair] == 0 {
				if len(groups) > 255 {
					panic("hint vocabulary: more first byte pairs than pairAt holds")
				}
				at[pair] = uint8(len(groups))
				groups = append(groups, nil)
			}
			groups[at[pair]] = append(groups[at[pair]], flaggedSubstring{w, l.flag, otherWords[w]})
		}
	}
	return &at, groups
}()

// computeHints classifies one class/id string: the substring vocabularies
// are matched with "-" and "_" squashed out ("side-bar" is a sidebar), the
// token sets on the lower-case words. It works in buffers on the stack:
// it runs once for every distinct class name of every page.
func computeHints(s string) hint {
	var lowBuf, squashBuf [256]byte
	low, squashed := lowBuf[:0], squashBuf[:0]
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		low = append(low, c)
		if c != '-' && c != '_' {
			squashed = append(squashed, c)
		}
	}
	var h hint
	for i := 0; i+1 < len(squashed); i++ {
		g := pairAt[int(squashed[i])<<8|int(squashed[i+1])]
		if g == 0 {
			continue
		}
		for _, p := range bySubstringStart[g] {
			if h&p.flag == 0 && len(squashed)-i >= len(p.s) && string(squashed[i:i+len(p.s)]) == p.s && !beginsWithAny(squashed[i:], p.longer) {
				h |= p.flag
			}
		}
	}
	for i := 0; i < len(low); {
		for i < len(low) && !isWordByte(low[i]) {
			i++
		}
		j := i
		for j < len(low) && isWordByte(low[j]) {
			j++
		}
		if j > i {
			h |= tokenHints[string(low[i:j])]
		}
		i = j
	}
	return h
}

// beginsWithAny reports whether b begins with one of words.
func beginsWithAny(b []byte, words []string) bool {
	for _, w := range words {
		if len(b) >= len(w) && string(b[:len(w)]) == w {
			return true
		}
	}
	return false
}

// isWordByte reports the bytes of a class name's words: ASCII letters
// (lower-cased already) and digits.
func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
}

// hintCache memoises computeHints per distinct string: pages repeat the
// same class names many times.
type hintCache map[string]hint

// of returns the (cached) hints of one class or id value.
func (c hintCache) of(s string) hint {
	if s == "" {
		return 0
	}
	if h, ok := c[s]; ok {
		return h
	}
	h := computeHints(s)
	c[s] = h
	return h
}

// isSlug reports values like "sharing-with-a-single-developer": ids made
// from heading text, which describe the prose, not the element's role.
func isSlug(s string) bool {
	if len(s) < 16 || strings.ContainsAny(s, " _") {
		return false
	}
	return strings.Count(s, "-") >= 3 && strings.IndexFunc(s, func(r rune) bool { return r >= 'A' && r <= 'Z' }) < 0
}

// attrHint returns the hints of a class or id attribute; ids that are
// slugs of heading text carry none.
func (c hintCache) attrHint(a html.Attribute) hint {
	if a.Namespace != "" || (a.Key != "class" && a.Key != "id") || (a.Key == "id" && isSlug(a.Val)) {
		return 0
	}
	return c.of(a.Val)
}

// node returns the combined hints of n's class and id (looked up
// separately: unique ids would defeat the cache if joined with classes).
func (c hintCache) node(n *html.Node) hint {
	var h hint
	for _, a := range n.Attr {
		h |= c.attrHint(a)
	}
	return h
}

// testHint returns the hints of a test attribute (testAttrs), which names
// a component as a class would; other attributes carry none.
func (c hintCache) testHint(a html.Attribute) hint {
	if a.Namespace != "" || !testAttrs[a.Key] {
		return 0
	}
	return c.of(a.Val)
}

// testNames returns the combined hints of n's test attributes.
func (c hintCache) testNames(n *html.Node) hint {
	var h hint
	for _, a := range n.Attr {
		h |= c.testHint(a)
	}
	return h
}

// negativeRoles are ARIA landmarks that never hold the article body.
var negativeRoles = map[string]bool{
	"navigation": true, "banner": true, "contentinfo": true, "complementary": true,
	"menu": true, "menubar": true, "search": true, "dialog": true, "alertdialog": true,
	"toolbar": true, "tablist": true, "alert": true, "form": true, "button": true,
	"tooltip": true,
}

// overlay reports what is shown over the page rather than in it: a dialog
// (isModal) or a consent manager's banner.
func (c hintCache) overlay(n *html.Node) bool {
	return isModal(n) || c.node(n)&hConsent != 0
}

// isModal reports a dialog built of divs (role="dialog", aria-modal): a
// policy, a size chart or a sign-up box shown over the page on a click.
func isModal(n *html.Node) bool {
	switch strings.ToLower(attr(n, "role")) {
	case "dialog", "alertdialog":
		return true
	}
	return attr(n, "aria-modal") == "true"
}

// classID returns the class and id as one string.
func classID(n *html.Node) string {
	c, id := "", ""
	for _, a := range n.Attr {
		switch a.Key {
		case "class":
			c = a.Val
		case "id":
			id = a.Val
		}
	}
	if id == "" {
		return c
	}
	if c == "" {
		return id
	}
	return c + " " + id
}

// classWeight scores class/id hints like readability: negative for
// boilerplate names, positive for content names.
func (c hintCache) classWeight(n *html.Node) float64 {
	w := 0.0
	for _, a := range n.Attr {
		if a.Key != "class" && a.Key != "id" {
			if a.Key == "itemprop" && a.Val == "articleBody" {
				w += 50
			}
			continue
		}
		h := c.attrHint(a)
		if h&hStrongPos != 0 {
			w += 25
		}
		neg := h&(hNeg|hNegTok) != 0
		pos := h&hPos != 0
		switch {
		case h&hStrongNeg != 0 && h&hStrongPos == 0:
			w -= 25
		case neg && !pos:
			w -= 25
		case pos && !neg:
			w += 25
		}
	}
	return w
}

// unlikely reports elements whose tag, role or class/id mark them as page
// chrome rather than article content.
func (c hintCache) unlikely(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Nav, atom.Aside, atom.Footer, atom.Menu, atom.Dialog:
		return true
	case atom.Body, atom.Html, atom.Article, atom.Main, atom.A, atom.Table, atom.Tbody, atom.Tr, atom.Td, atom.Th:
		return false
	}
	if c.overlay(n) || negativeRoles[strings.ToLower(attr(n, "role"))] {
		return true
	}
	if attr(n, "itemprop") == "articleBody" || isHeading(n.DataAtom) && strings.Contains(strings.ToLower(attr(n, "class")), "subhead") {
		return false // the body, or a story's subheading named "subheader", which "header" would call chrome
	}
	// Class and id are judged separately: generated ids such as
	// "like-post-wrapper-123" must not excuse a "sharedaddy" class.
	if c.node(n)&hStrongPos != 0 {
		return false
	}
	for _, a := range n.Attr {
		if chromeHint(c.attrHint(a)) || chromeHint(c.testHint(a)) {
			return true
		}
	}
	return false
}

// testAttrs name a component for tests and analytics, as a class would
// (the BBC's data-e2e="byline", data-testid="related-rich-block").
var testAttrs = map[string]bool{"data-testid": true, "data-e2e": true, "data-component": true}

// chromeHint reports names that say "boilerplate" without also saying "content".
func chromeHint(h hint) bool {
	switch {
	case h == 0:
		return false
	case h&hNegTok != 0 && h&hPosTok == 0, h&hStrongNeg != 0 && h&hStrongPos == 0:
		return true
	}
	return h&hNeg != 0 && h&hPos == 0
}
