package article

import (
	"encoding/json"
	"strings"

	"golang.org/x/net/html/atom"
)

// Analytics scripts declare a story's writer for their reports where the
// page itself shows no byline: WordPress's GTM4WP plugin writes the post
// author's display name into its data layer ("pagePostAuthor":"Jane
// Roe"), and Chartbeat's configuration names the authors
// (_sf_async_config.authors = "Jane Roe, John Doe"). The CMS filled both
// from its own author record, so they are read as a credit, but last:
// a credit the reader sees comes first.
var analyticsKeys = []struct{ key, quotes string }{
	{`"pagePostAuthor":`, `"`},
	{`_sf_async_config.authors`, `"'`},
}

// analyticsAuthors returns the author names that inline scripts declare
// under analyticsKeys, the first script that has one. A slug
// ("jane-roe") or an empty value names no one.
func (pm *pageMeta) analyticsAuthors() []string {
	for _, n := range pm.nodes {
		if n.DataAtom != atom.Script || n.FirstChild == nil || hasAttr(n, "src") {
			continue
		}
		code := n.FirstChild.Data
		for _, k := range analyticsKeys {
			i := strings.Index(code, k.key)
			if i < 0 {
				continue
			}
			if name := quotedValue(code[i+len(k.key):], k.quotes); strings.ContainsFunc(name, isNameSpaceOrUpper) {
				return []string{name}
			}
		}
	}
	return nil
}

// quotedValue reads the string literal that opens rest after blanks and
// an "=" (JavaScript) or nothing (JSON): "Jane Roe" in ` = "Jane Roe";`.
// It returns "" where rest opens with no literal in one of quotes.
func quotedValue(rest, quotes string) string {
	rest = strings.TrimLeft(rest, " \t=")
	if rest == "" || !strings.ContainsRune(quotes, rune(rest[0])) {
		return ""
	}
	q := rest[0]
	end := 1
	for end < len(rest) && end < 200 && rest[end] != q {
		if rest[end] == '\\' {
			end++
		}
		end++
	}
	if end >= len(rest) || rest[end] != q {
		return ""
	}
	lit := rest[:end+1]
	if q == '\'' { // as JSON: unescape the quotes, then escape the double ones
		inner := strings.NewReplacer(`\'`, `'`, `\"`, `"`).Replace(lit[1:end])
		lit = `"` + strings.ReplaceAll(inner, `"`, `\"`) + `"`
	}
	var s string
	if json.Unmarshal([]byte(lit), &s) != nil {
		return ""
	}
	return strings.TrimSpace(s)
}

// isNameSpaceOrUpper is true for a blank or a capital letter: a name has
// one, a slug ("jane-roe") neither.
func isNameSpaceOrUpper(r rune) bool {
	return r == ' ' || r >= 'A' && r <= 'Z' || r > 0x7f
}
