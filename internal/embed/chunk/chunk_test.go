package chunk_test

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/newscrawl/newscrawl/internal/embed/chunk"
)

// checkInvariants asserts what every split must satisfy: offsets address
// the body in the text, bodies fit the budget, inputs carry the title, and
// together the chunks cover every non-space character of the text.
func checkInvariants(t *testing.T, cfg chunk.Config, title, text string, got []chunk.Chunk) {
	t.Helper()
	runes := []rune(text)
	covered := make([]bool, len(runes))
	for i, c := range got {
		if c.Index != i {
			t.Fatalf("chunk %d has Index %d", i, c.Index)
		}
		if c.Start < 0 || c.End > len(runes) || c.Start >= c.End {
			t.Fatalf("chunk %d: bad offsets [%d,%d) of %d runes", i, c.Start, c.End, len(runes))
		}
		if string(runes[c.Start:c.End]) != c.Text {
			t.Fatalf("chunk %d: offsets [%d,%d) do not address its text %q", i, c.Start, c.End, c.Text)
		}
		if !utf8.ValidString(c.Text) {
			t.Fatalf("chunk %d: invalid UTF-8", i)
		}
		if n := chunk.EstimateTokens(c.Text); n > cfg.TargetTokens {
			t.Fatalf("chunk %d: %d tokens over the target %d", i, n, cfg.TargetTokens)
		}
		if title != "" && !strings.HasPrefix(c.Input, title+"\n\n") {
			t.Fatalf("chunk %d: input %q lacks the title prefix", i, c.Input)
		}
		if !strings.HasSuffix(c.Input, c.Text) {
			t.Fatalf("chunk %d: input does not end with the body", i)
		}
		if i > 0 && c.Start <= got[i-1].Start {
			t.Fatalf("chunk %d starts at %d, not after chunk %d at %d", i, c.Start, i-1, got[i-1].Start)
		}
		for j := c.Start; j < c.End; j++ {
			covered[j] = true
		}
	}
	for j, r := range runes {
		if !covered[j] && !unicode.IsSpace(r) {
			t.Fatalf("rune %d (%q) is in no chunk", j, r)
		}
	}
}

func TestSplit_EdgeCases(t *testing.T) {
	t.Parallel()
	cfg := chunk.Config{TargetTokens: 40, OverlapTokens: 10}
	sentence := "The central bank raised interest rates by a quarter point on Tuesday. "
	tests := []struct {
		name       string
		title      string
		text       string
		wantChunks int // -1: at least two
	}{
		{name: "empty", text: "", wantChunks: 0},
		{name: "only whitespace", text: " \n\n\t \n", wantChunks: 0},
		{name: "one short paragraph", title: "Rates", text: "Rates went up.", wantChunks: 1},
		{name: "one huge paragraph of sentences", title: "Rates", text: strings.Repeat(sentence, 60), wantChunks: -1},
		{name: "one huge sentence without punctuation", text: strings.Repeat("word ", 500), wantChunks: -1},
		{name: "one huge word", text: strings.Repeat("x", 2000), wantChunks: -1},
		{name: "unicode accents and emoji", title: "Café", text: strings.Repeat("Ça coûte très cher à Zürich 🚀 aujourd’hui. ", 40), wantChunks: -1},
		{name: "CJK without spaces", title: "東京", text: strings.Repeat("東京都は今日新しい政策を発表した。", 30), wantChunks: -1},
		{name: "CJK sentence without full stops", text: strings.Repeat("東京都は今日新しい政策を発表した", 30), wantChunks: -1},
		{name: "many paragraphs", text: strings.Repeat("Short paragraph here.\n\n", 50), wantChunks: -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := chunk.Split(cfg, tc.title, tc.text)
			switch {
			case tc.wantChunks >= 0 && len(got) != tc.wantChunks:
				t.Fatalf("got %d chunks, want %d", len(got), tc.wantChunks)
			case tc.wantChunks < 0 && len(got) < 2:
				t.Fatalf("got %d chunks, want at least 2", len(got))
			}
			checkInvariants(t, cfg, tc.title, tc.text, got)
		})
	}
}

func TestSplit_OverlapRepeatsTrailingSentences(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := range 30 {
		b.WriteString("Sentence number ")
		b.WriteString(strings.Repeat("x", i%5+1))
		b.WriteString(" says something about the markets today. ")
	}
	text := b.String()
	tests := []struct {
		name        string
		overlap     int
		wantOverlap bool
	}{
		{name: "with overlap", overlap: 15, wantOverlap: true},
		{name: "without overlap", overlap: 0, wantOverlap: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := chunk.Config{TargetTokens: 60, OverlapTokens: tc.overlap}
			got := chunk.Split(cfg, "", text)
			if len(got) < 3 {
				t.Fatalf("got %d chunks, want at least 3", len(got))
			}
			overlapping := 0
			for i := 1; i < len(got); i++ {
				if got[i].Start < got[i-1].End {
					overlapping++
				}
			}
			if tc.wantOverlap && overlapping != len(got)-1 {
				t.Fatalf("%d of %d chunk boundaries overlap, want all", overlapping, len(got)-1)
			}
			if !tc.wantOverlap && overlapping != 0 {
				t.Fatalf("%d chunk boundaries overlap, want none", overlapping)
			}
		})
	}
}

func TestSplit_ParagraphsStayWhole(t *testing.T) {
	t.Parallel()
	p1 := "First paragraph about the election results in the north."
	p2 := "Second paragraph about the weather on the coast this week."
	got := chunk.Split(chunk.Config{TargetTokens: 20, OverlapTokens: -1}, "T", p1+"\n\n"+p2)
	if len(got) != 2 || got[0].Text != p1 || got[1].Text != p2 {
		t.Fatalf("got %+v, want the two paragraphs as two chunks", got)
	}
}

func TestEstimateTokens(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want int
	}{
		{"", 0},
		{"a b c", 3},
		{"abcdefgh", 2},
		{"東京都", 3},
	}
	for _, tc := range tests {
		if got := chunk.EstimateTokens(tc.in); got != tc.want {
			t.Errorf("EstimateTokens(%q) = %d, want %d", tc.in, got, tc.want)
		}
	}
}

func FuzzSplit(f *testing.F) {
	f.Add("Title", "One. Two! Three?\n\nFour… five")
	f.Add("", strings.Repeat("東京。", 50))
	f.Fuzz(func(t *testing.T, title, text string) {
		if !utf8.ValidString(text) || !utf8.ValidString(title) {
			return
		}
		cfg := chunk.Config{TargetTokens: 20, OverlapTokens: 5}
		checkInvariants(t, cfg, strings.TrimSpace(title), text, chunk.Split(cfg, title, text))
	})
}
