package article

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// minNoscriptPage is the raw size from which a <noscript> may hold the
// page itself rather than an image or a "turn on JavaScript" line.
const minNoscriptPage = 2000

// openNoscript puts the page a <noscript> holds in the tree, in its place,
// when the rest of the body shows less text than it: forum engines
// (Discourse, Flarum) render the posts for readers without scripts only
// there, and an empty shell for the app. A parser that runs no scripts
// should read what a browser without scripts shows, but one that keeps
// every <noscript> would read each lazy image's fallback and "please
// enable JavaScript" as well, so only the largest is weighed. elems is
// every element of the page in document order; openNoscript reports
// whether it changed the tree.
func openNoscript(elems []*html.Node, opt Options, bud *budget) bool {
	var best *html.Node
	for _, n := range elems {
		if n.DataAtom != atom.Noscript || n.Parent == nil || n.FirstChild == nil || n.FirstChild.Type != html.TextNode {
			continue
		}
		if raw := n.FirstChild.Data; len(raw) >= minNoscriptPage && (best == nil || len(raw) > len(best.FirstChild.Data)) {
			best = n
		}
	}
	if best == nil || !strings.Contains(best.FirstChild.Data, "<") {
		return false
	}
	context := best.Parent
	if context.Type != html.ElementNode {
		return false
	}
	nodes, err := html.ParseFragment(&budgetReader{s: best.FirstChild.Data, bud: bud}, context)
	if err != nil {
		return false // the budget ran out or the markup is beyond the parser: read the page as it is
	}
	holder := &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div}
	for _, c := range nodes {
		holder.AppendChild(c)
	}
	depth := 0
	for p := best; p != nil; p = p.Parent {
		depth++
	}
	if maxDepth(holder, opt.MaxDepth) > opt.MaxDepth-depth || visibleRunes(holder, nil) <= visibleRunes(bodyOf(best), best) {
		return false
	}
	for c := holder.FirstChild; c != nil; c = holder.FirstChild {
		holder.RemoveChild(c)
		best.Parent.InsertBefore(c, best)
	}
	best.Parent.RemoveChild(best)
	return true
}

// bodyOf is the <body> above n, or the tree's root.
func bodyOf(n *html.Node) *html.Node {
	for p := n; p != nil; p = p.Parent {
		if p.DataAtom == atom.Body || p.Parent == nil {
			return p
		}
	}
	return n
}

// visibleRunes counts the non-space runes of root's text that a reader
// sees: not in scripts, styles, templates, <noscript> or skip.
func visibleRunes(root, skip *html.Node) int {
	count := 0
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch {
			case c == skip:
			case c.Type == html.TextNode:
				runes, _ := measureText(c.Data)
				count += runes
			case c.Type == html.ElementNode && !junkTags[c.DataAtom]:
				walk(c)
			}
		}
	}
	walk(root)
	return count
}
