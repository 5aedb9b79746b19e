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
