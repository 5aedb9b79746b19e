package provider_test

import (
	"strings"
	"testing"

	"github.com/newscrawl/newscrawl/internal/extract/provider"
)

func TestSentences_SplitsOnEndsNotAbbreviations(t *testing.T) {
	t.Parallel()
	text := "Mr. Smith met Dr. J. Doe in the U.S. capital on Monday. \"It went well,\" he said! Was it?\nNew paragraph"
	got := provider.Sentences(text)
	want := []string{"Mr. Smith met Dr. J. Doe in the U.S. capital on Monday.", "\"It went well,\" he said!", "Was it?", "New paragraph"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("Sentences:\n got %q\nwant %q", got, want)
	}
}

func TestCutAtSentence_CutsAtBoundary(t *testing.T) {
	t.Parallel()
	text := "First sentence here. Second sentence is here. Third one is long enough to pass the budget."
	cases := []struct {
		name    string
		max     int
		want    string
		wantCut bool
	}{
		{"no budget", 0, text, false},
		{"fits", len(text), text, false},
		{"two sentences", 60, "First sentence here. Second sentence is here.", true},
		{"one long sentence", 15, "First sentence", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, cut := provider.CutAtSentence(text, tc.max)
			if got != tc.want || cut != tc.wantCut {
				t.Fatalf("CutAtSentence(%d) = %q, %v; want %q, %v", tc.max, got, cut, tc.want, tc.wantCut)
			}
		})
	}
}
