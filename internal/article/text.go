package article

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/text/unicode/norm"
)

// block is one rendered unit of text (paragraph, heading, list item, ...).
type block struct {
	text    string
	tag     atom.Atom  // tag of the element whose flow produced the text
	node    *html.Node // that element
	runes   int        // non-space runes in text
	linkLen int        // non-space runes inside links
}

// renderer turns a subtree into blocks, breaking at block-level elements so
// words never run together across them.
type renderer struct {
	skip   func(*html.Node) bool // elements to leave out entirely (with subtree)
	blocks []block
	sb     strings.Builder
	cur    *html.Node
	curTag atom.Atom
	inLink int
	inPre  int // inside <pre>: its line breaks are kept
	runes  int
	links  int
	space  bool // pending collapsed whitespace
	bud    *budget
}

// renderBlocks renders the given roots in order.
func renderBlocks(roots []*html.Node, skip func(*html.Node) bool, bud *budget) []block {
	r := &renderer{skip: skip, bud: bud}
	for _, n := range roots {
		r.cur, r.curTag = n, n.DataAtom
		r.node(n)
		r.flush()
	}
	return r.blocks
}

// node renders n and its subtree, opening a new block at block elements.
func (r *renderer) node(n *html.Node) {
	switch n.Type {
	case html.TextNode:
		r.text(n.Data)
		return
	case html.ElementNode, html.DocumentNode:
	default:
		return
	}
	if n.Type == html.ElementNode {
		if r.bud.tick() || (r.skip != nil && r.skip(n)) {
			return
		}
		switch n.DataAtom {
		case atom.Br:
			r.newline()
			return
		case atom.Td, atom.Th:
			r.space = true
		case atom.Img:
			return
		}
	}
	block := n.Type == html.ElementNode && isBlock(n) && n.DataAtom != atom.Td && n.DataAtom != atom.Th
	var prev *html.Node
	var prevTag atom.Atom
	if block {
		r.flush()
		prev, prevTag = r.cur, r.curTag
		r.cur, r.curTag = n, n.DataAtom
	}
	link, pre := n.DataAtom == atom.A, n.DataAtom == atom.Pre
	if link {
		r.inLink++
	}
	if pre {
		r.inPre++
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		r.node(c)
	}
	if link {
		r.inLink--
	}
	if pre {
		r.inPre--
	}
	if n.DataAtom == atom.Td || n.DataAtom == atom.Th {
		r.space = true
	}
	if block {
		r.flush()
		r.cur, r.curTag = prev, prevTag
	}
}

// text appends a text node with whitespace collapsed.
func (r *renderer) text(s string) {
	var prev rune
	for _, c := range s {
		before := prev
		prev = c
		switch {
		case invisible(c, before) || c == '\u2060':
			continue
		case c == '\n' && r.inPre > 0:
			r.newline()
			continue
		case unicode.IsSpace(c) || c == '\u00a0':
			r.space = true
			continue
		case c < 0x20 || c == 0x7f || c == utf8.RuneError:
			continue
		}
		if r.space && r.sb.Len() > 0 {
			last := r.sb.String()[r.sb.Len()-1]
			if last != '\n' {
				r.sb.WriteByte(' ')
			}
		}
		r.space = false
		r.sb.WriteRune(c)
		r.runes++
		if r.inLink > 0 {
			r.links++
		}
	}
}

// newline handles <br>: a line break inside the current block.
func (r *renderer) newline() {
	if r.sb.Len() > 0 {
		s := r.sb.String()
		if s[len(s)-1] != '\n' {
			r.sb.WriteByte('\n')
		}
	}
	r.space = false
}

// flush closes the current block.
func (r *renderer) flush() {
	r.space = false
	if r.runes == 0 {
		r.sb.Reset()
		return
	}
	t := strings.TrimSpace(r.sb.String())
	r.blocks = append(r.blocks, block{text: t, tag: r.curTag, node: r.cur, runes: r.runes, linkLen: r.links})
	r.sb.Reset()
	r.runes, r.links = 0, 0
}

// joinBlocks produces the final article text: blocks separated by blank
// lines, mojibake repaired (written as entities, "isn&acirc;&euro;&trade;t",
// it is text only now), NFC-normalised.
func joinBlocks(bs []block) string {
	var sb strings.Builder
	for i, b := range bs {
		if i > 0 {
			sb.WriteString("\n\n")
		}
		sb.WriteString(b.text)
	}
	return nfc(repairMojibake(sb.String()))
}

// nfc normalises to NFC, cheaply skipping text that already is.
func nfc(s string) string {
	if norm.NFC.IsNormalString(s) {
		return s
	}
	return norm.NFC.String(s)
}

// invisible reports a character the text and metadata drop: a soft
// hyphen, a zero-width space or byte-order mark, and a zero-width joiner
// or non-joiner after Latin letters, a space or nothing. After a letter
// of a script past Latin a joiner spells the word (Persian "جیره‌بندی",
// a Hindi conjunct, an emoji sequence) and stays.
func invisible(c, before rune) bool {
	switch c {
	case '\u00ad', '\u200b', '\ufeff':
		return true
	case '\u200c', '\u200d':
		return before <= 0x24f || unicode.IsSpace(before)
	}
	return false
}

// cleanInline collapses whitespace of a metadata string and drops control
// and invisible characters.
func cleanInline(s string) string {
	if s == "" {
		return ""
	}
	var sb strings.Builder
	space := false
	var prev rune
	for _, c := range s {
		before := prev
		prev = c
		switch {
		case invisible(c, before):
			continue
		case unicode.IsSpace(c) || c == '\u00a0':
			space = true
			continue
		case c < 0x20 || c == 0x7f:
			continue
		}
		if space && sb.Len() > 0 {
			sb.WriteByte(' ')
		}
		space = false
		sb.WriteRune(c)
	}
	out := sb.String()
	if strings.IndexByte(out, '&') >= 0 && strings.IndexByte(out, ';') > 0 {
		// Metadata is often double-escaped ("&amp;#8220;" in the source).
		out = html.UnescapeString(out)
	}
	return nfc(repairMojibake(strings.ToValidUTF8(out, "\uFFFD")))
}

// joinFields is strings.Join(strings.Fields(s), " ") without the slice of
// fields: one copy of s, its white space runs made single spaces.
func joinFields(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	field := -1 // where the word being read starts
	for i := 0; i <= len(s); {
		space, size := true, 1 // the end of s ends the last word
		if i < len(s) {
			c := rune(s[i])
			if c >= utf8.RuneSelf {
				c, size = utf8.DecodeRuneInString(s[i:])
			}
			space = c == ' ' || '\t' <= c && c <= '\r' || c >= utf8.RuneSelf && unicode.IsSpace(c)
		}
		switch {
		case !space && field < 0:
			field = i
		case space && field >= 0:
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(s[field:i])
			field = -1
		}
		i += size
	}
	return b.String()
}

// countWords counts words; runs of letters/digits in space-less scripts
// (CJK, Thai) count one word per character, which is the common convention.
func countWords(s string) int {
	n, in := 0, false
	for _, c := range s {
		if c < utf8.RuneSelf { // most of most pages: no table look-ups
			switch {
			case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_':
				if !in {
					n++
				}
				in = true
			case c != '\'' && c != '-':
				in = false
			}
			continue
		}
		switch {
		case isCJK(c):
			n++
			in = false
		case unicode.IsLetter(c) || unicode.IsDigit(c) || c == '_' || unicode.Is(unicode.Mn, c):
			if !in {
				n++
			}
			in = true
		case c == '\'' || c == '’' || c == '-':
			// keep contractions and hyphenated words whole
		default:
			in = false
		}
	}
	return n
}

// isCJK reports runes of scripts written without spaces between words.
func isCJK(c rune) bool {
	if c < 0x0e00 { // below Thai: fast path for Latin, Cyrillic, ...
		return false
	}
	return unicode.In(c, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Thai)
}
