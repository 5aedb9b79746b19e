package article

import (
	"slices"
	"strings"
)

// dropScriptText returns src without the text of its scripts (but JSON-LD,
// and the Next.js calls that carry it) and style sheets: about 40% of a
// page's bytes, which the HTML tokenizer reads one at a time only for
// pruning to throw them away. The elements stay, empty; so do attributes
// no step reads (isUnreadAttr), with their long quoted values cut: another
// tenth. It lexes src as the tokenizer does (tags and their quoted
// attribute values, comments, raw text), so it cuts only what the
// tokenizer reads as a script's or a style sheet's text or as such a
// value. Where the tokenizer's reading depends on the tree (inside svg or
// math) or on a script's escape states, it cuts no text: inside foreign
// content until it closes, and nothing after a script that hides a
// "<script" in an HTML comment, to the end of the page. Values are cut in
// foreign content too, but none after a tag there that HTML reads as raw
// text, to the end of the page.
func dropScriptText(src string) string {
	l := rawLexer{src: src, selected: selectedData(src)}
	l.run()
	if l.kept == 0 {
		return src
	}
	l.out.WriteString(src[l.kept:])
	return l.out.String()
}

// rawLexer is dropScriptText's state: out holds src[:kept] less the cuts.
type rawLexer struct {
	src     string
	out     strings.Builder
	kept    int
	foreign int // svg and math elements open, as far as tags tell
	// unsure is set in foreign content after a tag that would open raw
	// text in HTML: should the parser have left the svg (a "<p>" in it
	// does), what follows is raw text, and no attribute value is cut from
	// there on (a "</svg>" in that text would end the svg for the lexer).
	unsure bool
	// selected are the "data-" attributes a CSS selector in the page may
	// read: JSON-LD names a page's paid part by one (paidContent).
	selected []string
}

// run lexes src from its start, cutting as it goes, and stops where it
// can no longer be sure of the tokenizer's state.
func (l *rawLexer) run() {
	s := l.src
	for i := 0; ; {
		j := strings.IndexByte(s[i:], '<')
		if j < 0 || i+j+1 >= len(s) {
			return
		}
		i += j
		switch c := s[i+1]; {
		case isASCIILetter(c):
			t := lexTag(s, i+1, l.selected)
			if t.end < 0 {
				return // the page ends inside the tag
			}
			if !l.unsure {
				for _, v := range t.unread[:t.nUnread] {
					l.cut(v[0], v[1])
				}
			}
			i = t.end
			if l.foreign > 0 {
				// Nothing is raw text in foreign content.
				switch t.name {
				case "svg", "math":
					if !t.selfClosing {
						l.foreign++
					}
				case "":
				default:
					l.unsure = true
				}
				continue
			}
			switch t.name {
			case "svg", "math":
				if !t.selfClosing {
					l.foreign++
				}
			case "script", "style":
				end, ok := rawTextEnd(s, i, t.name)
				if !ok {
					return
				}
				// A style sheet holding "<" stays: CSS has none, so it
				// may be foreign content the svg count missed.
				if end > i && !(t.name == "script" && (t.keepsText || readScript(s[i:end]))) && !(t.name == "style" && strings.IndexByte(s[i:end], '<') >= 0) {
					l.cut(i, end)
				}
				i = end
			case "textarea", "title", "iframe", "noembed", "noframes", "noscript", "xmp":
				end, ok := rawTextEnd(s, i, t.name)
				if !ok {
					return
				}
				i = end
			case "plaintext":
				return
			}
		case c == '/':
			switch {
			case i+2 >= len(s):
				return
			case s[i+2] == '>':
				i += 3
			case isASCIILetter(s[i+2]):
				t := lexTag(s, i+2, l.selected)
				if t.end < 0 {
					return
				}
				if l.foreign > 0 && (t.name == "svg" || t.name == "math") {
					l.foreign--
				}
				i = t.end
			default:
				if i = closeAngle(s, i+2); i < 0 {
					return
				}
			}
		case c == '!':
			switch {
			case strings.HasPrefix(s[i+2:], "--"):
				i = commentEnd(s, i+4)
			case l.foreign > 0 && strings.HasPrefix(s[i+2:], "[CDATA["):
				k := strings.Index(s[i:], "]]>")
				if k < 0 {
					return
				}
				i += k + len("]]>")
			default: // a doctype or a bogus comment
				i = closeAngle(s, i+2)
			}
			if i < 0 {
				return
			}
		case c == '?':
			if i = closeAngle(s, i+2); i < 0 {
				return
			}
		default:
			i++
		}
	}
}

// readScript says whether a script's text is read after parsing: Next.js's
// call that carries JSON-LD, or a short one that may hold an analytics
// key (analyticsAuthors: the data layers that hold one are a few
// kilobytes at most; longer scripts are not searched, to keep this cheap).
func readScript(text string) bool {
	if strings.HasPrefix(strings.TrimLeft(text, " \t\r\n"), nextScriptPush) {
		return true
	}
	if len(text) > 16<<10 {
		return false
	}
	for _, k := range analyticsKeys {
		if strings.Contains(text, k.key) {
			return true
		}
	}
	return false
}

// cut leaves src[from:to] out of the result.
func (l *rawLexer) cut(from, to int) {
	if l.kept == 0 {
		l.out.Grow(len(l.src) / 2)
	}
	l.out.WriteString(l.src[l.kept:from])
	l.kept = to
}

// rawTextEnd returns where the raw text that starts at s[i] ends: at the
// first "</name" followed by white space, "/" or ">", in any case. ok is
// false when the tokenizer could read it otherwise: a script whose text
// opens an HTML comment holding "<script" (the escape states), or text
// that runs to the end of the page.
func rawTextEnd(s string, i int, name string) (end int, ok bool) {
	for k := i; ; {
		j := strings.Index(s[k:], "</")
		if j < 0 {
			return 0, false
		}
		k += j
		if tagNameAt(s, k+2, name) {
			if name == "script" {
				if c := strings.Index(s[i:k], "<!--"); c >= 0 && indexFold(s[i+c:k], "<script") >= 0 {
					return 0, false
				}
			}
			return k, true
		}
		k += 2
	}
}

// tagNameAt reports whether s holds name at i, in any case, followed by
// white space, "/" or ">".
func tagNameAt(s string, i int, name string) bool {
	if i+len(name) >= len(s) || !asciiFoldEqual(s[i:i+len(name)], name) {
		return false
	}
	switch s[i+len(name)] {
	case ' ', '\n', '\r', '\t', '\f', '/', '>':
		return true
	}
	return false
}

// indexFold is strings.Index for a lower-case ASCII needle, in any case.
func indexFold(s, needle string) int {
	for i := 0; i+len(needle) <= len(s); i++ {
		if asciiFoldEqual(s[i:i+len(needle)], needle) {
			return i
		}
	}
	return -1
}

// asciiFoldEqual reports whether s is the lower-case ASCII word w in any
// case, as the tokenizer compares tag names (strings.EqualFold would also
// take the long s, "ſ", for an "s").
func asciiFoldEqual(s, w string) bool {
	if len(s) != len(w) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c != w[i] && c+('a'-'A') != w[i] {
			return false
		}
	}
	return true
}

// lexedTag is a tag as the tokenizer reads it.
type lexedTag struct {
	name        string // lower case, for the tags dropScriptText looks at; else ""
	end         int    // just past its ">", or -1 at the end of the page
	selfClosing bool
	keepsText   bool // a JSON-LD script, or one whose type the lexer cannot read
	// unread holds where the first long quoted values of attributes no
	// step reads lie (an svg path's "d", a front-end framework's state in
	// "data-" attributes), in order: a tenth of a page's bytes, which the
	// tokenizer would copy.
	unread  [4][2]int
	nUnread int
}

// unreadValueMin is the shortest attribute value worth cutting.
const unreadValueMin = 32

// isUnreadAttr reports attributes whose values no step reads: "d", and
// the "data-" attributes but lazy images' sources and those selected.
func isUnreadAttr(key string, selected []string) bool {
	if len(key) == 1 {
		return key[0]|0x20 == 'd'
	}
	if len(key) <= len("data-") || !asciiFoldEqual(key[:len("data-")], "data-") {
		return false
	}
	for _, k := range imgSources {
		if asciiFoldEqual(key, k) {
			return false
		}
	}
	for _, k := range selected {
		if asciiFoldEqual(key, k) {
			return false
		}
	}
	return true
}

// selectedData returns the "data-" attributes named in brackets ("[data-
// tier='paid']") anywhere in a page that holds a cssSelector, lower-cased.
func selectedData(src string) []string {
	if !strings.Contains(src, "cssSelector") {
		return nil
	}
	var names []string
	for s := src; ; {
		i := strings.IndexByte(s, '[')
		if i < 0 {
			return names
		}
		if s = s[i+1:]; len(s) < len("data-") || !asciiFoldEqual(s[:len("data-")], "data-") {
			continue
		}
		n := len("data-")
		for n < len(s) && (isASCIILetter(s[n]) || s[n] >= '0' && s[n] <= '9' || s[n] == '-' || s[n] == '_') {
			n++
		}
		if name := strings.ToLower(s[:n]); !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
}

// lexedNames are the tags whose names dropScriptText reads.
var lexedNames = []string{"script", "style", "svg", "math", "textarea", "title", "iframe", "noembed", "noframes", "noscript", "xmp", "plaintext"}

// lexTag reads the tag whose name starts at s[i] as the tokenizer's
// readTag does: the name runs to white space, "/" or ">"; a value in
// quotes may hold ">".
func lexTag(s string, i int, selected []string) lexedTag {
	var t lexedTag
	n := i
	for n < len(s) && !isTagSpace(s[n]) && s[n] != '/' && s[n] != '>' {
		n++
	}
	for _, name := range lexedNames {
		if asciiFoldEqual(s[i:n], name) {
			t.name = name
			break
		}
	}
	sawType := t.name != "script"
	unquotedEnd := -1 // where the last unquoted value ends
	k := n
	for {
		if k = skipTagSpace(s, k); k >= len(s) {
			return lexedTag{end: -1}
		}
		if s[k] == '>' {
			t.end = k + 1
			t.selfClosing = s[k-1] == '/' && unquotedEnd != k
			return t
		}
		// The key runs to white space, "/", ">" or an "=" after its first byte.
		ks := k
		for k++; k < len(s) && !isTagSpace(s[k]) && s[k] != '/' && s[k] != '>' && s[k] != '='; k++ {
		}
		if s[ks] == '/' {
			k = ks + 1 // a "/" between attributes
			continue
		}
		key := s[ks:k]
		if k = skipTagSpace(s, k); k >= len(s) {
			return lexedTag{end: -1}
		}
		if s[k] == '/' {
			k++
			continue
		}
		if s[k] != '=' {
			continue
		}
		k++
		if k = skipTagSpace(s, k); k >= len(s) {
			return lexedTag{end: -1}
		}
		vs, ve := k, k
		switch q := s[k]; q {
		case '>':
		case '\'', '"':
			e := strings.IndexByte(s[k+1:], q)
			if e < 0 {
				return lexedTag{end: -1}
			}
			vs, ve = k+1, k+1+e
			k = ve + 1
			if ve-vs >= unreadValueMin && t.nUnread < len(t.unread) && isUnreadAttr(key, selected) {
				t.unread[t.nUnread] = [2]int{vs, ve}
				t.nUnread++
			}
		default:
			for k < len(s) && !isTagSpace(s[k]) && s[k] != '>' {
				k++
			}
			ve, unquotedEnd = k, k
		}
		if !sawType && asciiFoldEqual(key, "type") {
			sawType = true
			low := strings.ToLower(s[vs:ve])
			t.keepsText = strings.Contains(low, "ld+json") || strings.IndexByte(low, '&') >= 0
		}
	}
}

// commentEnd returns where the comment whose text starts at s[i] ends,
// as the tokenizer's readComment ends it: at "-->" or "--!>", or at once
// for "<!-->" and "<!--->"; -1 when it runs to the end of the page.
func commentEnd(s string, i int) int {
	if strings.HasPrefix(s[i:], ">") {
		return i + 1
	}
	if strings.HasPrefix(s[i:], "->") {
		return i + 2
	}
	for k := i; ; {
		j := strings.Index(s[k:], "--")
		if j < 0 {
			return -1
		}
		k += j
		d := k + 2
		for d < len(s) && s[d] == '-' {
			d++
		}
		if d < len(s) && s[d] == '>' {
			return d + 1
		}
		if d+1 < len(s) && s[d] == '!' && s[d+1] == '>' {
			return d + 2
		}
		k = d
	}
}

// closeAngle returns just past the first ">" from s[i], or -1.
func closeAngle(s string, i int) int {
	if i > len(s) {
		return -1
	}
	j := strings.IndexByte(s[i:], '>')
	if j < 0 {
		return -1
	}
	return i + j + 1
}

// skipTagSpace returns the first index from k that is not white space.
func skipTagSpace(s string, k int) int {
	for k < len(s) && isTagSpace(s[k]) {
		k++
	}
	return k
}

func isTagSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\f'
}

func isASCIILetter(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}
