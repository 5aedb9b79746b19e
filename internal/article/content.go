package article

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// contentResult is the outcome of one extraction attempt.
type contentResult struct {
	blocks   []block
	runes    int
	bodyText int // non-space runes of the whole (pruned) body
	bodyLink int // of which inside links
}

// extractContent finds the main text below body. It first strips
// chrome-looking elements; if that leaves too little, it retries without
// the class/id based stripping (which sometimes hits a page wrapper), but
// still without the overlays.
func extractContent(body *html.Node, pm *pageMeta, hc hintCache, bud *budget) contentResult {
	titles := []string{pm.htmlTitle, pm.get("og:title"), pm.get("twitter:title"), pm.ldTitle()}
	size := len(pm.nodes) // every element of the page: the most the stat table holds
	best := attempt(body, true, titles, pm.paid, hc, bud, size)
	if best.runes >= 500 || bud.over() {
		return best
	}
	alt := attempt(body, false, titles, pm.paid, hc, bud, size)
	if alt.runes > best.runes*2 {
		return alt
	}
	return best
}

// attempt runs measuring, scoring, selection and rendering once.
func attempt(body *html.Node, strip bool, titles []string, paid map[*html.Node]bool, hc hintCache, bud *budget, size int) contentResult {
	st := newStatTable(size, hc)
	root := *st.measure(body, false, bud) // copy: later passes reset the entry
	wrappers := storyWrappers(body, st, root.text)
	if strip {
		markUnlikely(body, st, root.text, paid, wrappers, bud)
	} else {
		markOverlays(body, st, bud)
	}
	st.measure(body, false, bud)
	sc := &scorer{st: st, body: body, bud: bud, titles: titles}
	sc.scoreParagraphs()
	roots := sc.pick()
	if len(roots) == 0 {
		roots = []*html.Node{body}
	} else if alt := sc.proseRoot(roots); alt != nil {
		roots = []*html.Node{alt}
	}
	cl := &cleaner{st: st, roots: roots, paid: paid, wrappers: wrappers}
	for _, r := range roots {
		cl.total += st.get(r).text
	}
	blocks := renderBlocks(roots, cl.skip, bud)
	blocks = filterBlocks(blocks, titles, st)
	n := 0
	for _, b := range blocks {
		n += b.runes
	}
	return contentResult{blocks: blocks, runes: n, bodyText: root.text, bodyLink: root.link}
}

// markOverlays flags the dialogs and consent banners as dropped: never the
// page's text, even where nothing else is stripped.
func markOverlays(body *html.Node, st *statTable, bud *budget) {
	walkElements(body, func(n *html.Node) bool {
		if bud.tick() {
			return false
		}
		if st.hc.overlay(n) {
			st.get(n).drop = true
			return false
		}
		return true
	})
}

// markUnlikely flags chrome elements as dropped, except containers that hold
// most of the page's text (a mis-named wrapper), the marked-up article body,
// the paid part of a paywalled article (paid, from its JSON-LD), and prose
// in the page's story wrappers (storyWrappers).
func markUnlikely(body *html.Node, st *statTable, total int, paid map[*html.Node]bool, wrappers map[string]bool, bud *budget) {
	stamps := entryStamps(body, st, bud)
	walkElements(body, func(n *html.Node) bool {
		if bud.tick() {
			return false
		}
		if n.DataAtom == atom.Pre || n.DataAtom == atom.Code {
			// A code block's spans are named by its highlighter
			// ("hljs-comment", "token tag"), never page chrome.
			return false
		}
		s := st.get(n)
		if hoverCard(n, st) {
			s.drop = true
			return false
		}
		if !st.hc.unlikely(n) || paid[n] {
			return true
		}
		// A dialog or a consent banner is shown over the page: however
		// much prose it holds (a site's privacy policy), it is not the page's.
		if h := st.hc.node(n); st.hc.overlay(n) || h&hHardNeg != 0 && h&hStrongPos == 0 {
			s.drop = true
			return false
		}
		// A chrome name on a container holding much of the page's prose is
		// a misnomer ("read-more" wrapping the rest of the story).
		if total > 0 && ((s.text > total/2 && s.linkDensity() < 0.5) || (s.text*4 > total && s.paras >= 3 && s.linkDensity() < 0.2)) {
			return true
		}
		if hasArticleBody(n, bud) || isQuoteEmbed(n, st) || inProse(n, st) || stamps[n] {
			return true
		}
		if wrapsStory(n, s, wrappers) {
			return true
		}
		s.drop = true
		return false
	})
}

// wrapsStory reports prose in one of the page's story wrappers.
func wrapsStory(n *html.Node, s *stat, wrappers map[string]bool) bool {
	return s.paras > 0 && s.linkDensity() < 0.5 && wrappers[style(attr(n, "class"))]
}

// storyWrappers returns the class lists (by style) of the chrome-named
// elements that hold most of the page's text. On such a page the name
// wraps the story's blocks (a page builder's "elementor-widget" around
// each one), so the other blocks it wraps are not chrome either: the
// story's opening in one widget, the rest in another.
func storyWrappers(body *html.Node, st *statTable, total int) map[string]bool {
	var styles map[string]bool
	for n := body; n != nil && total > 0; {
		var next *html.Node
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.ElementNode && st.get(c).text > total/2 {
				next = c
				break
			}
		}
		if next != nil && st.hc.unlikely(next) && st.get(next).linkDensity() < 0.5 {
			if class := style(attr(next, "class")); class != "" {
				if styles == nil {
					styles = map[string]bool{}
				}
				styles[class] = true
			}
		}
		n = next
	}
	return styles
}

// hasArticleBody reports whether n contains an explicitly marked article body.
// It walks raw nodes rather than querying "article, main, [itemprop=articleBody]"
// with goquery: markUnlikely may ask at every level of a deeply nested chain of
// chrome-named wrappers, so each search must stop when the budget runs out.
func hasArticleBody(n *html.Node, bud *budget) bool {
	found := false
	walkElements(n, func(c *html.Node) bool {
		if found || bud.tick() {
			return false
		}
		if c.DataAtom == atom.Article || c.DataAtom == atom.Main || attr(c, "itemprop") == "articleBody" {
			found = true
			return false
		}
		return true
	})
	return found
}

// minProseAround is the text (runes) a paragraph must hold besides an inline
// element for that element to read as part of its sentence.
const minProseAround = 80

// inProse reports an inline element set inside a paragraph's sentence (a
// "dateline" span opening "CAIRO — Gunmen opened fire …"): whatever its
// name, it is part of the text, not page chrome.
func inProse(n *html.Node, st *statTable) bool {
	if isBlock(n) || isTooltip(n) {
		return false
	}
	p := n.Parent
	for p != nil && p.Type == html.ElementNode && !isBlock(p) {
		p = p.Parent
	}
	if p == nil || !paraTags[p.DataAtom] {
		return false
	}
	ns, ps := st.get(n), st.get(p)
	return ps.flow-ns.text >= minProseAround && ps.flowLink*4 < ps.flow
}

// isTooltip reports a tooltip's bubble: set inside a sentence beside the
// term it explains ("keyword" and its glossary entry), it is shown on
// hover and never part of the sentence.
func isTooltip(n *html.Node) bool {
	return strings.EqualFold(attr(n, "role"), "tooltip") || strings.Contains(strings.ToLower(classID(n)), "tooltip")
}

// hoverCard reports an inline box of links and a picture set right after a
// link inside a sentence: the card a site shows when the pointer rests on a
// name ("Ilhan Omar" followed by her photo and her latest headlines).
func hoverCard(n *html.Node, st *statTable) bool {
	if isBlock(n) || n.DataAtom == atom.A {
		return false
	}
	prev := n.PrevSibling
	for prev != nil && prev.Type == html.TextNode && strings.TrimSpace(prev.Data) == "" {
		prev = prev.PrevSibling
	}
	if prev == nil || prev.DataAtom != atom.A {
		return false
	}
	s := st.get(n)
	return s.imgs > 0 && s.text >= 40 && s.link*10 >= s.text*9
}

// Entry stamps: the times heading a live blog's updates.
const (
	minEntries    = 3  // stamps of one class that make a series of entries
	maxEntryStamp = 40 // runes of a stamp's element
)

// entryStamps finds the elements holding a <time> that repeat, with the
// same class, three times or more: the times of a live blog's updates
// ("14:50"), which belong with the updates whatever the element is named
// ("block-time published-time"). A story's own time stamp occurs once and
// keeps its chrome name; the text filters drop a dated stamp line and
// keep a bare time.
func entryStamps(body *html.Node, st *statTable, bud *budget) map[*html.Node]bool {
	byClass := map[string][]*html.Node{}
	walkElements(body, func(n *html.Node) bool {
		if bud.tick() {
			return false
		}
		if n.DataAtom != atom.Time {
			return true
		}
		for e, i := n, 0; e != nil && e.Type == html.ElementNode && i < 3; e, i = e.Parent, i+1 {
			if st.get(e).text > maxEntryStamp {
				break
			}
			if c := attr(e, "class"); c != "" {
				byClass[c] = append(byClass[c], e)
				break
			}
		}
		return false
	})
	var out map[*html.Node]bool
	for _, ns := range byClass {
		if len(ns) < minEntries {
			continue
		}
		if out == nil {
			out = map[*html.Node]bool{}
		}
		for _, n := range ns {
			for e := n; e != nil && e != body; e = e.Parent {
				out[e] = true // and the wrappers between it and the entry
				if e.Parent != nil && st.get(e.Parent).text > maxEntryStamp {
					break
				}
			}
		}
	}
	return out
}
