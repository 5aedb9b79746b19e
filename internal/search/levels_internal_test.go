package search

import (
	"slices"
	"strings"
	"testing"
)

func TestWidenings_AWordAtATime(t *testing.T) {
	if got, want := widenings([]string{"a", "b", "c"}), []string{"(a & b) | (a & c) | (b & c)"}; !slices.Equal(got, want) {
		t.Errorf("three words: got %q, want %q", got, want)
	}
	if got := widenings([]string{"a", "b"}); len(got) != 0 {
		t.Errorf("two words: got %q, want none (every word, then any word)", got)
	}
	// Seven words: all but one (7 combinations); all but two (21) is past
	// the bound, so any word comes next.
	if got := widenings([]string{"a", "b", "c", "d", "e", "f", "g"}); len(got) != 1 || len(strings.Split(got[0], " | ")) != 7 {
		t.Errorf("seven words: got %q", got)
	}
}
