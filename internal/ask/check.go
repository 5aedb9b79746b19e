package ask

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// minSupport is the share of a claim's content words its cited text must
// hold; every name and number must be there as well.
const minSupport = 0.7

// supports reports whether text (a source's passage, instructions taken
// out) backs the claim: every number and every name of the claim is in
// it, and at least minSupport of its other content words. A claim with no
// content words (“Yes.”) is not supported: it says nothing checkable.
func supports(text, claim string) bool {
	have := stems(text)
	words := contentWords(claim)
	if len(words) == 0 {
		return false
	}
	found, plain := 0, 0
	for _, w := range words {
		ok := have[w.stem] || (!w.number && prefixed(have, w.stem))
		if (w.number || w.name) && !ok {
			return false
		}
		plain++
		if ok {
			found++
		}
	}
	return float64(found) >= minSupport*float64(plain)
}

// prefixed reports whether a stem of five or more letters is the start
// of one in have, or the other way round ("approv" and "approval").
func prefixed(have map[string]bool, s string) bool {
	if len(s) < 5 {
		return false
	}
	for h := range have {
		if len(h) >= 5 && (strings.HasPrefix(h, s) || strings.HasPrefix(s, h)) {
			return true
		}
	}
	return false
}

var (
	citationGroup = regexp.MustCompile(`\[\s*\d+(?:\s*[,;–-]\s*\d+)*\s*\]`)
	citationNum   = regexp.MustCompile(`\d+`)
	// link is what a model may write to point somewhere: a Markdown link,
	// a URL, a www. name or a bare domain with a path.
	markdownLink = regexp.MustCompile(`\[([^\]]*)\]\((?:[^()\s]|\([^()\s]*\))*\)`)
	link         = regexp.MustCompile(`(?i)\b(?:[a-z][a-z0-9+.-]*://|www\.|mailto:)\S+|\b[a-z0-9-]+(?:\.[a-z0-9-]+)*\.(?:com|org|net|io|info|biz|co|xyz|ru|cn|example|test|local|[a-z]{2})/\S*`)
)

// citations takes the [n] markers out of a sentence and returns its text
// and the numbers cited, in order, once each. "[2, 3]" and "[2-4]" cite
// several; a range cites at most 20 numbers.
func citations(s string) (string, []int) {
	var cited []int
	add := func(n int) {
		if !slices.Contains(cited, n) {
			cited = append(cited, n)
		}
	}
	text := citationGroup.ReplaceAllStringFunc(s, func(g string) string {
		nums := citationNum.FindAllString(g, -1)
		if len(nums) == 2 && strings.ContainsAny(g, "-–") {
			a, _ := strconv.Atoi(nums[0])
			b, _ := strconv.Atoi(nums[1])
			for n := a; n <= b && n-a < 20; n++ {
				add(n)
			}
			return ""
		}
		for _, d := range nums {
			n, _ := strconv.Atoi(d)
			add(n)
		}
		return ""
	})
	return tidy(text), cited
}

// stripLinks removes every link from a model's sentence: the answer shows
// only the sources the server lists. It reports whether there was one.
func stripLinks(s string) (string, bool) {
	out := markdownLink.ReplaceAllString(s, "$1")
	out = link.ReplaceAllString(out, "")
	return tidy(out), out != s
}

// tidy closes the gaps that removed markers leave: "cost 3 million ."
// becomes "cost 3 million.".
func tidy(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	for _, p := range []string{".", ",", ";", ":", "!", "?", ")"} {
		s = strings.ReplaceAll(s, " "+p, p)
	}
	if !strings.Contains(s, "...") { // a citation between two full stops
		s = strings.ReplaceAll(s, "..", ".")
	}
	return strings.TrimSpace(s)
}
