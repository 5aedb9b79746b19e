package ask

import (
	"maps"
	"regexp"
	"sort"
)

// when and how-much questions want a sentence that holds a date or a
// number.
var (
	asksWhen    = regexp.MustCompile(`(?i)^\W*when\b|\bwhat (day|date|time|year|month)\b|\bhow long\b`)
	asksAmount  = regexp.MustCompile(`(?i)\bhow (much|many|big|large|high|far|long|old)\b|\bwhat (was|is) the (cost|price|number|total|figure|toll|amount|score)\b`)
	holdsDate   = regexp.MustCompile(`(?i)\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday|yesterday|today|` + monthNames + `|\d{4}-\d\d-\d\d)\b`)
	holdsNumber = regexp.MustCompile(`\d`)
)

// A candidate is one sentence of a source that may answer.
type candidate struct {
	text   string
	source int // Source.N
	score  float64
	stems  map[string]bool
}

// extractive answers from the sources' own sentences: the ones that hold
// most of the question's weighted words, from the sources close enough to
// answer, each citing its source. They are checked like a model's.
func (a *Asker) extractive(ans *Answer, words []token, weights []float64) {
	var cands []candidate
	for _, src := range ans.Sources {
		if src.Relevance < a.cfg.MinRelevance {
			continue
		}
		for i, s := range sentences(src.passage) {
			st := stems(s)
			score := coverage(st, words, weights) + 0.3*src.Relevance
			if i == 0 {
				score += 0.05 // a lede says what happened
			}
			if asksWhen.MatchString(ans.Question) && holdsDate.MatchString(s) {
				score += 0.15
			}
			if asksAmount.MatchString(ans.Question) && holdsNumber.MatchString(s) {
				score += 0.15
			}
			cands = append(cands, candidate{text: s, source: src.N, score: score, stems: st})
		}
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].score > cands[j].score })
	if len(cands) == 0 {
		return
	}
	// The best sentence first; then, while the answer lacks words of the
	// question, the sentence that adds the most of them ("how much did the
	// repairs cost" needs the sentence with the cost after the lede).
	picked := []candidate{cands[0]}
	covered := maps.Clone(cands[0].stems)
	perSource := map[int]int{cands[0].source: 1}
	for len(picked) < maxSentences {
		best, gain := -1, 0.0
		for i, c := range cands {
			if perSource[c.source] == 2 || repeats(c, picked) {
				continue
			}
			if g := added(covered, c.stems, words, weights); g > gain+1e-9 {
				best, gain = i, g
			}
		}
		if best < 0 {
			break
		}
		c := cands[best]
		picked = append(picked, c)
		perSource[c.source]++
		maps.Copy(covered, c.stems)
	}
	for _, c := range picked {
		ok := supports(ans.Sources[c.source-1].passage, c.text)
		ans.Sentences = append(ans.Sentences, Sentence{Text: c.text, Citations: []int{c.source}, Supported: ok})
		if ok {
			ans.Supported++
		}
	}
	ans.Mode, ans.Total = ModeExtractive, len(ans.Sentences)
}

// added is the weight of the question's words that have holds and
// covered lacks.
func added(covered, have map[string]bool, words []token, weights []float64) float64 {
	g := 0.0
	for i, w := range words {
		in := func(m map[string]bool) bool { return m[w.stem] || (!w.number && prefixed(m, w.stem)) }
		if in(have) && !in(covered) {
			g += weights[i]
		}
	}
	return g
}

// repeats reports whether c says mostly what a picked sentence says (the
// same sentence in a copy, or a chunk's overlap).
func repeats(c candidate, picked []candidate) bool {
	for _, p := range picked {
		shared := 0
		for s := range c.stems {
			if p.stems[s] {
				shared++
			}
		}
		if float64(shared) > 0.6*float64(min(len(c.stems), len(p.stems))) {
			return true
		}
	}
	return false
}
