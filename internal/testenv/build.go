package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Build compiles the project's binaries (the five by default) into a temp
// folder and returns it. root is the repository root relative to the test.
func Build(t testing.TB, root string, names ...string) string {
	t.Helper()
	dir, err := BuildInto(t.TempDir(), root, names...)
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// BuildInto compiles the binaries named (the five by default) into dir and
// returns dir: for a package whose tests share one build.
func BuildInto(dir, root string, names ...string) (string, error) {
	if len(names) == 0 {
		names = []string{"crawler", "cleaner", "extractor", "embedder", "newsctl"}
	}
	rev, _ := exec.Command("git", "-C", root, "rev-parse", "--short=12", "HEAD").Output()
	release, _ := os.ReadFile(filepath.Join(root, "VERSION"))
	ldflags := "-X github.com/newscrawl/newscrawl/internal/version.Release=" + strings.TrimSpace(string(release)) +
		" -X github.com/newscrawl/newscrawl/internal/version.Revision=" + strings.TrimSpace(string(rev))
	args := []string{"build", "-ldflags", ldflags, "-o", dir + "/"}
	for _, n := range names {
		args = append(args, "./cmd/"+n)
	}
	cmd := exec.Command("go", args...)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build binaries: %v\n%s", err, out)
	}
	return dir, nil
}
