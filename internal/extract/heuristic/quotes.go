package heuristic

import (
	"regexp"
	"strings"

	"github.com/newscrawl/newscrawl/internal/extract/schema"
)

// quoted matches text in curly or straight double quotes.
var quoted = regexp.MustCompile(`“([^”]{10,600})”|"([^"]{10,600})"`)

// findQuotes returns direct quotes of at least five words, with the
// speaker when a known person (or a surname of one) is named in the same
// sentence; otherwise the speaker is null.
func findQuotes(sentences []string, ents entities) []schema.Quote {
	var out []schema.Quote
	for i, s := range sentences {
		for _, m := range quoted.FindAllStringSubmatch(s, -1) {
			text := m[1] + m[2]
			if len(strings.Fields(text)) < 5 {
				continue
			}
			ctx := quoted.ReplaceAllString(s, " ")
			if strings.TrimSpace(strings.Trim(ctx, " ,.")) == "" && i+1 < len(sentences) {
				ctx = sentences[i+1] // "…," he said. on the next line
			}
			q := schema.Quote{Text: strings.TrimSpace(text)}
			if sp := speakerIn(ctx, ents); sp != "" {
				q.Speaker = &sp
			}
			out = append(out, q)
		}
	}
	return out
}

// speakerIn finds the person named in a quote's surrounding text.
func speakerIn(ctx string, ents entities) string {
	for _, p := range ents.people {
		if strings.Contains(ctx, p) {
			return p
		}
	}
	for _, w := range strings.Fields(ctx) {
		if full, ok := ents.surnames[cleanWord(w)]; ok {
			return full
		}
	}
	return ""
}
