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
	// wrappers are the chrome-like class lists that wrap the story on this
	// page (storyWrappers): not chrome here.
	wrappers map[string]bool
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
		return !wraps(n, atom.Table, 3) && !quoteFigure(n, c.st.hc)
	case atom.Figcaption:
		return !captionsQuote(n, c.st.hc)
	case atom.Picture:
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
	if w < 0 && !c.paid[n] && !c.misnamedProse(n, s) && !wrapsStory(n, s, c.wrappers) {
		return !isQuoteEmbed(n, c.st)
	}
	if s.commas >= 10 {
		return false
	}
	ld := s.linkDensity()
	isList := n.DataAtom == atom.Ul || n.DataAtom == atom.Ol
	if ld > 0.35 && s.text < 1500 {
		// Links in a list a sentence introduces are the story's points.
		ld = float64(s.link-c.introducedLinks(n, 4)) / float64(s.text)
	}
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

// introducedLinks is the linked text of the lists down to depth levels
// into n's subtree (n included) that a sentence introduces ("Many patches
// were sent for review:" before a list of the patches).
func (c *cleaner) introducedLinks(n *html.Node, depth int) int {
	if n.DataAtom == atom.Ul || n.DataAtom == atom.Ol {
		if introduced(n, c.st) {
			return c.st.get(n).link
		}
		return 0
	}
	links := 0
	for ch := n.FirstChild; ch != nil && depth > 0; ch = ch.NextSibling {
		if ch.Type == html.ElementNode {
			links += c.introducedLinks(ch, depth-1)
		}
	}
	return links
}

// introduced reports a list led into by the sentence before it, ending in
// a colon; a wrapper holding only the list (<div class="ulist">) is looked
// through.
func introduced(list *html.Node, st *statTable) bool {
	for n, up := list, 0; n != nil && up < 3; n, up = n.Parent, up+1 {
		prev := n.PrevSibling
		for prev != nil && prev.Type != html.ElementNode {
			if prev.Type == html.TextNode && strings.TrimSpace(prev.Data) != "" {
				return false
			}
			prev = prev.PrevSibling
		}
		if prev != nil {
			if st.get(prev).text > 600 {
				return false
			}
			t := strings.TrimSpace(rawText(prev))
			w := len(strings.Fields(t))
			return strings.HasSuffix(t, ":") && w >= 5 && w <= 60 && !isHeading(prev.DataAtom) && !isEndHeading(t)
		}
	}
	return false
}

// wraps reports a tag element within depth levels below n. A figure that
// is a table (WordPress wraps every table in one) or a quote (a speaker's
// words and, in its caption, their name) is content, not an illustration.
func wraps(n *html.Node, tag atom.Atom, depth int) bool {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.DataAtom == tag || (depth > 1 && c.Type == html.ElementNode && wraps(c, tag, depth-1)) {
			return true
		}
	}
	return false
}

// quoteFigure reports a figure holding a quote. An embedded post (a
// "wp-block-embed" around a tweet's blockquote) is a quote too, but named
// as chrome it stays out: the reader sees a card, not the story's words.
func quoteFigure(fig *html.Node, hc hintCache) bool {
	return wraps(fig, atom.Blockquote, 3) && hc.node(fig)&hNeg == 0
}

// captionsQuote reports a caption that names a quote's speaker.
func captionsQuote(caption *html.Node, hc hintCache) bool {
	for p, up := caption.Parent, 0; p != nil && up < 3; p, up = p.Parent, up+1 {
		if p.DataAtom == atom.Figure {
			return quoteFigure(p, hc)
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
