package article

import (
	"strings"
	"unicode"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// words splits s into lower-cased runs of letters and digits.
func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// overlap is the share of ws found in set.
func overlap(ws []string, set map[string]struct{}) float64 {
	if len(ws) == 0 {
		return 0
	}
	n := 0
	for _, w := range ws {
		if _, ok := set[w]; ok {
			n++
		}
	}
	return float64(n) / float64(len(ws))
}

// ldBodyText turns a JSON-LD articleBody (plain text or HTML) into paragraphs.
func ldBodyText(body string) []block {
	if strings.Contains(body, "</") || strings.Contains(body, "<p") || strings.Contains(body, "<br") {
		if doc, err := html.Parse(strings.NewReader(body)); err == nil {
			return renderBlocks([]*html.Node{doc}, nil, newBudget(DefaultMaxWork, DefaultTimeout))
		}
	}
	var out []block
	for _, p := range strings.Split(body, "\n") {
		if p = cleanInline(html.UnescapeString(p)); p != "" {
			r, _ := measureText(p)
			out = append(out, block{text: p, runes: r})
		}
	}
	return out
}

// reconcileLD uses the publisher's own articleBody to check the DOM
// result: blocks absent from a complete articleBody are boilerplate, and a
// DOM result that misses most of a longer articleBody is replaced by it.
func reconcileLD(blocks []block, ldBody string) []block {
	ld := ldBodyText(ldBody)
	var sb strings.Builder
	for _, b := range ld {
		sb.WriteString(b.text)
		sb.WriteByte(' ')
	}
	ldWords := words(sb.String())
	if len(ldWords) < 50 {
		return blocks
	}
	ldSet := make(map[string]struct{}, len(ldWords))
	for _, w := range ldWords {
		ldSet[w] = struct{}{}
	}
	var domAll strings.Builder
	for _, b := range blocks {
		domAll.WriteString(b.text)
		domAll.WriteByte(' ')
	}
	domWords := words(domAll.String())
	domSet := make(map[string]struct{}, len(domWords))
	for _, w := range domWords {
		domSet[w] = struct{}{}
	}
	covered := overlap(ldWords, domSet) // how much of the LD body the DOM has
	if covered < 0.5 && len(ldWords)*10 > len(domWords)*13 {
		return ld
	}
	// Filter only with a complete articleBody: a truncated one (a teaser)
	// is much shorter than the DOM text and would cut real paragraphs.
	if covered < 0.85 || len(ldWords)*10 < len(domWords)*7 {
		return blocks
	}
	// Drop DOM blocks the articleBody does not contain.
	kept := make([]block, 0, len(blocks))
	keptWords, dropped := 0, 0
	for _, b := range blocks {
		ws := words(b.text)
		if len(ws) >= 4 && overlap(ws, ldSet) < 0.5 && !inQuote(b.node) {
			dropped += len(ws)
			continue
		}
		keptWords += len(ws)
		kept = append(kept, b)
	}
	if dropped == 0 || keptWords*10 < len(ldWords)*8 || dropped*10 > len(domWords)*3 {
		return blocks
	}
	return kept
}

// inQuote reports text inside a blockquote: quoted posts are part of the
// story but usually missing from articleBody.
func inQuote(n *html.Node) bool {
	return n.DataAtom == atom.Blockquote || enclosedBy(n, atom.Blockquote)
}
