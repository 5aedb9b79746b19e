package article

import (
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// stat holds per-element measurements used for scoring and cleaning.
type stat struct {
	text     int // non-space runes in the subtree (dropped parts excluded)
	link     int // of which inside <a>
	flow     int // runes in the element's own inline flow (not inside child blocks)
	flowLink int
	commas   int // commas in the own flow
	paras    int // paragraph-like descendants (p, or blocks with a long flow)
	imgs     int
	score    float64
	cand     bool // score initialised (element is a candidate container)
	drop     bool // excluded as page chrome
}

// statTable maps elements to their stats; entries come from one slab to
// keep allocation count low.
type statTable struct {
	m    map[*html.Node]*stat
	slab []stat
	hc   hintCache
}

// newStatTable sizes the table for about size elements (a fixed 4096,
// allocated and cleared for every page whatever its size, was 5% of the
// cleaner stage's CPU), up to 32,768: a huge page's table grows as it is
// read, which its budget may end early.
func newStatTable(size int, hc hintCache) *statTable {
	size = min(max(size, 64), 1<<15)
	return &statTable{m: make(map[*html.Node]*stat, size), slab: make([]stat, 0, size), hc: hc}
}

// get returns the stats of n, creating an empty entry on first use.
func (t *statTable) get(n *html.Node) *stat {
	if s, ok := t.m[n]; ok {
		return s
	}
	if len(t.slab) == cap(t.slab) {
		t.slab = make([]stat, 0, 256+cap(t.slab)/2)
	}
	t.slab = append(t.slab, stat{})
	s := &t.slab[len(t.slab)-1]
	t.m[n] = s
	return s
}

// measureText counts non-space runes and commas of a text node.
func measureText(s string) (runes, commas int) {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			switch c {
			case ' ', '\n', '\t', '\r', '\f':
			case ',':
				runes++
				commas++
			default:
				runes++
			}
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		switch {
		case r == '\u00a0' || unicode.IsSpace(r) || r == '\u200b' || r == '\u00ad':
		case r == '，' || r == '、' || r == '،':
			runes++
			commas++
		default:
			runes++
		}
	}
	return runes, commas
}

// measure fills text/link/flow stats for the subtree of n (bottom-up),
// honouring drop marks. It returns n's stats.
func (t *statTable) measure(n *html.Node, inLink bool, bud *budget) *stat {
	st := t.get(n)
	st.text, st.link, st.flow, st.flowLink, st.commas, st.paras, st.imgs = 0, 0, 0, 0, 0, 0, 0
	if st.drop {
		return st
	}
	bud.tick()
	link := inLink || n.DataAtom == atom.A
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch c.Type {
		case html.TextNode:
			r, cm := measureText(c.Data)
			st.text += r
			st.flow += r
			st.commas += cm
			if link {
				st.link += r
				st.flowLink += r
			}
		case html.ElementNode:
			if c.DataAtom == atom.Img {
				st.imgs++
				continue
			}
			cs := t.measure(c, link, bud)
			if cs.drop {
				continue
			}
			st.text += cs.text
			st.link += cs.link
			st.imgs += cs.imgs
			st.paras += cs.paras
			if !isBlock(c) {
				// Inline children continue this element's flow.
				st.flow += cs.flow
				st.flowLink += cs.flowLink
				st.commas += cs.commas
			} else if c.DataAtom == atom.P || cs.flow >= 80 {
				st.paras++
			}
		}
	}
	return st
}

// linkDensity is the share of subtree text inside links.
func (s *stat) linkDensity() float64 {
	if s.text == 0 {
		return 0
	}
	return float64(s.link) / float64(s.text)
}
