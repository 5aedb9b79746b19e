package article

import (
	"strings"
	"testing"
)

func TestRepairMojibake(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"curly quotes and dashes read as Windows-1252", "letâ€™s go â€” now â€œquotedâ€\u009d", "let’s go — now “quoted”"},
		{"the five undefined bytes come through as C1 controls", "youâ\u0080\u0099re here â\u0080\u0093 today", "you’re here – today"},
		{"accented letters", "cafÃ© crÃ¨me, SeÃ±or, Ã…land", "café crème, Señor, Åland"},
		{"a no-break space and the euro sign", "10Â\u00a0km for â‚¬14", "10\u00a0km for €14"},
		{"clean text is left alone", "Café, naïve, “quoted” – São Paulo, SÃO PAULO", "Café, naïve, “quoted” – São Paulo, SÃO PAULO"},
		{"an accented capital before a closing quote spells nothing", "“CAFÉ” and “PÂTÉ—”", "“CAFÉ” and “PÂTÉ—”"},
		{"a lead letter at the very end", "abc Ã", "abc Ã"},
		{"symbols: arrows, comparison, degrees", "A â†’ B, x â‰¤ 3, 20 â„ƒ", "A → B, x ≤ 3, 20 ℃"},
		{"a zero-width joiner read as Latin-1", "â\u0080\u008dBusiness Plan", "\u200dBusiness Plan"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := repairMojibake(tc.in); got != tc.want {
				t.Errorf("repairMojibake(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

// A page whose source double-encoded its UTF-8 is read as its author wrote it:
// title, text and description.
func TestExtract_RepairsMojibakeInTheSource(t *testing.T) {
	page := `<html><head><title>A DIY Investorâ€™s Guide</title><meta name="description" content="Hereâ€™s how"></head><body><article><h1>A DIY Investorâ€™s Guide</h1>` +
		pTags(articleParas(5)) + `<p>Itâ€™s the plan weâ€™ve used for years â€” and it works.</p></article></body></html>`
	a := mustExtract(t, page, "https://example.com/guides/diy")
	if a.Title != "A DIY Investor’s Guide" || a.Description != "Here’s how" {
		t.Errorf("Title = %q, Description = %q", a.Title, a.Description)
	}
	if !strings.Contains(a.Text, "It’s the plan we’ve used for years — and it works.") {
		t.Errorf("Text lacks the repaired sentence:\n%s", a.Text)
	}
}

// Mojibake written as entities is text only once they are read: it is
// repaired in the text and the metadata the cleaner writes.
func TestExtract_RepairsMojibakeWrittenAsEntities(t *testing.T) {
	page := `<html><head><title>Why AI isn&acirc;&euro;&trade;t magic</title></head><body><article><h1>Why AI isn&acirc;&euro;&trade;t magic</h1>` +
		pTags(articleParas(5)) + `<p>Artificial intelligence isn&acirc;&euro;&trade;t just changing how we work &acirc;&euro;&rdquo; it changes what we do.</p></article></body></html>`
	a := mustExtract(t, page, "https://example.com/ai")
	if a.Title != "Why AI isn’t magic" {
		t.Errorf("Title = %q", a.Title)
	}
	if !strings.Contains(a.Text, "Artificial intelligence isn’t just changing how we work — it changes what we do.") {
		t.Errorf("Text lacks the repaired sentence:\n%s", a.Text)
	}
}
