package heuristic

import (
	"math"
	"sort"
	"strings"
	"unicode"
)

// stopwords are English function words never used as keywords.
var stopwords = set("a", "about", "above", "after", "again", "against", "all", "also", "am", "an", "and", "any",
	"are", "as", "at", "be", "because", "been", "before", "being", "below", "between", "both", "but", "by",
	"can", "could", "did", "do", "does", "doing", "down", "during", "each", "few", "for", "from", "further",
	"had", "has", "have", "having", "he", "her", "here", "hers", "herself", "him", "himself", "his", "how",
	"however", "i", "if", "in", "into", "is", "it", "its", "itself", "just", "last", "like", "made", "make",
	"many", "may", "me", "might", "more", "most", "much", "must", "my", "new", "no", "nor", "not", "now", "of",
	"off", "on", "once", "one", "only", "or", "other", "our", "ours", "out", "over", "own", "said", "same",
	"says", "she", "should", "since", "so", "some", "still", "such", "than", "that", "the", "their", "them",
	"then", "there", "these", "they", "this", "those", "through", "to", "too", "two", "under", "until", "up",
	"very", "was", "we", "were", "what", "when", "where", "which", "while", "who", "whom", "why", "will",
	"with", "would", "year", "years", "you", "your", "told", "according", "added", "week", "day", "time",
	"people", "first", "three", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
	"yesterday", "today", "mr", "mrs", "ms", "dr", "get", "got", "going", "back", "well", "even", "around",
	"another", "us", "way", "take", "took", "know", "see", "set", "use", "used", "say", "including", "called", "without", "within", "among", "against", "amid", "across", "near")

// tokens lower-cases text into words of letters, digits and inner hyphens.
func tokens(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-'
	})
}

// keywords scores terms by frequency (title terms count thrice; entity
// names take part as whole phrases) and returns the top n.
func keywords(title string, words []string, ents entities, n int, english bool) []string {
	score := map[string]float64{}
	isContent := func(w string) bool {
		w = strings.Trim(w, "-")
		return len([]rune(w)) >= 3 && !stopwords[w] && !isNumber(w) && (english || len([]rune(w)) >= 5)
	}
	for _, w := range words {
		if isContent(w) {
			score[w]++
		}
	}
	for _, w := range tokens(title) {
		if isContent(w) {
			score[w] += 3
		}
	}
	// Entity phrases outrank their parts: a phrase takes its best word's score.
	for _, list := range [][]string{ents.people, ents.orgs, ents.places} {
		for i, name := range list {
			if i >= 5 || !strings.Contains(name, " ") {
				continue
			}
			best := 0.0
			for _, w := range tokens(name) {
				best = math.Max(best, score[w])
				delete(score, w)
			}
			if best > 0 {
				score[strings.ToLower(name)] = best + 0.5
			}
		}
	}
	type kv struct {
		k string
		v float64
	}
	var all []kv
	for k, v := range score {
		if v >= 2 {
			all = append(all, kv{k, v})
		}
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].v != all[j].v {
			return all[i].v > all[j].v
		}
		return all[i].k < all[j].k
	})
	out := []string{}
	for _, e := range all {
		if len(out) == n {
			break
		}
		out = append(out, e.k)
	}
	return out
}

func isNumber(w string) bool {
	for _, r := range w {
		if !unicode.IsDigit(r) && r != '-' {
			return false
		}
	}
	return true
}
