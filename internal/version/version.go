// Package version says which build a binary is: the release it belongs to and
// the VCS revision. `make build`, the Dockerfile and the tests' builds set both
// with -ldflags — Release from the committed VERSION file (tags may not reach a
// clone), Revision from git (this machine's Go builds with -buildvcs=false, and
// an image build has no .git); otherwise the build info's own vcs.revision is
// used when present.
package version

import (
	"runtime/debug"
	"strings"
)

// Release is the release name, vMAJOR.MINOR.PATCH (with -dev between
// releases), set at build time from the VERSION file:
// -ldflags "-X github.com/newscrawl/newscrawl/internal/version.Release=v0.1.0".
// Empty in a plain `go build`.
var Release = ""

// Revision is the VCS revision, set at build time:
// -ldflags "-X github.com/newscrawl/newscrawl/internal/version.Revision=abc1234".
var Revision = ""

// String is "<release> (revision <rev>[, modified]) <go version>"; the release
// is the module version, "(devel)", where none was set at build time.
func String() string {
	mod, rev, modified, goVersion := "(devel)", Revision, false, ""
	if Release != "" {
		mod = Release
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		goVersion = bi.GoVersion
		if v := bi.Main.Version; v != "" && Release == "" {
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
