package heuristic

import (
	"strings"
	"testing"
)

// The stem index finds, for every word, exactly the topics that trying
// each stem of each topic in turn finds.
func TestStemIndex_MatchesEveryStemTried(t *testing.T) {
	var words []string
	for _, ss := range topicStems {
		for _, s := range ss {
			for _, f := range strings.Fields(s) {
				words = append(words, f, f+"s", f+"ing", f[:len(f)-1], "x"+f)
			}
		}
	}
	words = append(words, "war", "wars", "wartime", "warm", "warning", "ward", "", "a")
	for _, w := range words {
		want := map[string]bool{}
		for topic, ss := range topicStems {
			for _, s := range ss {
				if !strings.Contains(s, " ") && strings.HasPrefix(w, s) && (s != "war" || w == "war" || w == "wars" || w == "wartime") {
					want[topic] = true
				}
			}
		}
		got := map[string]bool{}
		for i, topic := range stems.topics {
			if stems.match(w)&(1<<i) != 0 {
				got[topic] = true
			}
		}
		if len(got) != len(want) {
			t.Fatalf("%q: topics %v, want %v", w, got, want)
		}
		for topic := range want {
			if !got[topic] {
				t.Fatalf("%q: topics %v, want %v", w, got, want)
			}
		}
	}
}
