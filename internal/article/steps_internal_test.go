package article

import (
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestWorkBudget_DevSetsFitWellInside measures the steps each page of the
// dev sets takes (when ../shared is there) and fails if any page needs more
// than an eighth of DefaultMaxWork: the budget must stop pathological pages,
// never a real one, whatever the machine's load.
func TestWorkBudget_DevSetsFitWellInside(t *testing.T) {
	files := devSetSpread(t) // the whole of the three sets is bench-cleaner's
	var steps []int
	worst := ""
	for _, f := range files {
		raw, err := readGz(f)
		if err != nil {
			t.Fatal(err)
		}
		opt := Options{}.withDefaults()
		bud := newBudget(opt.MaxWork, opt.Timeout)
		if _, err := extractWith(raw, "", opt, bud); err != nil {
			continue // not every page is HTML the cleaner takes
		}
		if len(steps) == 0 || bud.steps > slices.Max(steps) {
			worst = f
		}
		steps = append(steps, bud.steps)
	}
	slices.Sort(steps)
	p50, p99, top := steps[len(steps)/2], steps[len(steps)*99/100], steps[len(steps)-1]
	t.Logf("%d pages: steps p50 %d, p99 %d, max %d (%s); budget %d", len(steps), p50, p99, top, filepath.Base(worst), DefaultMaxWork)
	if top > DefaultMaxWork/8 {
		t.Fatalf("%s takes %d steps, more than an eighth of the budget (%d)", worst, top, DefaultMaxWork)
	}
}

// devSetSpread returns every twelfth page of the three dev sets beside
// the repository (../shared), skipping the test when they are not there.
func devSetSpread(t *testing.T) []string {
	var files []string
	for _, set := range []string{"extraction-bench", "extraction-bench-wcxb", "extraction-bench-readability"} {
		m, _ := filepath.Glob(filepath.Join("..", "..", "..", "shared", set, "html", "*.html.gz"))
		files = append(files, m...)
	}
	if len(files) == 0 {
		t.Skip("no dev sets beside the repository")
	}
	var some []string
	for i := 0; i < len(files); i += 12 {
		some = append(some, files[i])
	}
	return some
}

func readGz(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	return io.ReadAll(zr)
}
