package article

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// cleaner decides, inside the chosen content, which subtrees to leave out.
type cleaner struct {
	st    *statTable
	roots []*html.Node
	total int                 // text runes of all roots
	paid  map[*html.Node]bool // the paid part of a paywalled article: content
}

// skip reports whether n's subtree is left out of the rendered text:
// chrome marked earlier, figures and captions, and link-heavy or image-only
// containers (the readability "clean conditionally" idea).
func (c *cleaner) skip(n *html.Node) bool {
	s := c.st.get(n)
	if s.drop {
		return true
	}
	switch n.DataAtom {
	case atom.Figure:
		return !wrapsTable(n, 3)
	case atom.Figcaption, atom.Picture:
		return true
	}
	for _, r := range c.roots {
		if r == n {
			return false
		}
	}
	switch n.DataAtom {
	case atom.Div, atom.Section, atom.Ul, atom.Ol, atom.Dl, atom.Table, atom.Form, atom.Fieldset,
		atom.Aside, atom.Header, atom.Center:
	default:
		return false
	}
	if s.text == 0 {
		return true
	}
	if s.text*2 > c.total {
		return false // holds most of the content: a wrapper, whatever its name
	}
	if pitchBox(n, c.st) {
		return true
	}
	w := c.st.hc.classWeight(n)
	if w < 0 && !c.paid[n] && !c.misnamedProse(n, s) {
		return !isQuoteEmbed(n, c.st)
	}
	if s.commas >= 10 {
		return false
	}
	ld := s.linkDensity()
	isList := n.DataAtom == atom.Ul || n.DataAtom == atom.Ol
	switch {
	case isList && ld > 0.5:
		// Items that are sentences with a linked name ("X fixed bug Y")
		// are content; short all-link items are navigation or teasers.
		return !(ld < 0.75 && s.text >= 60*countItems(n))
	case !isList && w < 25 && ld > 0.35 && s.text < 1500:
		return true
	case w >= 25 && ld > 0.5:
		return true
	case s.imgs > 2 && s.paras == 0 && s.text < 200:
		return true
	}
	return false
}

// wrapsTable reports a <table> within depth levels below n: a figure that
// is a table (WordPress wraps every table in one), which is content.
func wrapsTable(n *html.Node, depth int) bool {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.DataAtom == atom.Table || (depth > 1 && c.Type == html.ElementNode && wrapsTable(c, depth-1)) {
			return true
		}
	}
	return false
}

// Misnamed prose: a chrome-named container inside the content holding this
// much is kept.
const (
	misnamedParas    = 2    // paragraphs, at under 0.2 link density
	misnamedParaText = 150  // or one paragraph of this many runes,
	misnamedParaLink = 0.10 // at under this link density
)

// misnamedProse reports a container whose chrome-like name ("widget-wrap"
// in page builders, "block--embed" around each paragraph of a guide) hides
// plain paragraphs with few links. Comment sections keep their hard "never
// content" name.
func (c *cleaner) misnamedProse(n *html.Node, s *stat) bool {
	if c.st.hc.node(n)&hHardNeg != 0 || s.paras == 0 {
		return false
	}
	ld := s.linkDensity()
	return s.paras >= misnamedParas && ld < 0.2 || s.text >= misnamedParaText && ld < misnamedParaLink
}

// isQuoteEmbed reports a wrapper (often named "social-embed") that mostly
// holds a blockquote, e.g. an embedded post quoted by the story.
func isQuoteEmbed(n *html.Node, st *statTable) bool {
	total := st.get(n).text
	if total < 40 {
		return false
	}
	q := 0
	walkElements(n, func(c *html.Node) bool {
		if c.DataAtom == atom.Blockquote {
			q += st.get(c).text
			return false
		}
		return true
	})
	return q*10 >= total*7
}

// countItems counts the <li> children of a list (at least 1).
func countItems(n *html.Node) int {
	k := 0
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.DataAtom == atom.Li {
			k++
		}
	}
	return max(k, 1)
}

// pitchBox reports a box that pitches something (membership, a
// newsletter, the app): it opens with a title of its own ("Join the Coast
// Post") and a third of its text or more is in short blocks that are calls
// to action. Beside or inside the story it is an offer, however well its
// prose scores; a stretch of the story that ends in a newsletter line is
// not titled, and stays.
func pitchBox(n *html.Node, st *statTable) bool {
	if !headed(n, st) {
		return false
	}
	pitch := 0
	walkElements(n, func(c *html.Node) bool {
		if !isBlock(c) || isHeading(c.DataAtom) {
			return true
		}
		if cs := st.get(c); cs.text <= maxPromo {
			if promoText(cleanInline(rawText(c))) {
				pitch += cs.text
			}
			return false
		}
		return true // the pitch is a shorter block inside
	})
	return pitch > 0 && pitch*3 >= st.get(n).text
}

// headed reports a container whose text opens with a heading: a box with
// a title of its own rather than a stretch of the story.
func headed(n *html.Node, st *statTable) bool {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode || st.get(c).text == 0 {
			if c.Type == html.TextNode && strings.TrimSpace(c.Data) != "" {
				return false
			}
			continue
		}
		if isHeading(c.DataAtom) {
			return true
		}
		if isBlock(c) {
			return headed(c, st)
		}
		return false
	}
	return false
}
