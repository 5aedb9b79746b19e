package article

import (
	"strings"
	"testing"
)

func FuzzJoinFields(f *testing.F) {
	for _, s := range []string{"", " ", "a", " a  b\t\nc ", "x\u00a0y\u0085z\u2003w", "\xff \xfe", "\v\fq\r", "ü ü"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := joinFields(s), strings.Join(strings.Fields(s), " "); got != want {
			t.Fatalf("joinFields(%q) = %q, want %q", s, got, want)
		}
	})
}

// A zero-width joiner or non-joiner spells a word in scripts past Latin
// (Persian's "می‌یابد", an emoji family) and stays, in the text and in
// the title; between Latin letters it is a stray and goes.
func TestJoinersStayWhereTheySpell(t *testing.T) {
	persian := "جیره\u200cبندی آب در شب\u200cها گسترش می\u200cیابد"
	page := `<html lang="fa"><head><title>` + persian + `</title></head><body><article><h1>` + persian + `</h1>` +
		pTags(articleParas(4)) + "<p>خانواده\u200cها در تهران می\u200cگویند آب شب\u200cها قطع می\u200cشود 👨\u200d👩\u200d👧 و co\u200cop\u200dera\u200ction.</p></article></body></html>"
	a := mustExtract(t, page, "https://example.com/fa/news/1")
	if a.Title != persian {
		t.Errorf("Title = %q, want %q", a.Title, persian)
	}
	for _, want := range []string{"خانواده\u200cها", "می\u200cگویند", "👨\u200d👩\u200d👧", " cooperation."} {
		if !strings.Contains(a.Text, want) {
			t.Errorf("text lacks %q:\n%q", want, a.Text)
		}
	}
}
