package article

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// benchDirEnv names the environment variable holding the extraction-bench
// dataset directory (ground-truth.json + html/<id>.html[.gz]).
const benchDirEnv = "EXTRACTION_BENCH_DIR"

// loadBenchPages reads every page of the dataset, skipping the benchmark
// when the dataset is not available.
func loadBenchPages(b testing.TB) [][]byte {
	dir := os.Getenv(benchDirEnv)
	if dir == "" {
		b.Skipf("%s not set", benchDirEnv)
	}
	files, err := filepath.Glob(filepath.Join(dir, "html", "*.html*"))
	if err != nil || len(files) == 0 {
		b.Skipf("no pages under %s/html", dir)
	}
	var pages [][]byte
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		if strings.HasSuffix(f, ".gz") {
			zr, err := gzip.NewReader(bytes.NewReader(raw))
			if err != nil {
				b.Fatalf("%s: %v", f, err)
			}
			if raw, err = io.ReadAll(zr); err != nil {
				b.Fatalf("%s: %v", f, err)
			}
		}
		pages = append(pages, raw)
	}
	return pages
}

// BenchmarkExtract runs Extract over the whole dataset; one op is one page.
func BenchmarkExtract(b *testing.B) {
	pages := loadBenchPages(b)
	var size int64
	for _, p := range pages {
		size += int64(len(p))
	}
	b.SetBytes(size / int64(len(pages)))
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := processCPU()
	for i := 0; i < b.N; i++ {
		if _, err := Extract(pages[i%len(pages)], "", Options{}); err != nil {
			b.Fatalf("page %d: %v", i%len(pages), err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pages/s")
	// With GOMAXPROCS=1 this is the single-core rate even on a busy machine.
	if cpu := processCPU() - cpu0; cpu > 0 {
		b.ReportMetric(float64(b.N)/cpu.Seconds(), "pages/cpu-s")
	}
}
