package article

import (
	"math"
	"sort"
	"strings"
	"unicode"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// altShare is the score share (of the best) that makes another candidate
// a second part of the same article body.
const altShare = 0.5

// kinShare is the lower share accepted from a candidate named like the
// best one ("story-body story-body-1" next to "story-body story-body-2").
const kinShare = 0.3

// minFlow is the shortest inline text that counts as a paragraph.
const minFlow = 25

// minPart is the text (runes) a candidate needs to count as another part
// of a body split in several containers.
const minPart = 200

// tagBase is the starting score of a candidate container by tag.
func tagBase(n *html.Node) float64 {
	switch n.DataAtom {
	case atom.Div, atom.Article, atom.Main, atom.Section:
		return 5
	case atom.Pre, atom.Td, atom.Blockquote:
		return 3
	case atom.Address, atom.Ol, atom.Ul, atom.Dl, atom.Dd, atom.Dt, atom.Li, atom.Form:
		return -3
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Th:
		return -5
	}
	return 0
}

// paraTags are paragraph units whose score goes to their containers only.
var paraTags = map[atom.Atom]bool{
	atom.P: true, atom.Pre: true, atom.Td: true, atom.Li: true, atom.Blockquote: true,
	atom.Dd: true, atom.Dt: true,
}

// isHeading reports h1-h6.
func isHeading(a atom.Atom) bool {
	switch a {
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		return true
	}
	return false
}

// scorer distributes paragraph scores to ancestor containers (the
// readability idea) and picks the best container plus related siblings.
type scorer struct {
	st     *statTable
	body   *html.Node
	cands  []*html.Node
	bud    *budget
	paras  []*html.Node // every scored paragraph, document order
	titles []string     // the page's titles, which a section heading is not
	prose  int          // their unlinked runes
}

// scoreParagraphs walks the tree below body and credits each paragraph's
// score to up to five ancestors with decaying weight.
func (s *scorer) scoreParagraphs() {
	walkElements(s.body, func(n *html.Node) bool {
		st := s.st.get(n)
		if st.drop || s.bud.tick() {
			return false
		}
		if !isBlock(n) || isHeading(n.DataAtom) || st.flow < minFlow {
			return true
		}
		ps := 1 + float64(st.commas) + math.Min(float64(st.flow)/100, 3)
		ps *= 1 - float64(st.flowLink)/float64(st.flow)
		if ps <= 0 {
			return true
		}
		s.paras = append(s.paras, n)
		s.prose += st.flow - st.flowLink
		a := n
		if paraTags[n.DataAtom] || (n.DataAtom == atom.Div && st.flow*10 >= st.text*9) {
			a = n.Parent // a div holding only inline text is a paragraph
		}
		for level := 0; level < 5 && a != nil && a.Type == html.ElementNode; level++ {
			as := s.st.get(a)
			if !as.cand {
				as.cand = true
				as.score = tagBase(a) + s.st.hc.classWeight(a)
				s.cands = append(s.cands, a)
			}
			div := 1.0
			switch {
			case level == 1:
				div = 2
			case level > 1:
				div = float64(level) * 3
			}
			as.score += ps / div
			a = a.Parent
		}
		return true
	})
}

// final is the link-density adjusted score used to compare candidates.
func (s *scorer) final(n *html.Node) float64 {
	st := s.st.get(n)
	return st.score * (1 - st.linkDensity())
}

// pick returns the content roots: the best candidate (after moving up
// where the content is spread over a common ancestor) and qualifying siblings.
func (s *scorer) pick() []*html.Node {
	if len(s.cands) == 0 {
		return nil
	}
	sort.SliceStable(s.cands, func(i, j int) bool { return s.final(s.cands[i]) > s.final(s.cands[j]) })
	top := s.cands[0]
	topScore := s.final(top)
	if topScore <= 0 {
		return nil
	}
	top = s.commonAncestor(top, topScore)
	top = s.climb(top)
	// A lone child carries nothing its parent would not.
	for top.Parent != nil && top.Parent != s.body && top.Parent.Type == html.ElementNode && (onlyElementChild(top.Parent) == top || headingAndBody(top.Parent, top)) {
		top = top.Parent
	}
	return s.siblings(s.styledPart(top))
}

// Prose fallback: the chosen roots are judged against the page's prose.
const (
	minFallbackProse = 1000 // runes of prose below which a page is not second-guessed
	maxFallbackRoots = 500  // runes of the roots' own text above which they stand
	fallbackShare    = 5    // the roots hold under 1/fallbackShare of the prose
	proseHold        = 0.6  // the replacement holds this share of the prose
	maxFallbackLinks = 0.35 // and at most this link density
)

// proseRoot second-guesses roots that hold little of the page's prose (a
// promo box or an info panel chosen over an article told in many short
// sections): it returns the deepest element holding most of the prose, or
// nil when the roots stand.
func (s *scorer) proseRoot(roots []*html.Node) *html.Node {
	chosen := 0
	for _, r := range roots {
		st := s.st.get(r)
		chosen += st.text - st.link
	}
	if s.prose < minFallbackProse {
		return nil
	}
	if chosen >= maxFallbackRoots || chosen*fallbackShare >= s.prose {
		return nil
	}
	credit := map[*html.Node]int{}
	for _, p := range s.paras {
		st := s.st.get(p)
		for a := p.Parent; a != nil && a != s.body; a = a.Parent {
			credit[a] += st.flow - st.flowLink
		}
	}
	// The elements over proseHold (> 1/2) form one chain up to body: the
	// deepest is the one with the least credit.
	var best *html.Node
	for a, c := range credit {
		if float64(c) >= proseHold*float64(s.prose) && (best == nil || c < credit[best] || (c == credit[best] && contains(best, a))) {
			best = a
		}
	}
	if best == nil || s.st.get(best).linkDensity() > maxFallbackLinks {
		return nil
	}
	return best
}

// commonAncestor moves up when several strong candidates share an ancestor,
// i.e. the article body is split into separate containers.
func (s *scorer) commonAncestor(top *html.Node, topScore float64) *html.Node {
	var alts []*html.Node
	// A short top candidate may be one entry of a series (a live blog's
	// updates): its like-named peers count however short they are.
	short := s.st.get(top).text < minPart
next:
	for _, c := range s.cands[1:min(len(s.cands), 10)] {
		share := altShare
		kin := s.sameKind(c, top)
		if kin {
			share = kinShare
		}
		if s.final(c) < share*topScore || (s.st.get(c).text < minPart && !(short && kin)) || contains(c, top) || contains(top, c) {
			continue
		}
		for _, a := range alts {
			if contains(a, c) || contains(c, a) {
				continue next // same branch: count each part once
			}
		}
		alts = append(alts, c)
	}
	// Two strong parts elsewhere, or one styled exactly like the top
	// candidate, mean the body is split (e.g. around inline media).
	need := 2
	for _, a := range alts {
		if s.sameKind(a, top) {
			need = 1
		}
	}
	if len(alts) < need {
		return top
	}
	// The lowest ancestor holding the most parts: a body told in sections,
	// each with its own parts, is the sections' parent, not the first one.
	best, most := top, need-1
	for p := top.Parent; p != nil && p != s.body && p.Type == html.ElementNode; p = p.Parent {
		n := 0
		for _, a := range alts {
			if contains(p, a) {
				n++
			}
		}
		if n > most {
			best, most = p, n
		}
	}
	return best
}

// climb moves to a parent whose score exceeds the candidate's: the parent
// then holds more of the content.
func (s *scorer) climb(top *html.Node) *html.Node {
	last := s.st.get(top).score
	threshold := last / 3
	for p := top.Parent; p != nil && p != s.body && p.Type == html.ElementNode; p = p.Parent {
		ps := s.st.get(p)
		if !ps.cand {
			continue
		}
		if ps.score < threshold {
			break
		}
		if ps.score > last {
			return p
		}
		last = ps.score
	}
	return top
}

// siblings returns top plus those siblings that look like continuation of
// the article: well scored containers and link-poor paragraphs.
func (s *scorer) siblings(top *html.Node) []*html.Node {
	parent := top.Parent
	if parent == nil || top == s.body {
		return []*html.Node{top}
	}
	topScore := s.final(top)
	threshold := math.Max(10, topScore*0.2)
	topStyle := style(attr(top, "class"))
	var out []*html.Node
	for c := parent.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode {
			continue
		}
		if c == top {
			out = append(out, c)
			continue
		}
		cs := s.st.get(c)
		if cs.drop || cs.text == 0 {
			continue
		}
		bonus := 0.0
		if topStyle != "" && style(attr(c, "class")) == topStyle {
			bonus = topScore * 0.2
			if s.sectionLike(c) {
				out = append(out, c)
				continue
			}
		}
		if cs.cand && s.final(c)+bonus >= threshold {
			if !pitchBox(c, s.st) {
				out = append(out, c)
			}
			continue
		}
		if isHeading(c.DataAtom) || c.DataAtom == atom.Ul || c.DataAtom == atom.Ol {
			// Left out, as readability does: a heading or list beside the
			// parts more often belongs to the boxes after the story.
			// Keeping those between two accepted parts changed no
			// ScrapingHub page and cost the readability set 0.001.
			continue
		}
		ld := cs.linkDensity()
		if cs.flow > 80 && ld < 0.25 {
			out = append(out, c)
		} else if cs.flow > 0 && cs.flow <= 80 && ld == 0 && endsSentence(rawText(c)) {
			out = append(out, c)
		}
	}
	return out
}

// style is a class list without the tokens that only number an instance:
// page builders name each element by its kind and its id
// ("elementor-element elementor-element-98fbbca", "post post-15342"), so
// the parts of one story differ in that token alone.
func style(class string) string {
	if strings.IndexFunc(class, unicode.IsDigit) < 0 {
		return class
	}
	toks := strings.Fields(class)
	kept := toks[:0:0]
	for _, t := range toks {
		if !numbersInstance(t, toks) {
			kept = append(kept, t)
		}
	}
	return strings.Join(kept, " ")
}

// numbersInstance reports a token that is another token of its list plus
// "-" and an id holding a digit.
func numbersInstance(t string, toks []string) bool {
	for _, b := range toks {
		if len(t) > len(b)+1 && strings.HasPrefix(t, b) && t[len(b)] == '-' && strings.IndexFunc(t[len(b)+1:], unicode.IsDigit) >= 0 {
			return true
		}
	}
	return false
}

// styledPart returns the ancestor of top, up to three levels up and
// holding at most half as much text again (a section's other widgets: a
// short FAQ, a call to action), that has a sibling styled like it and
// holding prose: a page builder's section ("elementor-element e-con
// e-parent") of a story told in several, whose other sections then join
// as its siblings.
func (s *scorer) styledPart(top *html.Node) *html.Node {
	text := s.st.get(top).text
	for a, up := top, 0; a != nil && a != s.body && up <= 3; a, up = a.Parent, up+1 {
		if s.st.get(a).text*2 > text*3 {
			break
		}
		class := style(attr(a, "class"))
		if class == "" || a.Parent == nil {
			continue
		}
		for c := a.Parent.FirstChild; c != nil; c = c.NextSibling {
			if c != a && c.Type == html.ElementNode && style(attr(c, "class")) == class && s.storyPart(c) {
				return a
			}
		}
	}
	return top
}

// storyPart reports a candidate that reads as a stretch of a story:
// paragraphs, few links (not a header or a card styled like the story's
// section).
func (s *scorer) storyPart(n *html.Node) bool {
	st := s.st.get(n)
	return st.cand && st.paras >= 2 && st.linkDensity() < 0.35
}

// onlyElementChild returns the single element child of n, or nil.
func onlyElementChild(n *html.Node) *html.Node {
	var only *html.Node
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch c.Type {
		case html.ElementNode:
			if only != nil {
				return nil
			}
			only = c
		case html.TextNode:
			for _, r := range c.Data {
				if r != ' ' && r != '\n' && r != '\t' && r != '\r' {
					return nil
				}
			}
		}
	}
	return only
}

// contains reports whether d is a (strict or equal) descendant of a.
func contains(a, d *html.Node) bool {
	for ; d != nil; d = d.Parent {
		if d == a {
			return true
		}
	}
	return false
}

// endsSentence reports text ending like a sentence.
func endsSentence(s string) bool {
	for i := len(s) - 1; i >= 0; i-- {
		switch s[i] {
		case ' ', '\n', '\t', '\r':
			continue
		case '.', '!', '?', '"', ')':
			return true
		}
		if i >= 2 && (s[i-2:i+1] == "。" || s[i-2:i+1] == "”") {
			return true
		}
		return false
	}
	return false
}

// sameKind reports containers sharing a content-like class name, i.e. parts
// of one article body styled alike.
func (s *scorer) sameKind(a, b *html.Node) bool {
	ca, cb := attr(a, "class"), attr(b, "class")
	if ca == "" || cb == "" {
		return false
	}
	for _, t := range strings.Fields(ca) {
		if s.st.hc.of(t)&(hPos|hStrongPos) == 0 || s.st.hc.of(t)&(hNeg|hNegTok) != 0 {
			continue
		}
		for _, u := range strings.Fields(cb) {
			if t == u {
				return true
			}
		}
	}
	return false
}

// sectionLike reports a sibling styled exactly like the chosen part that
// opens with a heading of its own, not the page's title: the next section
// of a body told in sections (AsciiDoc's div.sect1), however many links
// its lists hold.
func (s *scorer) sectionLike(n *html.Node) bool {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode {
			return isHeading(c.DataAtom) && !isTitle(rawText(c), s.titles)
		}
	}
	return false
}

// headingAndBody reports a parent holding only a section heading and then
// n, with a sibling styled like it: one section of a body told in
// sections, each with its heading and its body (AsciiDoc's div.sect1 > h2
// + div.sectionbody). The sections then join as siblings of the top.
func headingAndBody(parent, n *html.Node) bool {
	var kids []*html.Node
	for c := parent.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode {
			kids = append(kids, c)
		}
	}
	if len(kids) != 2 || !isHeading(kids[0].DataAtom) || kids[1] != n {
		return false
	}
	class := attr(parent, "class")
	if class == "" {
		return false
	}
	for _, step := range []func(*html.Node) *html.Node{
		func(c *html.Node) *html.Node { return c.PrevSibling },
		func(c *html.Node) *html.Node { return c.NextSibling },
	} {
		c := step(parent)
		for c != nil && c.Type != html.ElementNode {
			c = step(c)
		}
		if c != nil && attr(c, "class") == class {
			return true
		}
	}
	return false
}
