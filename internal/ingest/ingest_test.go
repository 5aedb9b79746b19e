package ingest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nlnwa/gowarc/v3"
	"github.com/redis/go-redis/v9"

	"github.com/newscrawl/newscrawl/internal/archive"
	"github.com/newscrawl/newscrawl/internal/crawl"
	"github.com/newscrawl/newscrawl/internal/gazette"
	"github.com/newscrawl/newscrawl/internal/pipeline"
	"github.com/newscrawl/newscrawl/internal/testenv"
	"github.com/newscrawl/newscrawl/pkg/streamkit"
)

var captured = time.Date(2025, 3, 4, 10, 0, 0, 0, time.UTC)

func article(host string, n int) archive.Fetch {
	return archive.Fetch{URL: fmt.Sprintf("https://%s/article/%d", host, n), Date: captured.Add(time.Duration(n) * time.Minute),
		IP: "203.0.113.9", Status: 200, Proto: "HTTP/1.1",
		Header: http.Header{"Content-Type": {"text/html; charset=utf-8"}}, Body: []byte(gazette.ArticlePage(n))}
}

// writeWARC writes fetches with the crawler's writer and returns the file.
func writeWARC(t *testing.T, dir string, fetches []archive.Fetch) string {
	t.Helper()
	tmp := t.TempDir()
	w, err := archive.NewWriter(archive.WriterConfig{Dir: tmp, Software: "test"})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fetches {
		if _, err := w.Write(f); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(tmp, "*.warc.gz"))
	if len(files) != 1 {
		t.Fatalf("%d files written", len(files))
	}
	dst := filepath.Join(dir, fmt.Sprintf("part-%d.warc.gz", len(fetches)))
	for i := 0; ; i++ {
		if _, err := os.Stat(dst); err != nil {
			break
		}
		dst = filepath.Join(dir, fmt.Sprintf("part-%d-%d.warc.gz", len(fetches), i))
	}
	if err := os.Rename(files[0], dst); err != nil {
		t.Fatal(err)
	}
	return dst
}

type harness struct {
	env *testenv.Env
	cfg Config
}

func newHarness(t *testing.T) *harness {
	env := testenv.New(t)
	return &harness{env: env, cfg: Config{Pool: env.Pool, Producer: streamkit.NewProducer(env.RDB, env.Prefix, 0),
		Archiver: crawl.NewArchiver(env.Pool, crawl.Config{}), Batch: 8, Filter: Filter{Status: 200}}}
}

func (h *harness) run(t *testing.T, cfg Config, sources ...Source) Report {
	t.Helper()
	rep, err := Run(context.Background(), cfg, sources)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func (h *harness) docs(t *testing.T) int {
	var n int
	if err := h.env.Pool.QueryRow(context.Background(), `SELECT count(*) FROM documents`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// cleanMessages are the doc ids sent to the cleaner, with repeats.
func (h *harness) cleanMessages(t *testing.T) map[string]int {
	msgs, err := h.env.RDB.XRange(context.Background(), streamkit.KeysFor(h.env.Prefix, pipeline.Clean).Stream(), "-", "+").Result()
	if err != nil && err != redis.Nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, m := range msgs {
		out[m.Values[pipeline.FieldDocID].(string)]++
	}
	return out
}

func TestIngest_EachPageStoredOnceWithItsProvenance(t *testing.T) {
	h := newHarness(t)
	dir := t.TempDir()
	var fetches []archive.Fetch
	for n := range 20 {
		fetches = append(fetches, article("news.example", n))
	}
	older := article("news.example", 3) // an older capture of article 3, with other text: the newer wins
	older.Date, older.Body = captured.Add(-time.Hour), []byte(gazette.ArticlePage(1003))
	newer := article("news.example", 5) // a newer capture of article 5: it takes the older one's place
	newer.Date, newer.Body = captured.Add(48*time.Hour), []byte(gazette.ArticlePage(2005))
	fetches = append(fetches, older, newer,
		archive.Fetch{URL: "https://news.example/article/7", Date: captured.Add(time.Hour), Status: 304, Revisit: gowarc.ProfileServerNotModifiedV1_1},
		archive.Fetch{URL: "http://127.0.0.1/admin", Date: captured, Status: 200, Header: http.Header{"Content-Type": {"text/html"}}, Body: []byte("<html><body>secret</body></html>")},
		archive.Fetch{URL: "http://localhost:9101/metrics", Date: captured, Status: 200, Header: http.Header{"Content-Type": {"text/html"}}, Body: []byte("<html>m</html>")},
		archive.Fetch{URL: "https://news.example/logo.png", Date: captured, Status: 200, Header: http.Header{"Content-Type": {"image/png"}}, Body: []byte("\x89PNG\r\n\x1a\n....")},
		archive.Fetch{URL: "https://news.example/missing", Date: captured, Status: 404, Header: http.Header{"Content-Type": {"text/html"}}})
	file := writeWARC(t, dir, fetches)
	src := fileSource(file)

	rep := h.run(t, h.cfg, src)
	if rep.Kept != 21 || rep.Duplicates != 1 || rep.Filtered["revisit"] != 1 || rep.Filtered["private_address"] != 2 ||
		rep.Filtered["not_html"] != 1 || rep.Filtered["status"] != 1 || rep.Done != 1 {
		t.Fatalf("report %+v", rep)
	}
	if rep.Filtered["request"] != int64(len(fetches)) {
		t.Errorf("request records filtered: %d, want %d", rep.Filtered["request"], len(fetches))
	}
	if n := h.docs(t); n != 20 {
		t.Fatalf("%d documents, want 20", n)
	}
	ctx := context.Background()
	var body, origin, wfile, recID string
	var off, length int64
	var fetched, wdate time.Time
	if err := h.env.Pool.QueryRow(ctx, `SELECT convert_from(body, 'UTF8'), origin, warc_file, warc_offset, warc_length, warc_record_id, fetched_at, warc_date
		FROM documents WHERE url = 'https://news.example/article/5'`).Scan(&body, &origin, &wfile, &off, &length, &recID, &fetched, &wdate); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(body, gazette.Title(2005)) || origin != "archive" || wfile != file || !fetched.Equal(newer.Date) || !wdate.Equal(newer.Date) || recID == "" {
		t.Errorf("article 5: origin %s file %s fetched %v, newest capture's text: %v", origin, wfile, fetched, strings.Contains(body, gazette.Title(2005)))
	}
	// The provenance points at the record: read back from the file there.
	data, _ := os.ReadFile(file)
	r := archive.NewReader(bytes.NewReader(data[off:off+length]), off, archive.Options{})
	if rec, err := r.Next(); err != nil || rec.RecordID != recID || !strings.Contains(string(rec.Body), gazette.Title(2005)) {
		t.Errorf("the record at %d+%d: %v", off, length, err)
	}
	if err := h.env.Pool.QueryRow(ctx, `SELECT convert_from(body, 'UTF8') FROM documents WHERE url = 'https://news.example/article/3'`).Scan(&body); err != nil || strings.Contains(body, gazette.Title(1003)) {
		t.Errorf("article 3 holds the older capture (err %v)", err)
	}
	// The frontier knows the pages as fetched: a live crawl does not fetch them again.
	var state string
	var urlFetched time.Time
	if err := h.env.Pool.QueryRow(ctx, `SELECT state, fetched_at FROM urls WHERE url = 'https://news.example/article/9'`).Scan(&state, &urlFetched); err != nil || state != crawl.StateFetched || !urlFetched.Equal(fetches[9].Date) {
		t.Errorf("urls row of article 9: %s %v (%v)", state, urlFetched, err)
	}
	var owed int
	h.env.Pool.QueryRow(ctx, `SELECT count(*) FROM urls WHERE state = 'queued'`).Scan(&owed)
	if owed != 0 {
		t.Errorf("%d URLs queued without --discover", owed)
	}
	msgs := h.cleanMessages(t)
	if len(msgs) != 20 {
		t.Errorf("clean messages for %d documents, want 20", len(msgs))
	}

	t.Run("a finished source is skipped", func(t *testing.T) {
		rep := h.run(t, h.cfg, src)
		if rep.Skipped != 1 || rep.Read != 0 {
			t.Errorf("report %+v", rep)
		}
	})
	t.Run("--restart reads it again and stores nothing twice", func(t *testing.T) {
		before := h.cleanMessages(t)
		cfg := h.cfg
		cfg.Restart = true
		rep := h.run(t, cfg, src)
		if rep.Done != 1 || rep.Kept != 0 || rep.Duplicates != 22 {
			t.Errorf("report %+v", rep)
		}
		after := h.cleanMessages(t)
		for doc, n := range after {
			if n != before[doc] {
				t.Errorf("%s sent %d times, %d before the restart", doc, n, before[doc])
			}
		}
	})
}

func TestIngest_FiltersActOnTheHeader(t *testing.T) {
	dir := t.TempDir()
	var fetches []archive.Fetch
	for n := range 12 {
		host := []string{"news.example", "www.news.example", "other.example"}[n%3]
		fetches = append(fetches, article(host, n))
	}
	file := writeWARC(t, dir, fetches)
	cases := []struct {
		name   string
		filter Filter
		limit  int64
		want   int64
	}{
		{"exact host", Filter{Hosts: []string{"news.example"}}, 0, 4},
		{"with subdomains", Filter{Hosts: []string{"news.example"}, IncludeSubdomains: true}, 0, 8},
		{"a host is matched whole, not as a substring", Filter{Hosts: []string{"example"}}, 0, 0},
		{"since", Filter{Since: captured.Add(6 * time.Minute)}, 0, 6},
		{"until", Filter{Until: captured.Add(6 * time.Minute)}, 0, 6},
		{"limit", Filter{}, 5, 5},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			cfg := h.cfg
			cfg.Filter, cfg.Limit = tc.filter, tc.limit
			cfg.Filter.Status = 200
			rep := h.run(t, cfg, fileSource(file))
			if rep.Kept != tc.want || int64(h.docs(t)) != tc.want {
				t.Errorf("kept %d (documents %d), want %d; filtered %v", rep.Kept, h.docs(t), tc.want, rep.Filtered)
			}
		})
	}
}

// A reader that fails after n bytes: a kill of the ingest mid-file, as the
// checkpoint sees it.
type failingAfter struct {
	data []byte
	pos  int
	n    int
}

func (f *failingAfter) Read(p []byte) (int, error) {
	if f.pos >= f.n {
		return 0, fmt.Errorf("connection reset")
	}
	k := copy(p, f.data[f.pos:min(len(f.data), f.n)])
	f.pos += k
	return k, nil
}
func (f *failingAfter) Close() error { return nil }

func TestIngest_ASourceCutOffResumesAtTheNextRecord(t *testing.T) {
	h := newHarness(t)
	var fetches []archive.Fetch
	for n := range 60 {
		fetches = append(fetches, article("news.example", n))
	}
	file := writeWARC(t, t.TempDir(), fetches)
	data, _ := os.ReadFile(file)
	cut := fileSource(file)
	cut.open = func(_ context.Context, offset int64) (io.ReadCloser, error) {
		return &failingAfter{data: data[offset:], n: len(data) / 2}, nil
	}
	rep := h.run(t, h.cfg, cut)
	if len(rep.Failures) != 1 || rep.Failures[0].Reason != "source_unreadable" || rep.Kept == 0 || rep.Kept >= 60 {
		t.Fatalf("first run: %+v", rep)
	}
	var resume int64
	h.env.Pool.QueryRow(context.Background(), `SELECT resume_at FROM ingest_sources`).Scan(&resume)
	if resume <= 0 || resume > int64(len(data)/2) {
		t.Fatalf("resume_at %d of %d", resume, len(data))
	}
	first := rep.Kept
	rep = h.run(t, h.cfg, fileSource(file))
	if rep.Done != 1 || rep.Kept+first != 60 || rep.Duplicates != 0 {
		t.Errorf("second run: kept %d after %d, duplicates %d: %+v", rep.Kept, first, rep.Duplicates, rep)
	}
	msgs := h.cleanMessages(t)
	if h.docs(t) != 60 || len(msgs) != 60 {
		t.Errorf("%d documents, %d sent to the cleaner", h.docs(t), len(msgs))
	}
	for doc, n := range msgs {
		if n != 1 {
			t.Errorf("%s sent %d times", doc, n)
		}
	}
}

func TestIngest_TwoProcessesShareTheSources(t *testing.T) {
	h := newHarness(t)
	dir := t.TempDir()
	var sources []Source
	for f := range 6 {
		var fetches []archive.Fetch
		for n := range 15 {
			fetches = append(fetches, article(fmt.Sprintf("h%d.example", f), n))
		}
		sources = append(sources, fileSource(writeWARC(t, dir, fetches)))
	}
	var wg sync.WaitGroup
	reps := make([]Report, 2)
	for i := range 2 {
		wg.Go(func() {
			reps[i] = h.run(t, h.cfg, sources...)
		})
	}
	wg.Wait()
	read := reps[0].Kept + reps[1].Kept
	done := reps[0].Done + reps[1].Done
	if done != 6 || read != 90 || reps[0].Done == 0 || reps[1].Done == 0 {
		t.Errorf("runs read %d+%d sources, kept %d+%d", reps[0].Done, reps[1].Done, reps[0].Kept, reps[1].Kept)
	}
	if h.docs(t) != 90 || len(h.cleanMessages(t)) != 90 {
		t.Errorf("%d documents", h.docs(t))
	}
}

func TestIngest_DownloadsResumeAndBadSourcesAreCounted(t *testing.T) {
	h := newHarness(t)
	var fetches []archive.Fetch
	for n := range 40 {
		fetches = append(fetches, article("news.example", n))
	}
	file := writeWARC(t, t.TempDir(), fetches)
	data, _ := os.ReadFile(file)
	var mu sync.Mutex
	ranges := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/missing.warc.gz":
			http.NotFound(w, r)
			return
		case "/broken.warc.gz":
			http.Error(w, "boom", 500)
			return
		case "/slow.warc.gz":
			w.Header().Set("Content-Length", strconv.Itoa(len(data)))
			w.Write(data[:1000])
			w.(http.Flusher).Flush()
			<-r.Context().Done()
			return
		}
		from := 0
		if rg := r.Header.Get("Range"); rg != "" {
			mu.Lock()
			ranges++
			mu.Unlock()
			from, _ = strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(rg, "bytes="), "-"))
			w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", from, len(data)-1, len(data)))
			w.Header().Set("Content-Length", strconv.Itoa(len(data)-from))
			w.WriteHeader(http.StatusPartialContent)
			w.Write(data[from:])
			return
		}
		// The first answer drops the connection half way.
		w.Header().Set("Content-Length", strconv.Itoa(len(data)))
		w.Write(data[:len(data)/2])
		w.(http.Flusher).Flush()
		conn, _, _ := w.(http.Hijacker).Hijack()
		conn.(*net.TCPConn).SetLinger(0)
		conn.Close()
	}))
	defer srv.Close()
	idleTimeout, maxResumes = time.Second, 1
	defer func() { idleTimeout, maxResumes = 60*time.Second, 5 }()
	client := &http.Client{}
	sources, err := Expand(context.Background(), []string{srv.URL + "/a.warc.gz", srv.URL + "/missing.warc.gz",
		srv.URL + "/broken.warc.gz", srv.URL + "/slow.warc.gz"}, "", client)
	if err != nil {
		t.Fatal(err)
	}
	cfg := h.cfg
	cfg.Parallel = 4
	rep := h.run(t, cfg, sources...)
	if rep.Kept != 40 || rep.Done != 1 || ranges == 0 {
		t.Errorf("kept %d, done %d, range requests %d", rep.Kept, rep.Done, ranges)
	}
	reasons := map[string]bool{}
	for _, f := range rep.Failures {
		reasons[f.Reason] = true
	}
	if !reasons["source_status_404"] || !reasons["source_status_500"] || !reasons["source_timeout"] || len(rep.Failures) != 3 {
		t.Errorf("failures %+v", rep.Failures)
	}
}

// A bulk load analyzes the tables it grows: on a fresh database the plans
// cached for its statements would otherwise keep scanning urls whole for
// every page, as the statistics of an empty table advise.
func TestIngest_AnalyzesTheTablesItGrows(t *testing.T) {
	h := newHarness(t)
	rows := func() (urls, docs float64) {
		t.Helper()
		err := h.env.Pool.QueryRow(context.Background(),
			`SELECT (SELECT reltuples FROM pg_class WHERE oid = 'urls'::regclass), (SELECT reltuples FROM pg_class WHERE oid = 'documents'::regclass)`).Scan(&urls, &docs)
		if err != nil {
			t.Fatal(err)
		}
		return urls, docs
	}
	if urls, docs := rows(); urls > 0 || docs > 0 {
		t.Fatalf("a fresh schema's statistics already count %v urls and %v documents", urls, docs)
	}
	var fetches []archive.Fetch
	for n := range 1100 {
		fetches = append(fetches, article(fmt.Sprintf("news%d.example", n%20), n))
	}
	rep := h.run(t, h.cfg, fileSource(writeWARC(t, t.TempDir(), fetches)))
	if rep.Kept != 1100 {
		t.Fatalf("kept %d of 1100", rep.Kept)
	}
	if urls, docs := rows(); urls < 1000 || docs < 1000 {
		t.Fatalf("after 1,100 pages the statistics count %v urls and %v documents: not analyzed as they grew", urls, docs)
	}
}
