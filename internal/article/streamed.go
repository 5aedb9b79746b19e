package article

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// placeStreamed puts the segments a streaming React server sends late in
// the body (<div hidden id="S:n">) where the page shows them: at the
// placeholder <template id="B:n"> (or "P:n"), in place of the fallback that
// follows it up to the boundary's closing <!--/$--> comment. A browser does
// this with the page's inline $RC/$RS scripts; a reader that does not finds
// the story only in a hidden div, which pruning removes. elems is every
// element of the page in document order (templates are not among them);
// placeStreamed reports whether it moved anything, and so changed them.
func placeStreamed(doc *html.Node, elems []*html.Node) (moved bool) {
	var holders map[string]*html.Node
	for _, seg := range elems {
		if seg.DataAtom != atom.Div || len(seg.Attr) < 2 {
			continue
		}
		id := attr(seg, "id")
		if !strings.HasPrefix(id, "S:") || !hasAttr(seg, "hidden") {
			continue
		}
		if holders == nil {
			holders = streamHolders(doc)
		}
		n := id[len("S:"):]
		at := holders["B:"+n]
		if at == nil {
			at = holders["P:"+n]
		}
		if at == nil || at.Parent == nil || contains(seg, at) {
			continue
		}
		dropFallback(at)
		for c := seg.FirstChild; c != nil; c = seg.FirstChild {
			seg.RemoveChild(c)
			at.Parent.InsertBefore(c, at)
		}
		moved = true
	}
	return moved
}

// streamHolders indexes the page's placeholder templates by id.
func streamHolders(doc *html.Node) map[string]*html.Node {
	out := map[string]*html.Node{}
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			if c.DataAtom == atom.Template {
				if id := attr(c, "id"); strings.HasPrefix(id, "B:") || strings.HasPrefix(id, "P:") {
					out[id] = c
				}
				continue
			}
			walk(c)
		}
	}
	walk(doc)
	return out
}

// maxFallback is the most siblings a boundary's fallback is looked for
// in: a spinner or a skeleton is a few, and a page of many placeholders
// without end comments must not cost a scan to the end from each.
const maxFallback = 64

// dropFallback removes what a boundary shows until its content arrives
// (a spinner, a skeleton): the siblings after the template up to the
// boundary's end comment. Without that comment nothing is removed.
func dropFallback(at *html.Node) {
	end, n := at.NextSibling, 0
	for end != nil && !(end.Type == html.CommentNode && end.Data == "/$") && n < maxFallback {
		end, n = end.NextSibling, n+1
	}
	if end == nil || n == maxFallback {
		return
	}
	for c := at.NextSibling; c != end; c = at.NextSibling {
		at.Parent.RemoveChild(c)
	}
}

// hasAttr reports whether n carries the attribute key.
func hasAttr(n *html.Node, key string) bool {
	for _, a := range n.Attr {
		if a.Key == key {
			return true
		}
	}
	return false
}
