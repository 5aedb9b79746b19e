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

// The fast paths of the escapes and the dot segments must give what the
// byte-by-byte copy and the walk through the segments give.
func FuzzFastPaths(f *testing.F) {
	for _, s := range []string{"/a/b", "/a/./b", "/a/../b/..", "/%2f%2F%41", "/a b?c#d", "/%zz/%4", "a/b", "/.hidden/x", "/x/..", "/%7E/%25"} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, s string, query bool) {
		if got, want := normalizeEscapes(s, query), rewriteEscapes(s, query); got != want {
			t.Errorf("normalizeEscapes(%q, %v) = %q, the copy gives %q", s, query, got, want)
		}
		if got, want := removeDotSegments(s), resolveDots(s); s != "" && got != want {
			t.Errorf("removeDotSegments(%q) = %q, the walk gives %q", s, got, want)
		}
	})
}
