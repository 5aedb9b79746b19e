package search

import (
	"slices"
	"testing"
)

func TestMatchLevels_WidenAWordAtATime(t *testing.T) {
	got := matchLevels([]string{"a", "b", "c"})
	want := []string{"a & b & c", "(a & b) | (a & c) | (b & c)", "a | b | c"}
	if !slices.Equal(got, want) {
		t.Errorf("three words: got %q, want %q", got, want)
	}
	if got := matchLevels([]string{"a"}); !slices.Equal(got, []string{"a"}) {
		t.Errorf("one word: got %q", got)
	}
	// Seven words: all but one (7 combinations) and all but two (21, past
	// the bound) — so every word, all but one, then any word.
	if got := matchLevels([]string{"a", "b", "c", "d", "e", "f", "g"}); len(got) != 3 || got[2] != "a | b | c | d | e | f | g" {
		t.Errorf("seven words: got %d levels %q", len(got), got)
	}
}
