package extract

import (
	"strings"
	"unicode"

	"github.com/newscrawl/newscrawl/internal/extract/schema"
)

// grounder checks that names and quotes occur in the article, so a model
// (or an instruction hidden in the article) cannot add facts the text lacks.
type grounder struct{ text string }

var quoteFolds = strings.NewReplacer("’", "'", "‘", "'", "“", `"`, "”", `"`, "«", `"`, "»", `"`, "–", "-", "—", "-")

func fold(s string) string {
	s = strings.ToLower(quoteFolds.Replace(s))
	return strings.Join(strings.Fields(s), " ")
}

func newGrounder(parts ...string) grounder { return grounder{text: fold(strings.Join(parts, "\n"))} }

func (g grounder) has(s string) bool {
	s = strings.TrimFunc(fold(s), func(r rune) bool { return unicode.IsPunct(r) || unicode.IsSpace(r) })
	return s != "" && strings.Contains(g.text, s)
}

func (g grounder) keep(list []string, dropped *int) []string {
	out := list[:0:0]
	for _, s := range list {
		if g.has(s) {
			out = append(out, s)
		} else {
			*dropped++
		}
	}
	return out
}

// ground removes authors, people, organizations, locations and quotes that
// the article does not contain, and speakers it does not name; it returns
// how many it removed.
func (g grounder) ground(e *schema.Extraction) int {
	dropped := 0
	e.Authors = g.keep(e.Authors, &dropped)
	e.People = g.keep(e.People, &dropped)
	e.Organizations = g.keep(e.Organizations, &dropped)
	e.Locations = g.keep(e.Locations, &dropped)
	quotes := e.Quotes[:0:0]
	for _, q := range e.Quotes {
		if !g.has(q.Text) {
			dropped++
			continue
		}
		if q.Speaker != nil && !g.has(*q.Speaker) {
			q.Speaker = nil
			dropped++
		}
		quotes = append(quotes, q)
	}
	e.Quotes = quotes
	return dropped
}
