package article

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// junkTags never contain readable article text.
var junkTags = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true,
	atom.Svg: true, atom.Math: true, atom.Canvas: true, atom.Iframe: true, atom.Object: true,
	atom.Embed: true, atom.Video: true, atom.Audio: true, atom.Source: true, atom.Track: true,
	atom.Button: true, atom.Input: true, atom.Select: true, atom.Option: true, atom.Textarea: true,
	atom.Label: true, atom.Link: true, atom.Meta: true, atom.Head: true, atom.Title: true,
	atom.Map: true, atom.Area: true, atom.Frame: true, atom.Frameset: true, atom.Param: true,
	atom.Datalist: true, atom.Output: true, atom.Progress: true, atom.Meter: true, atom.Base: true,
}

// pruneJunk removes non-content elements and hidden subtrees in place.
func pruneJunk(n *html.Node, bud *budget) {
	for c := n.FirstChild; c != nil; {
		next := c.NextSibling
		switch c.Type {
		case html.CommentNode, html.DoctypeNode:
			n.RemoveChild(c)
		case html.ElementNode:
			if junkTags[c.DataAtom] || isHidden(c) || bud.tick() {
				n.RemoveChild(c)
			} else {
				pruneJunk(c, bud)
			}
		}
		c = next
	}
}

// isHidden reports elements a browser would not display.
func isHidden(n *html.Node) bool {
	for _, a := range n.Attr {
		switch a.Key {
		case "hidden":
			return true
		case "aria-hidden":
			if a.Val == "true" {
				return true
			}
		case "style":
			if strings.Contains(a.Val, "none") || strings.Contains(a.Val, "hidden") {
				s := strings.ToLower(strings.ReplaceAll(a.Val, " ", ""))
				if strings.Contains(s, "display:none") || strings.Contains(s, "visibility:hidden") {
					return true
				}
			}
		case "type":
			if n.DataAtom == atom.Input {
				return true
			}
		}
	}
	return false
}
