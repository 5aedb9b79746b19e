package article

import (
	"github.com/PuerkitoBio/goquery"
	"github.com/andybalholm/cascadia"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// How the DOM work before scoring uses goquery: Extract walks the tree once
// for pageElements, the page's elements in document order; every later
// step filters that list (Selection.FilterMatcher) instead of walking again.
// A cheap tag pass (anyTag: one table lookup per element) first narrows the
// list, and the CSS selectors below then run only on those candidates.
// Measured over the extraction bench, a compiled CSS selector costs about
// 17µs per page for a bare type selector such as "meta" and 63µs for a
// four-member group when run on every element, against 4µs for a tag
// comparison; a dozen such full passes cost more than 10% of the cleaner's
// throughput, which the two-stage form avoids.
//
// All matchers are compiled once, at package load (a typo panics at init,
// so every test catches it); they are immutable and safe for concurrent use.
var (
	// pageElements matches every element outside svg and template
	// subtrees, which hold icon titles and inert markup, never metadata or
	// text; the svg or template element itself is matched, so that
	// pruneJunk removes it.
	pageElements = nodeMatcher{match: isElement, skip: func(n *html.Node) bool {
		return n.DataAtom == atom.Svg || n.DataAtom == atom.Template && !isShadowRoot(n)
	}}
	// junkElements are the elements pruneJunk removes: junkTags, hidden
	// elements and permalinks.
	junkElements = nodeMatcher{match: func(n *html.Node) bool {
		return n.Type == html.ElementNode && (junkTags[n.DataAtom] && !isShadowRoot(n) || isHidden(n) || isPermalink(n))
	}}

	// Head metadata (metadata.go, jsonld.go), run on headTags candidates.
	headTags     = anyTag(atom.Html, atom.Title, atom.Meta, atom.Link, atom.Script)
	selHTML      = cascadia.MustCompile("html")
	selTitle     = cascadia.MustCompile("title")
	selMeta      = cascadia.MustCompile("meta[property], meta[name], meta[itemprop], meta[http-equiv]")
	selCanonical = cascadia.MustCompile("link[rel~=canonical i][href]")
	selScript    = cascadia.MustCompile("script")

	// Body signals (metadata.go), run on signalTags candidates.
	signalTags    = anyTag(atom.H1, atom.H2, atom.H3, atom.H4, atom.Time, atom.Article, atom.Img)
	selH1         = cascadia.MustCompile("h1")
	selLinkedHead = cascadia.MustCompile("h2:has(a), h3:has(a), h4:has(a)")
	selTime       = cascadia.MustCompile("time")
	selArticle    = cascadia.MustCompile("article")
	selImg        = cascadia.MustCompile("img")

	// Microdata on ordinary elements, run on every element.
	selItemprop    = cascadia.MustCompile("[itemprop]:not(meta)")
	selAuthorScope = cascadia.MustCompile("[itemprop=author i], [itemprop=creator i]")
	selPropName    = cascadia.MustCompile("[itemprop=name]")

	// The page body (article.go), searched from the document root.
	selBody = goquery.SingleMatcher(cascadia.MustCompile("body"))
)

// nodeMatcher adapts a Go predicate on parser nodes to goquery's Matcher
// interface, for the matches a CSS selector cannot state or states slowly.
type nodeMatcher struct {
	match func(*html.Node) bool // selects a node
	skip  func(*html.Node) bool // MatchAll does not look inside (nil: none)
}

// isElement reports element nodes.
func isElement(n *html.Node) bool { return n.Type == html.ElementNode }

// anyTag matches elements whose tag is one of tags.
func anyTag(tags ...atom.Atom) nodeMatcher {
	set := make(map[atom.Atom]bool, len(tags))
	for _, t := range tags {
		set[t] = true
	}
	return nodeMatcher{match: func(n *html.Node) bool {
		return n.Type == html.ElementNode && set[n.DataAtom]
	}}
}

// Match reports whether the matcher selects n.
func (m nodeMatcher) Match(n *html.Node) bool { return m.match(n) }

// MatchAll returns the selected nodes of n's subtree (n included) in
// document order, not looking inside skipped elements.
func (m nodeMatcher) MatchAll(n *html.Node) []*html.Node {
	return m.matchInto(n, nil)
}

// matchInto appends the selected nodes of n's subtree to out.
func (m nodeMatcher) matchInto(n *html.Node, out []*html.Node) []*html.Node {
	if m.match(n) {
		out = append(out, n)
	}
	if m.skip != nil && m.skip(n) {
		return out
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		out = m.matchInto(c, out)
	}
	return out
}

// Filter returns the nodes the matcher selects, in their order.
func (m nodeMatcher) Filter(nodes []*html.Node) []*html.Node {
	var out []*html.Node
	for _, n := range nodes {
		if m.match(n) {
			out = append(out, n)
		}
	}
	return out
}
