package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	cbwarc "github.com/CorentinB/warc"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/newscrawl/newscrawl/internal/archive"
	"github.com/newscrawl/newscrawl/internal/demosite"
	"github.com/newscrawl/newscrawl/internal/gazette"
	"github.com/newscrawl/newscrawl/internal/pipeline"
	"github.com/newscrawl/newscrawl/internal/testenv"
	"github.com/newscrawl/newscrawl/pkg/streamkit/streamkittest"
)

// The demo site crawled with CRAWL_WARC_DIR, then its WARC files ingested
// into a fresh database with the same SSRF allowances: the same pages, the
// same cleaned text; every record readable by another WARC library, and
// every document's provenance pointing at its own record.
func TestPipeline_CrawledArchivesIngestToTheSamePages(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binaries")
	}
	bin := build(t)
	warcDir := t.TempDir()
	_, prefix := streamkittest.Redis(t)
	crawled := testenv.Postgres(t)
	srv, _, environ := serveDemo(t, crawled, prefix, "CRAWL_WARC_DIR="+warcDir)
	ws := startWorkers(t, bin, environ)
	newsctl(t, bin, environ, "seed", srv.URL+"/")
	newsctl(t, bin, environ, "wait", "--timeout", "3m")
	ws.stop(t) // the crawler closes its files: they take their final names
	checkEmbedded(t, crawled, demosite.Articles(), " in the crawl")

	files, _ := filepath.Glob(filepath.Join(warcDir, "*.warc.gz"))
	if open, _ := filepath.Glob(filepath.Join(warcDir, "*.open")); len(files) == 0 || len(open) > 0 {
		t.Fatalf("warc files %v, still open %v", files, open)
	}
	// Another library reads every record.
	types := map[string]int{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		r, err := cbwarc.NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		for {
			rec, err := r.ReadRecord()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("%s: the other library: %v", f, err)
			}
			types[rec.Header.Get("WARC-Type")]++
		}
	}
	if types["warcinfo"] != len(files) || types["response"] < demosite.Articles() || types["request"] < types["response"] {
		t.Errorf("record types %v in %d file(s)", types, len(files))
	}
	// Each document's provenance is its own record.
	ctx := context.Background()
	rows, err := crawled.Query(ctx, `SELECT url, body_hash, warc_file, warc_offset, warc_length FROM documents WHERE kind = 'html'`)
	if err != nil {
		t.Fatal(err)
	}
	pages := map[string]string{}
	for rows.Next() {
		var url, hash, file string
		var off, length int64
		if err := rows.Scan(&url, &hash, &file, &off, &length); err != nil {
			t.Fatal(err)
		}
		pages[url] = hash
		data, err := os.ReadFile(filepath.Join(warcDir, file))
		if err != nil || off+length > int64(len(data)) {
			t.Fatalf("%s: warc file %q at %d+%d: %v", url, file, off, length, err)
		}
		rec, err := archive.NewReader(bytes.NewReader(data[off:off+length]), off, archive.Options{}).Next()
		if err != nil || pipeline.BodyHash(rec.Body) != hash {
			t.Errorf("%s: the record at %s:%d is not its page (%v)", url, file, off, err)
		}
	}
	rows.Close()

	// A fresh database: ingest, clean, extract, embed.
	_, prefix2 := streamkittest.Redis(t)
	fresh := testenv.Postgres(t)
	_, _, environ2 := serveDemo(t, fresh, prefix2)
	ws2 := startWorkers(t, bin, environ2)
	var rep struct {
		Read, Kept int
		Malformed  map[string]int
	}
	if err := json.Unmarshal([]byte(newsctl(t, bin, environ2, "ingest", warcDir, "--json")), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Kept != len(pages) || len(rep.Malformed) != 0 {
		t.Errorf("ingest kept %d of %d pages; malformed %v", rep.Kept, len(pages), rep.Malformed)
	}
	newsctl(t, bin, environ2, "wait", "--timeout", "3m")
	ws2.stop(t)
	checkEmbedded(t, fresh, demosite.Articles(), " after the ingest")
	again := map[string]string{}
	rows, _ = fresh.Query(ctx, `SELECT url, body_hash FROM documents`)
	for rows.Next() {
		var url, hash string
		rows.Scan(&url, &hash)
		again[url] = hash
	}
	rows.Close()
	for url, hash := range pages {
		if again[url] != hash {
			t.Errorf("%s: body hash %q after the ingest, %q crawled", url, again[url], hash)
		}
	}
	cleanedOf := func(db *pgxpool.Pool) map[string]string {
		out := map[string]string{}
		rows, err := db.Query(ctx, `SELECT d.url, c.text_hash FROM cleaned c JOIN documents d USING (doc_id)`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var url, h string
			rows.Scan(&url, &h)
			out[url] = h
		}
		return out
	}
	a, b := cleanedOf(crawled), cleanedOf(fresh)
	if len(a) == 0 || len(a) != len(b) {
		t.Errorf("cleaned %d crawled, %d ingested", len(a), len(b))
	}
	for url, h := range a {
		if b[url] != h {
			t.Errorf("%s: cleaned text hash differs after the ingest", url)
		}
	}

	// Export the stored pages as WARC: every page a response record another
	// library reads, with the stored body.
	out := filepath.Join(t.TempDir(), "export.warc.gz")
	newsctl(t, bin, environ2, "export", "--format", "warc", "--out", out)
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	r, err := cbwarc.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	exported := 0
	for {
		rec, err := r.ReadRecord()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("export: the other library: %v", err)
		}
		if rec.Header.Get("WARC-Type") == "response" {
			exported++
		}
	}
	ours := archive.NewReader(bytes.NewReader(data), 0, archive.Options{})
	for {
		rec, err := ours.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err == nil && pages[rec.TargetURI] != pipeline.BodyHash(rec.Body) {
			t.Errorf("export: %s holds another body", rec.TargetURI)
		}
	}
	if exported != len(pages) {
		t.Errorf("export: %d response records, %d pages", exported, len(pages))
	}
}

// An ingest killed mid-file, and a cleaner killed beside it, then both
// started again: every page stored once, every document cleaned, extracted
// and embedded once.
func TestPipeline_IngestKilledAndRestarted(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binaries")
	}
	const pages = 200
	bin := build(t)
	dir := t.TempDir()
	for f := range 2 {
		tmp := t.TempDir()
		w, err := archive.NewWriter(archive.WriterConfig{Dir: tmp})
		if err != nil {
			t.Fatal(err)
		}
		for n := f * pages / 2; n < (f+1)*pages/2; n++ {
			if _, err := w.Write(archive.Fetch{URL: fmt.Sprintf("https://paper%d.example%s", n%7, gazette.ArticlePath(n)),
				Date: time.Date(2025, 5, 1, 0, 0, n, 0, time.UTC), Status: 200,
				Header: http.Header{"Content-Type": {"text/html; charset=utf-8"}}, Body: []byte(gazette.ArticlePage(n))}); err != nil {
				t.Fatal(err)
			}
		}
		w.Close()
		files, _ := filepath.Glob(filepath.Join(tmp, "*.warc.gz"))
		if err := os.Rename(files[0], filepath.Join(dir, fmt.Sprintf("part-%d.warc.gz", f))); err != nil {
			t.Fatal(err)
		}
	}
	_, prefix := streamkittest.Redis(t)
	pool := testenv.Postgres(t)
	environ := append(env(t, streamkittest.SchemaOf(pool), prefix), "CRAWL_HIGH_WATER=40")
	ws := startWorkers(t, bin, environ)
	ctx := context.Background()
	count := func(q string) int {
		var n int
		if err := pool.QueryRow(ctx, q).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	ingest := exec.Command(filepath.Join(bin, "newsctl"), "ingest", dir, "--parallel", "2")
	ingest.Env = environ
	if err := ingest.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for count(`SELECT count(*) FROM documents`) < pages/4 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	ingest.Process.Kill() // mid-file, mid-batch perhaps
	ingest.Wait()
	cleaner := ws.cmds[1]
	cleaner.Process.Kill()
	cleaner.Wait()
	stored := count(`SELECT count(*) FROM documents`)
	if stored == 0 || stored >= pages {
		t.Fatalf("%d of %d pages stored at the kill: the kill should come mid-run", stored, pages)
	}
	again := exec.Command(filepath.Join(bin, "cleaner"))
	again.Env = environ
	if err := again.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { again.Process.Signal(syscall.SIGTERM); again.Wait() }()
	var rep struct{ Kept, Duplicates int }
	if err := json.Unmarshal([]byte(newsctl(t, bin, environ, "ingest", dir, "--parallel", "2", "--json")), &rep); err != nil {
		t.Fatal(err)
	}
	newsctl(t, bin, environ, "wait", "--timeout", "3m")
	if n := count(`SELECT count(*) FROM documents`); n != pages {
		t.Errorf("%d documents, want %d", n, pages)
	}
	if rep.Kept+stored < pages || rep.Kept > pages-stored+2*ingestBatch {
		t.Errorf("the second run stored %d after %d (resumed near where the first stopped?)", rep.Kept, stored)
	}
	for stage, q := range map[string]string{
		"cleaned":   `SELECT count(*) FROM cleaned`,
		"extracted": `SELECT count(DISTINCT doc_id) FROM extractions`,
		"embedded":  `SELECT count(DISTINCT doc_id) FROM chunks`,
	} {
		if n := count(q); n != pages {
			t.Errorf("%s: %d of %d", stage, n, pages)
		}
	}
	for _, stage := range []string{pipeline.Clean, pipeline.Extract, pipeline.Embed} {
		if n := count(fmt.Sprintf(`SELECT count(*) FROM stage_results WHERE stage = '%s'`, stage)); n != pages {
			t.Errorf("%s: %d units of work done for %d documents", stage, n, pages)
		}
	}
	if n := count(`SELECT count(*) FROM extractions`); n != pages {
		t.Errorf("%d extractions of %d documents: some extracted twice", n, pages)
	}
}

// ingestBatch is ingest.DefaultBatch: what a kill can leave stored but not checkpointed.
const ingestBatch = 64
