package urlnorm

import (
	"strings"
	"testing"

	"golang.org/x/net/idna"
)

// plainLDH's fast path must say yes only where IDNA returns the host as it is.
func FuzzPlainLDH(f *testing.F) {
	for _, h := range []string{"news.example.com", "a-b.co.uk", "xn--bcher-kva.example", "-a.com", "a-.com", "a--b.com",
		"é.com", "a_b.com", strings.Repeat("a", 64) + ".com", strings.Repeat("a", 63) + ".com", "1.2.3", "a..b", "a.", ".a", "ab-c-d.e9"} {
		f.Add(h)
	}
	f.Fuzz(func(t *testing.T, h string) {
		if !plainLDH(h) {
			return
		}
		if a, err := idna.Lookup.ToASCII(h); err != nil || a != h {
			t.Errorf("plainLDH(%q) is true, but IDNA gives %q, %v", h, a, err)
		}
	})
}
