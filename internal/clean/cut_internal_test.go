package clean

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCutText(t *testing.T) {
	if got, from := cutText("short text", 100); got != "short text" || from != 0 {
		t.Fatalf("within the limit: %q, %d", got, from)
	}
	para := strings.Repeat("ä word ", 20) // 140 characters, 2 bytes for ä
	text := para + "\n" + para + "\n" + para
	got, from := cutText(text, 300)
	if from != utf8.RuneCountInString(text) {
		t.Errorf("from = %d, want the original %d characters", from, utf8.RuneCountInString(text))
	}
	if got != strings.TrimRight(para+"\n"+para, " ") {
		t.Errorf("cut %q, want the first two paragraphs", got)
	}
	if !utf8.ValidString(got) || utf8.RuneCountInString(got) > 300 {
		t.Errorf("cut is %d characters or invalid UTF-8", utf8.RuneCountInString(got))
	}
	one := strings.Repeat("ü", 500) // no break at all: a hard cut on a character boundary
	if got, _ := cutText(one, 100); utf8.RuneCountInString(got) != 100 || !utf8.ValidString(got) {
		t.Errorf("hard cut: %d characters, valid %v", utf8.RuneCountInString(got), utf8.ValidString(got))
	}
}
