// Package version says which build a binary is: the module version and the
// VCS revision. `make build` and the Dockerfile set Revision with -ldflags
// (this machine's Go builds with -buildvcs=false, and an image build has no
// .git); otherwise the build info's own vcs.revision is used when present.
package version

import (
	"runtime/debug"
	"strings"
)

// Revision is the VCS revision, set at build time:
// -ldflags "-X github.com/newscrawl/newscrawl/internal/version.Revision=abc1234".
var Revision = ""

// String is "<module version> (revision <rev>[, modified]) <go version>".
func String() string {
	mod, rev, modified, goVersion := "(devel)", Revision, false, ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		goVersion = bi.GoVersion
		if v := bi.Main.Version; v != "" {
			mod = v
		}
		for _, s := range bi.Settings {
			switch {
			case s.Key == "vcs.revision" && rev == "":
				rev = s.Value
			case s.Key == "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	if rev == "" {
		rev = "unknown"
	}
	if len(rev) > 12 && !strings.Contains(rev, "-") {
		rev = rev[:12]
	}
	out := mod + " (revision " + rev
	if modified {
		out += ", modified"
	}
	return out + ") " + goVersion
}
