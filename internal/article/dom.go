package article

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// parseChunk bounds how much input the parser sees between deadline checks,
// so pathological markup cannot keep it busy long past the budget.
const parseChunk = 4096

// budgetReader feeds the HTML parser in small chunks, one step each, and
// fails once the extraction budget is spent, which aborts html.Parse.
type budgetReader struct {
	s   string
	off int
	bud *budget
}

// Read implements io.Reader, failing with the budget's error once it stops.
func (r *budgetReader) Read(p []byte) (int, error) {
	if r.off >= len(r.s) {
		return 0, io.EOF
	}
	if r.bud.tick() || r.bud.over() {
		return 0, fmt.Errorf("parse: %w", r.bud.err())
	}
	if len(p) > parseChunk {
		p = p[:parseChunk]
	}
	n := copy(p, r.s[r.off:])
	r.off += n
	return n, nil
}

// parseHTML parses decoded markup after a cheap tag count, then enforces the
// node and depth limits on the resulting tree.
func parseHTML(src string, opt Options, bud *budget) (*html.Node, error) {
	src = dropScriptText(src) // scripts' and style sheets' text: unread, and 40% of a page
	if n := countTags(src); n > opt.MaxNodes {
		return nil, fmt.Errorf("%w: %d tags (limit %d)", ErrTooComplex, n, opt.MaxNodes)
	}
	doc, err := html.Parse(&budgetReader{s: src, bud: bud})
	if err != nil {
		if errors.Is(err, ErrTooComplex) || errors.Is(err, ErrRunaway) {
			return nil, fmt.Errorf("parse html: %w", err)
		}
		// The tolerant parser only fails on its own limits (e.g. more than
		// 512 open elements), so any other failure means "too complex".
		return nil, fmt.Errorf("%w: parse html: %v", ErrTooComplex, err)
	}
	if d := maxDepth(doc, opt.MaxDepth); d > opt.MaxDepth {
		return nil, fmt.Errorf("%w: nesting depth above %d", ErrTooComplex, opt.MaxDepth)
	}
	return doc, nil
}

// countTags counts '<' followed by a letter: an upper bound of start tags.
func countTags(s string) int {
	n := 0
	for {
		i := strings.IndexByte(s, '<')
		if i < 0 || i+1 >= len(s) {
			return n
		}
		if c := s[i+1] | 0x20; c >= 'a' && c <= 'z' {
			n++
		}
		s = s[i+1:]
	}
}

// maxDepth walks the tree iteratively (no recursion on hostile input) and
// stops as soon as the limit is exceeded.
func maxDepth(root *html.Node, limit int) int {
	depth, best := 0, 0
	n := root
	for n != nil {
		if n.FirstChild != nil {
			n = n.FirstChild
			depth++
			if depth > best {
				best = depth
				if best > limit {
					return best
				}
			}
			continue
		}
		for n != nil && n.NextSibling == nil {
			n = n.Parent
			depth--
			if n == root {
				return best
			}
		}
		if n != nil {
			n = n.NextSibling
		}
	}
	return best
}

// attr returns the value of attribute key (lower-case) or "".
func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key && a.Namespace == "" {
			return a.Val
		}
	}
	return ""
}

// walkElements calls fn for every element below root in document order;
// fn returning false skips that element's subtree.
func walkElements(root *html.Node, fn func(*html.Node) bool) {
	for c := root.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode {
			continue
		}
		if fn(c) {
			walkElements(c, fn)
		}
	}
}

// enclosedBy reports whether an ancestor of n (not n itself) is an
// element of kind a: a link around a card, a quote around a post.
func enclosedBy(n *html.Node, a atom.Atom) bool {
	for p := n.Parent; p != nil; p = p.Parent {
		if p.Type == html.ElementNode && p.DataAtom == a {
			return true
		}
	}
	return false
}

// nextElement is n's next sibling element, or nil.
func nextElement(n *html.Node) *html.Node {
	for s := n.NextSibling; s != nil; s = s.NextSibling {
		if s.Type == html.ElementNode {
			return s
		}
	}
	return nil
}

// holds reports whether an element a is below n.
func holds(n *html.Node, a atom.Atom) bool {
	found := false
	walkElements(n, func(c *html.Node) bool {
		found = found || c.DataAtom == a
		return !found
	})
	return found
}

// rawText concatenates all text below n with no block handling (used for
// titles, script bodies and other short metadata).
func rawText(n *html.Node) string {
	if n.Type == html.TextNode {
		return n.Data
	}
	var sb strings.Builder
	var rec func(*html.Node)
	rec = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch c.Type {
			case html.TextNode:
				sb.WriteString(c.Data)
			case html.ElementNode:
				rec(c)
			}
		}
	}
	rec(n)
	return sb.String()
}

// blockTags are elements that start a new line of text when rendered.
var blockTags = map[atom.Atom]bool{
	atom.Address: true, atom.Article: true, atom.Aside: true, atom.Blockquote: true,
	atom.Body: true, atom.Center: true, atom.Dd: true, atom.Details: true, atom.Dialog: true,
	atom.Dir: true, atom.Div: true, atom.Dl: true, atom.Dt: true, atom.Fieldset: true,
	atom.Figcaption: true, atom.Figure: true, atom.Footer: true, atom.Form: true,
	atom.H1: true, atom.H2: true, atom.H3: true, atom.H4: true, atom.H5: true, atom.H6: true,
	atom.Header: true, atom.Hgroup: true, atom.Hr: true, atom.Html: true, atom.Li: true,
	atom.Main: true, atom.Menu: true, atom.Nav: true, atom.Ol: true, atom.P: true,
	atom.Pre: true, atom.Section: true, atom.Summary: true, atom.Table: true,
	atom.Tbody: true, atom.Td: true, atom.Tfoot: true, atom.Th: true, atom.Thead: true,
	atom.Tr: true, atom.Ul: true, atom.Caption: true, atom.Br: true, atom.Legend: true,
	atom.Option: true, atom.Frameset: true, atom.Noscript: true, atom.Listing: true,
	atom.Plaintext: true, atom.Xmp: true,
}

// isBlock reports whether n breaks the inline flow (unknown custom tags are
// treated as inline, the browser default).
func isBlock(n *html.Node) bool {
	return n.Type == html.ElementNode && blockTags[n.DataAtom]
}

// shortText is n's text, whitespace folded, when it is at most limit
// bytes, else "": a control's label, a date line, a credit — not a teaser
// or prose. Unlike bylineText it counts only text against its bound (3 ×
// limit raw bytes), and it looks at no more than shortTextNodes nodes, so
// an element wrapped around a large subtree costs no more than a small
// one. (The page-kind model was trained on its output: merging the two
// changes the model's inputs.)
func shortText(n *html.Node, limit int) string {
	var b strings.Builder
	visited := 0
	var walk func(*html.Node) bool
	walk = func(n *html.Node) bool {
		for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
			if visited++; visited > shortTextNodes {
				return false
			}
			if ch.Type == html.TextNode {
				b.WriteString(ch.Data)
				b.WriteByte(' ')
			} else if ch.Type == html.ElementNode && !walk(ch) {
				return false
			}
			if b.Len() > limit*3 {
				return false
			}
		}
		return true
	}
	if !walk(n) {
		return ""
	}
	s := joinFields(b.String())
	if len(s) > limit {
		return ""
	}
	return s
}

// shortTextNodes bounds the nodes shortText looks at.
const shortTextNodes = 256

// leadText is the start of n's text, about limit bytes of it: how a
// paragraph opens, however long it goes on.
func leadText(n *html.Node, limit int) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		for ch := n.FirstChild; ch != nil && b.Len() < limit; ch = ch.NextSibling {
			if ch.Type == html.TextNode {
				b.WriteString(ch.Data)
			} else if ch.Type == html.ElementNode {
				b.WriteByte(' ')
				walk(ch)
			}
		}
	}
	walk(n)
	return joinFields(b.String())
}
