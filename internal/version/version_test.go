package version

import (
	"strings"
	"testing"
)

func TestString_NamesTheRelease(t *testing.T) {
	defer func(r, rev string) { Release, Revision = r, rev }(Release, Revision)
	Release, Revision = "v1.2.3", "0123456789abcdef"
	got := String()
	if !strings.HasPrefix(got, "v1.2.3 (revision 0123456789ab") {
		t.Fatalf("String() = %q, want the release then the 12-character revision", got)
	}
	Release = ""
	if got := String(); strings.HasPrefix(got, "v1.2.3") {
		t.Fatalf("String() = %q with no release set", got)
	}
}
