package ask

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A token is one word of a text: its stem for matching, and whether it is
// a number or a name (capitalised inside a sentence), which a claim must
// not change.
type token struct {
	stem   string
	number bool
	name   bool
}

var wordPattern = regexp.MustCompile(`\d+(?:[.,]\d+)*|[\p{L}\p{M}]+(?:['’][\p{L}]+)*`)

// tokens splits text into words. Numbers keep their digits whole ("1,200"
// and "1200" are one number; "3.5" stays 3.5); number words up to twenty
// are numbers too, so "three" matches "3". A capitalised word is a name
// unless it opens a sentence.
func tokens(text string) []token {
	var out []token
	for _, m := range wordPattern.FindAllStringIndex(text, -1) {
		w := text[m[0]:m[1]]
		if r, _ := utf8.DecodeRuneInString(w); unicode.IsDigit(r) {
			out = append(out, token{stem: strings.ReplaceAll(w, ",", ""), number: true})
			continue
		}
		w = strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "’s")
		lower := strings.ToLower(w)
		if n, ok := numberWords[lower]; ok {
			out = append(out, token{stem: n, number: true})
			continue
		}
		r, _ := utf8.DecodeRuneInString(w)
		out = append(out, token{stem: stem(lower), name: unicode.IsUpper(r) && !opensSentence(text[:m[0]]) && !stopword[lower]})
	}
	return out
}

// opensSentence reports whether a word after before starts a sentence.
func opensSentence(before string) bool {
	before = strings.TrimRightFunc(before, func(r rune) bool { return unicode.IsSpace(r) || strings.ContainsRune("\"“'‘([", r) })
	if before == "" {
		return true
	}
	r, _ := utf8.DecodeLastRuneInString(before)
	return strings.ContainsRune(".!?:;]", r)
}

var numberWords = map[string]string{"zero": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5",
	"six": "6", "seven": "7", "eight": "8", "nine": "9", "ten": "10", "eleven": "11", "twelve": "12",
	"thirteen": "13", "fourteen": "14", "fifteen": "15", "sixteen": "16", "seventeen": "17", "eighteen": "18",
	"nineteen": "19", "twenty": "20"}

// stem strips the English inflections that questions and articles vary
// on ("approves", "approved", "approving" → "approv"); it is a matcher's
// key, not a word. Short words are kept whole.
func stem(w string) string {
	if utf8.RuneCountInString(w) <= 4 {
		return w
	}
	for _, suf := range []string{"ations", "ation", "ings", "ing", "ies", "ied", "ers", "er", "es", "ed", "ly", "s", "e"} {
		if s, ok := strings.CutSuffix(w, suf); ok && utf8.RuneCountInString(s) >= 4 {
			switch suf {
			case "ies", "ied":
				return s + "y"
			}
			return s
		}
	}
	return w
}

// stopword holds the words that carry no topic: function words, and the
// words a question is phrased with ("what did … decide", "tell me").
var stopword = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an and are as at be been being but by for from had has have having he her hers him his
		i in is it its itself of on or she that the their theirs them there these they this those to was were which who whom
		whose will with would you your yours we our ours not no nor than then so if into about after before also over under
		more most can could may might must shall should do does did done doing up out what when where why how any all some
		such only own same too very just now me my mine us let get got one's ever yet still again further once here both each
		few other many much between through during above below off against until while because tell know said says say
		saying told happen happened happening decide decided decision news article articles report reported reports story
		latest recent recently new old week weeks month months year years day days today yesterday tomorrow last past next
		since ago early late anything something everything nothing anyone someone thing things way ways kind please explain
		give show find list describe summarise summarize summary info information details detail whether`) {
		m[w] = true
	}
	return m
}()

// contentWords are the text's words that carry its topic, stemmed, once each.
func contentWords(text string) []token {
	var out []token
	seen := map[string]bool{}
	for _, t := range tokens(text) {
		if (!t.number && (stopword[t.stem] || utf8.RuneCountInString(t.stem) < 2)) || seen[t.stem] {
			continue
		}
		seen[t.stem] = true
		out = append(out, t)
	}
	return out
}

// stems is the set of text's stems, and of its pairs of adjacent stems
// (under pairKey), so a name of two words can be matched as one.
func stems(text string) map[string]bool {
	m := map[string]bool{}
	prev := ""
	for _, t := range tokens(text) {
		m[t.stem] = true
		if prev != "" {
			m[pairKey(prev, t.stem)] = true
		}
		prev = t.stem
	}
	return m
}

// pairKey is the key of two adjacent stems; it starts with a byte no stem
// starts with.
func pairKey(a, b string) string { return "\x00" + a + " " + b }

// namePairs are the pairs of adjacent names in text ("Thornham
// Wanderers"), as pairKeys.
func namePairs(text string) []string {
	var out []string
	ts := tokens(text)
	for i := 1; i < len(ts); i++ {
		if ts[i-1].name && ts[i].name {
			out = append(out, pairKey(ts[i-1].stem, ts[i].stem))
		}
	}
	return out
}
