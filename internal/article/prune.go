package article

import (
	"strings"
	"unicode"

	"github.com/PuerkitoBio/goquery"
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

// pruneJunk removes non-content elements (junkTags) and hidden subtrees in
// place, but not a story hidden until the page's scripts run
// (hiddenStory); elems is every element of the page (see Extract), body
// its body. An element already inside a removed subtree is detached from
// its detached parent, which is harmless. Comments and the doctype stay:
// every later step reads only element and text nodes. This is a walk and
// a filter over a list bounded by Options.MaxNodes, so it needs no budget
// checks of its own.
func pruneJunk(elems *goquery.Selection, body *html.Node) {
	shown := hiddenStory(elems.Nodes, body)
	if shown == nil {
		elems.FilterMatcher(junkElements).Remove()
		return
	}
	elems.FilterMatcher(nodeMatcher{match: func(n *html.Node) bool {
		return n != shown && junkElements.Match(n)
	}}).Remove()
}

// isHidden reports elements a browser would not display at first. A collapsed
// accordion panel (WAI-ARIA's pattern: a region labelled by its header's
// button) is shown on a click and read as part of the page; it stays.
func isHidden(n *html.Node) bool {
	hidden, cloaked, toggled := false, false, false
	for _, a := range n.Attr {
		switch a.Key {
		case "hidden":
			return true
		case "x-cloak":
			cloaked = true
		case "x-show":
			toggled = true
		case "aria-hidden":
			if a.Val == "true" {
				return true
			}
		case "style":
			if strings.Contains(a.Val, "none") || strings.Contains(a.Val, "hidden") {
				s := strings.ToLower(strings.ReplaceAll(a.Val, " ", ""))
				hidden = hidden || strings.Contains(s, "display:none") || strings.Contains(s, "visibility:hidden")
			}
		case "type":
			if n.DataAtom == atom.Input {
				return true
			}
		}
	}
	if cloaked && toggled {
		// Alpine.js hides an x-cloak element until it runs, and x-show
		// then shows it only when toggled: a menu, a sign-up form.
		return true
	}
	return (hidden || hiddenByClass(attr(n, "class"))) && !(attr(n, "role") == "region" && attr(n, "aria-labelledby") != "")
}

// hiddenByClass reports a utility class that hides an element at every
// screen width: Tailwind's "hidden", Bootstrap's "d-none", or one that
// shows it to screen readers only (screenReaderOnly), without a responsive
// class that shows it again ("md:block", "d-lg-flex").
func hiddenByClass(class string) bool {
	if !strings.Contains(class, "hidden") && !strings.Contains(class, "d-none") && !strings.Contains(class, "sr-only") && !strings.Contains(class, "screen-reader") && !strings.Contains(class, "invisible") {
		return false // most classes; the test costs no allocation
	}
	hides := false
	for c := range strings.FieldsSeq(class) {
		switch {
		case c == "hidden" || c == "d-none" || screenReaderOnly[c]:
			hides = true
		case strings.Contains(c, ":") || strings.HasPrefix(c, "d-sm-") || strings.HasPrefix(c, "d-md-") || strings.HasPrefix(c, "d-lg-") || strings.HasPrefix(c, "d-xl-") || strings.HasPrefix(c, "d-xxl-"):
			return false
		}
	}
	return hides
}

// screenReaderOnly are the classes that show an element to screen readers
// only (WordPress's, Bootstrap's, Drupal's): a heading such as "Reader
// Interactions" or a link's "(opens in a new tab)", no text a reader sees.
var screenReaderOnly = map[string]bool{"screen-reader-text": true, "sr-only": true, "visually-hidden": true, "visuallyhidden": true, "element-invisible": true}

// hiddenStory returns the hidden element that holds the page's <h1> and
// most of its prose (its text outside links): a page that hides its
// content until its scripts have run ("defer-block" with display:none)
// and shows it then. Nil when there is none, or when it is a dialog.
// elems is every element of the page: the body is walked only when one of
// its <h1> elements is hidden, which few pages' are.
func hiddenStory(elems []*html.Node, body *html.Node) *html.Node {
	if body == nil || !hiddenH1(elems, body) {
		return nil
	}
	var best *html.Node
	total, bestProse := 0, 0
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.TextNode {
				total += len(strings.TrimSpace(c.Data))
			}
			if c.Type != html.ElementNode || junkTags[c.DataAtom] || c.DataAtom == atom.A {
				continue // links are not prose
			}
			if isHidden(c) {
				p, titled := prose(c)
				if titled && p > bestProse {
					best, bestProse = c, p
				}
				total += p
				continue
			}
			walk(c)
		}
	}
	walk(body)
	if best == nil || bestProse*2 <= total || isModal(best) {
		return nil
	}
	return best
}

// hiddenH1 reports an <h1> among elems inside a hidden element of body.
func hiddenH1(elems []*html.Node, body *html.Node) bool {
	for _, n := range elems {
		if n.DataAtom != atom.H1 {
			continue
		}
		for a := n; a != nil && a != body; a = a.Parent {
			if isHidden(a) {
				return true
			}
		}
	}
	return false
}

// prose measures the text under n outside links and junkTags, and says
// whether it holds an <h1>.
func prose(n *html.Node) (size int, titled bool) {
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch {
			case c.Type == html.TextNode:
				size += len(strings.TrimSpace(c.Data))
			case c.Type == html.ElementNode && !junkTags[c.DataAtom] && c.DataAtom != atom.A:
				titled = titled || c.DataAtom == atom.H1
				walk(c)
			}
		}
	}
	walk(n)
	return size, titled
}

// isPermalink reports a link to a place on the page that shows only a mark
// ("¶", "#", "§") or its own href ("#section2"): the permalink documentation
// generators and blogs put beside each heading and definition.
func isPermalink(n *html.Node) bool {
	if n.DataAtom != atom.A {
		return false
	}
	href := attr(n, "href")
	if len(href) < 2 || href[0] != '#' {
		return false
	}
	t := strings.TrimSpace(rawText(n))
	return t == href || !strings.ContainsFunc(t, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) })
}

// isShadowRoot reports a declarative shadow root: a <template> whose content
// the browser attaches to its parent and shows, unlike any other template's.
func isShadowRoot(n *html.Node) bool {
	return n.DataAtom == atom.Template && (hasAttr(n, "shadowrootmode") || hasAttr(n, "shadowroot"))
}
