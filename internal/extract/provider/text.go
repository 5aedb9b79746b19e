package provider

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// abbreviations end with a period without ending a sentence.
var abbreviations = map[string]bool{
	"mr": true, "mrs": true, "ms": true, "dr": true, "prof": true, "sr": true, "jr": true, "st": true,
	"gen": true, "gov": true, "sen": true, "rep": true, "lt": true, "col": true, "sgt": true, "capt": true,
	"inc": true, "ltd": true, "co": true, "corp": true, "vs": true, "etc": true, "no": true, "fig": true,
	"jan": true, "feb": true, "mar": true, "apr": true, "jun": true, "jul": true, "aug": true, "sep": true,
	"sept": true, "oct": true, "nov": true, "dec": true, "u.s": true, "u.k": true, "e.g": true, "i.e": true,
	"a.m": true, "p.m": true, "mt": true, "ft": true,
}

// sentenceEnds returns the byte offsets just after each sentence end in
// text: after ., ! or ? (and closing quotes or brackets) followed by space
// and an upper-case letter, digit or opening quote, or at a line break.
func sentenceEnds(text string) []int {
	var ends []int
	for i := 0; i < len(text); {
		r, w := utf8.DecodeRuneInString(text[i:])
		switch {
		case r == '\n':
			ends = append(ends, i)
		case r == '.' || r == '!' || r == '?' || r == '…' || r == '。':
			j := i + w
			for j < len(text) {
				c, cw := utf8.DecodeRuneInString(text[j:])
				if !strings.ContainsRune(`"'”’)]»`, c) {
					break
				}
				j += cw
			}
			if j >= len(text) {
				ends = append(ends, j)
				break
			}
			if r == '.' && isAbbreviation(text[:i]) {
				break
			}
			next, _ := utf8.DecodeRuneInString(text[j:])
			if r == '。' || unicode.IsSpace(next) && startsSentence(strings.TrimLeftFunc(text[j:], unicode.IsSpace)) {
				ends = append(ends, j)
			}
		}
		i += w
	}
	if len(ends) == 0 || ends[len(ends)-1] < len(strings.TrimRightFunc(text, unicode.IsSpace)) {
		ends = append(ends, len(text))
	}
	return ends
}

func isAbbreviation(before string) bool {
	k := strings.LastIndexFunc(before, func(r rune) bool { return unicode.IsSpace(r) || r == '(' })
	word := strings.ToLower(before[k+1:])
	if abbreviations[word] {
		return true
	}
	// Single initials ("J. Smith").
	return utf8.RuneCountInString(word) == 1 && unicode.IsLetter([]rune(word)[0])
}

func startsSentence(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsUpper(r) || unicode.IsDigit(r) || strings.ContainsRune(`"'“‘«(¿¡`, r) || unicode.Is(unicode.Han, r)
}

// Sentences splits text into trimmed, non-empty sentences.
func Sentences(text string) []string {
	var out []string
	prev := 0
	for _, e := range sentenceEnds(text) {
		if s := strings.TrimSpace(text[prev:e]); s != "" {
			out = append(out, s)
		}
		prev = e
	}
	return out
}

// CutAtSentence cuts text to at most maxChars bytes, at the last sentence
// end within the budget (or the last word boundary when a single sentence
// is longer). cut reports whether anything was removed; maxChars ≤ 0 means
// no budget.
func CutAtSentence(text string, maxChars int) (out string, cut bool) {
	if maxChars <= 0 || len(text) <= maxChars {
		return text, false
	}
	best := 0
	for _, e := range sentenceEnds(text[:maxChars+1]) {
		if e <= maxChars && e < len(text) {
			best = e
		}
	}
	if best == 0 || best < maxChars/2 {
		// One long sentence: cut at the last space instead.
		if k := strings.LastIndexFunc(text[:maxChars], unicode.IsSpace); k > maxChars/2 {
			best = k
		} else {
			best = maxChars
			for best > 0 && !utf8.RuneStart(text[best]) {
				best--
			}
		}
	}
	return strings.TrimRightFunc(text[:best], unicode.IsSpace), true
}
