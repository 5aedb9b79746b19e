package fetch_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/newscrawl/newscrawl/internal/crawl/fetch"
)

// A UTF-8 page with a few bad bytes stays UTF-8, the bad bytes replaced,
// instead of being re-read as windows-1252 (its title turned to mojibake).
func TestToUTF8_AFewBadBytesStayUTF8(t *testing.T) {
	page := "<html><head><meta charset=\"utf-8\"><title>Café à Zürich</title></head><body><p>Über die Brücke \xff ging es.</p></body></html>"
	out, name, err := fetch.ToUTF8([]byte(page), "text/html; charset=utf-8")
	if err != nil {
		t.Fatal(err)
	}
	if name != "utf-8" || !strings.Contains(string(out), "Café à Zürich") || !strings.Contains(string(out), "Über die Brücke \uFFFD ging") {
		t.Fatalf("decoded as %s: %q", name, out)
	}
	// Declared UTF-8 but written in Latin-1 throughout: still read as such.
	latin := "<html><head><title>Caf\xe9 \xe0 Z\xfcrich</title></head><body><p>\xdcber die Br\xfccke.</p></body></html>"
	out, _, err = fetch.ToUTF8([]byte(latin), "text/html; charset=utf-8")
	if err != nil || !strings.Contains(string(out), "Café à Zürich") {
		t.Fatalf("mislabelled Latin-1: %q, %v", out, err)
	}
}

// Whatever the bytes and the declared charset, the result is valid UTF-8
// or an error, never a panic.
func FuzzToUTF8(f *testing.F) {
	f.Add([]byte("<p>Café \xff</p>"), "text/html; charset=utf-8")
	f.Add([]byte("<meta charset=\"shift_jis\"><p>\x82\xa0</p>"), "text/html")
	f.Add([]byte("\xe9t\xe9"), "text/html; charset=iso-8859-1")
	f.Fuzz(func(t *testing.T, body []byte, contentType string) {
		out, _, err := fetch.ToUTF8(body, contentType)
		if err == nil && !utf8.Valid(out) {
			t.Fatalf("ToUTF8(%q, %q) returned invalid UTF-8 %q", body, contentType, out)
		}
	})
}
