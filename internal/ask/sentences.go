package ask

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// abbreviations end in a full stop without ending a sentence.
var abbreviations = map[string]bool{"mr": true, "mrs": true, "ms": true, "dr": true, "st": true, "jr": true, "sr": true,
	"prof": true, "gen": true, "gov": true, "sen": true, "rep": true, "no": true, "vs": true, "etc": true, "inc": true,
	"ltd": true, "co": true, "corp": true, "mt": true, "jan": true, "feb": true, "mar": true, "apr": true, "aug": true,
	"sep": true, "sept": true, "oct": true, "nov": true, "dec": true, "e.g": true, "i.e": true, "u.s": true, "u.k": true}

// citationRun is the citations that may follow a sentence's full stop:
// "… in May. [2][3]" cites 2 and 3 for that sentence.
var citationRun = regexp.MustCompile(`^(?:\s*\[\s*\d+(?:\s*[,;–-]\s*\d+)*\s*\])+`)

// sentences splits text at sentence ends (., !, ? before a capital, a
// digit or a quote, and line breaks), keeping citations that follow a full
// stop with the sentence they close. Abbreviations and initials ("Dr.",
// "J. Smith", "U.S.") do not end a sentence.
func sentences(text string) []string {
	var out []string
	start := 0
	emit := func(end int) {
		if s := strings.TrimSpace(text[start:end]); s != "" {
			out = append(out, s)
		}
		start = end
	}
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case r == '\n':
			emit(i)
			i += size
			continue
		case r == '.' || r == '!' || r == '?' || r == '…':
			end := i + size
			for end < len(text) && strings.ContainsRune(`"”’')`, rune(text[end])) {
				end++
			}
			if m := citationRun.FindString(text[end:]); m != "" {
				end += len(m)
			}
			if r == '.' && abbreviated(text[start:i]) {
				i = end
				continue
			}
			if next := strings.TrimLeftFunc(text[end:], unicode.IsSpace); next == "" || (len(next) < len(text[end:]) && startsSentence(next)) {
				emit(end)
			}
			i = end
			continue
		}
		i += size
	}
	emit(len(text))
	return out
}

// abbreviated reports whether the text before a full stop ends in an
// abbreviation or an initial.
func abbreviated(before string) bool {
	i := strings.LastIndexFunc(before, func(r rune) bool { return unicode.IsSpace(r) || r == '(' })
	w := strings.ToLower(before[i+1:])
	if utf8.RuneCountInString(w) == 1 {
		r, _ := utf8.DecodeRuneInString(before[i+1:])
		return unicode.IsUpper(r)
	}
	return abbreviations[w]
}

func startsSentence(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsUpper(r) || unicode.IsDigit(r) || strings.ContainsRune(`"“‘'([`, r)
}
