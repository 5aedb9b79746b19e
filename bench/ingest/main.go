// Command ingest is the archive benchmark (`make bench-ingest`). It writes
// WARC files of news pages (gzip per record, a request record beside each
// response, as crawlers write them; 30–80 KB pages over many hosts), then in
// one run measures:
//
//  1. the WARC library's own read-and-filter rate (nlnwa/gowarc reading
//     every record and looking at its target URI): the ceiling;
//  2. `newsctl ingest` into documents alone (no cleaner, backpressure off);
//  3. end to end until searchable: cleaner, extractor (heuristic) and
//     embedder (local model) running, `newsctl ingest` with backpressure on,
//     `newsctl wait`, then `newsctl index build` (the embedder builds no
//     index during the load: EMBED_CREATE_INDEX=false), its time counted;
//     with -index during (or both), also with the index kept up by the
//     embedder as chunks arrive, as it runs by default.
//
// It prints each process's peak RSS and CPU time, and last the summary line.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/nlnwa/gowarc/v3"

	"github.com/newscrawl/newscrawl/internal/archive"
)

func main() {
	db := flag.String("db", envOr("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/newscrawl_bench?sslmode=disable"), "bench database (its bench_ingest schema is recreated)")
	redisURL := flag.String("redis", envOr("REDIS_URL", "redis://127.0.0.1:6379/0"), "Redis")
	bin := flag.String("bin", "bin", "directory of the built binaries")
	n := flag.Int("n", 20000, "response records")
	hosts := flag.Int("hosts", 60, "hosts")
	files := flag.Int("files", 4, "WARC files the records are spread over")
	parallel := flag.Int("parallel", 2, "newsctl ingest --parallel")
	keep := flag.String("keep", "", "write the archive here and keep it (default: a temporary directory)")
	profiles := flag.String("profiles", "", "write the end-to-end run's CPU profile of each stage here (DIR/cleaner.prof, ...)")
	index := flag.String("index", "after", "end to end with the HNSW index built after the load (after), kept up as chunks arrive, as the embedder's default does (during), or both runs")
	flag.Parse()
	if *index != "after" && *index != "during" && *index != "both" {
		fmt.Fprintln(os.Stderr, "bench-ingest: -index is after, during or both")
		os.Exit(2)
	}
	b := &bench{db: *db, redis: *redisURL, bin: *bin, profiles: *profiles}
	if err := b.run(*n, *hosts, *files, *parallel, *keep, *index); err != nil {
		fmt.Fprintln(os.Stderr, "bench-ingest:", err)
		os.Exit(1)
	}
}

type bench struct{ db, redis, bin, profiles string }

func (b *bench) run(n, hosts, files, parallel int, keep, index string) error {
	dir := keep
	if dir == "" {
		d, err := os.MkdirTemp("", "bench-ingest")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		dir = d
	}
	start := time.Now()
	size, err := writeArchive(dir, n, hosts, files)
	if err != nil {
		return err
	}
	fmt.Printf("archive: %d response records (+ requests) over %d hosts in %d files, %.0f MB gzip'd, written in %.1f s\n",
		n, hosts, files, float64(size)/1e6, time.Since(start).Seconds())

	libRate, err := libraryRate(dir)
	if err != nil {
		return err
	}
	fmt.Printf("library (nlnwa/gowarc, read and filter every record): %.0f response records/s\n", libRate)

	ing, err := b.ingestAlone(dir, parallel)
	if err != nil {
		return err
	}
	ingRate := float64(ing.kept) / ing.seconds
	fmt.Printf("ingest alone (documents only, backpressure off): %d records stored in %.1f s = %.0f records/s (%.2f of the library), peak RSS %d MB\n",
		ing.kept, ing.seconds, ingRate, ingRate/libRate, ing.rssMB)

	modes := []bool{index == "during"}
	if index == "both" {
		modes = []bool{false, true}
	}
	var e2e e2eResult
	for _, during := range modes {
		if e2e, err = b.endToEnd(dir, parallel, n, during); err != nil {
			return err
		}
		if during {
			fmt.Printf("end to end, index kept up during the load: %d documents searchable in %.1f s = %.0f docs/s\n",
				e2e.searchable, e2e.seconds, float64(e2e.searchable)/e2e.seconds)
		} else {
			fmt.Printf("end to end: %d documents searchable in %.1f s (ingest and pipeline %.1f s, index build %.1f s) = %.0f docs/s\n",
				e2e.searchable, e2e.seconds, e2e.seconds-e2e.index, e2e.index, float64(e2e.searchable)/e2e.seconds)
		}
		for _, p := range e2e.rss {
			fmt.Printf("  peak RSS %-9s %d MB, CPU %.1f s\n", p.name, p.mb, p.cpu)
		}
	}
	fmt.Printf("end to end %.0f docs/s searchable, ingest %.0f records/s, library %.0f records/s\n",
		float64(e2e.searchable)/e2e.seconds, ingRate, libRate)
	return nil
}

// writeArchive writes n article pages as the crawler's writer would.
func writeArchive(dir string, n, hosts, files int) (int64, error) {
	per := (n + files - 1) / files
	var total int64
	for f := range files {
		tmp, err := os.MkdirTemp(dir, "w")
		if err != nil {
			return 0, err
		}
		w, err := archive.NewWriter(archive.WriterConfig{Dir: tmp, Software: "bench-ingest", MaxSize: 1 << 40})
		if err != nil {
			return 0, err
		}
		for i := f * per; i < min(n, (f+1)*per); i++ {
			host := fmt.Sprintf("www.paper%02d.example", i%hosts)
			u := fmt.Sprintf("https://%s/%d/%02d/story-%d", host, 2024, 1+i%12, i)
			if _, err := w.Write(archive.Fetch{URL: u, Date: time.Date(2024, time.Month(1+i%12), 1+i%28, 8, 0, 0, 0, time.UTC),
				IP: "203.0.113.10", Status: 200, Proto: "HTTP/1.1",
				RequestHeader: http.Header{"User-Agent": {"bench"}},
				Header:        http.Header{"Content-Type": {"text/html; charset=utf-8"}, "Server": {"nginx"}},
				Body:          []byte(page(i, host))}); err != nil {
				return 0, err
			}
		}
		if err := w.Close(); err != nil {
			return 0, err
		}
		written, _ := filepath.Glob(filepath.Join(tmp, "*.warc.gz"))
		if len(written) != 1 {
			return 0, fmt.Errorf("%d files written", len(written))
		}
		dst := filepath.Join(dir, fmt.Sprintf("CC-NEWS-bench-%05d.warc.gz", f))
		if err := os.Rename(written[0], dst); err != nil {
			return 0, err
		}
		os.RemoveAll(tmp)
		fi, _ := os.Stat(dst)
		total += fi.Size()
	}
	return total, nil
}

// libraryRate reads every record of every file with gowarc, as a consumer
// filtering on WARC-Target-URI would, payloads read.
func libraryRate(dir string) (float64, error) {
	files, _ := filepath.Glob(filepath.Join(dir, "*.warc.gz"))
	start := time.Now()
	responses, kept := 0, 0
	for _, f := range files {
		r, err := gowarc.NewWarcFileReader(f, 0, gowarc.WithBufferMaxMemBytes(10<<20))
		if err != nil {
			return 0, err
		}
		for {
			rec, err := r.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return 0, fmt.Errorf("%s: %w", f, err)
			}
			if rec.WarcRecord.Type() == gowarc.Response {
				responses++
				u, err := url.Parse(rec.WarcRecord.WarcHeader().Get(gowarc.WarcTargetURI))
				if err == nil && strings.HasSuffix(u.Hostname(), ".example") {
					if hb, ok := rec.WarcRecord.Block().(gowarc.HttpResponseBlock); ok {
						if p, err := hb.PayloadBytes(); err == nil {
							if _, err := io.Copy(io.Discard, p); err == nil {
								kept++
							}
						}
					}
				}
			}
			rec.Close()
		}
		r.Close()
	}
	if kept != responses {
		return 0, fmt.Errorf("library kept %d of %d", kept, responses)
	}
	return float64(responses) / time.Since(start).Seconds(), nil
}

type procRSS struct {
	name string
	mb   int64
	cpu  float64 // user and system seconds
}

type ingestResult struct {
	kept    int
	seconds float64
	rssMB   int64
}

func (b *bench) schemaURL(schema string) string {
	sep := "?"
	if strings.Contains(b.db, "?") {
		sep = "&"
	}
	return b.db + sep + "search_path=" + schema + "%2Cpublic"
}

func (b *bench) reset(ctx context.Context, schema, prefix string) ([]string, error) {
	conn, err := pgx.Connect(ctx, b.db)
	if err != nil {
		return nil, err
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, fmt.Sprintf(`DROP SCHEMA IF EXISTS %s CASCADE; CREATE SCHEMA %s`, schema, schema)); err != nil {
		return nil, err
	}
	environ := append(os.Environ(), "DATABASE_URL="+b.schemaURL(schema), "REDIS_URL="+b.redis, "STREAM_PREFIX="+prefix,
		"METRICS_ADDR=0", "LOG_LEVEL=warn", "OPENAI_BASE_URL=", "EMBED_CREATE_INDEX=false")
	// a fresh prefix: nothing of an earlier run on the streams
	return environ, nil
}

func (b *bench) newsctl(ctx context.Context, environ []string, args ...string) (string, *os.ProcessState, error) {
	cmd := exec.CommandContext(ctx, filepath.Join(b.bin, "newsctl"), args...)
	cmd.Env = environ
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, io.Discard
	err := cmd.Run()
	if err != nil {
		return out.String(), cmd.ProcessState, fmt.Errorf("newsctl %v: %w\n%s", args, err, out.String())
	}
	return out.String(), cmd.ProcessState, nil
}

type report struct {
	Read, Kept int
	Seconds    float64
}

func (b *bench) ingestAlone(dir string, parallel int) (ingestResult, error) {
	ctx := context.Background()
	environ, err := b.reset(ctx, "bench_ingest", fmt.Sprintf("benchingest%d", time.Now().UnixNano()))
	if err != nil {
		return ingestResult{}, err
	}
	environ = append(environ, "CRAWL_HIGH_WATER=0")
	if _, _, err := b.newsctl(ctx, environ, "migrate"); err != nil {
		return ingestResult{}, err
	}
	start := time.Now()
	out, ps, err := b.newsctl(ctx, environ, "ingest", dir, "--json", "--parallel", fmt.Sprint(parallel))
	if err != nil {
		return ingestResult{}, err
	}
	took := time.Since(start).Seconds()
	var rep report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		return ingestResult{}, fmt.Errorf("ingest said %q: %w", out, err)
	}
	return ingestResult{kept: rep.Kept, seconds: took, rssMB: maxRSS(ps)}, nil
}

type e2eResult struct {
	searchable     int
	seconds, index float64
	rss            []procRSS
}

// endToEnd runs the pipeline over the archive until it is searchable. With
// during, the migration's index stays and the embedder keeps it up as it
// inserts; without, it is dropped first and built after the load.
func (b *bench) endToEnd(dir string, parallel, n int, during bool) (e2eResult, error) {
	ctx := context.Background()
	prefix := fmt.Sprintf("benchingest%d", time.Now().UnixNano())
	environ, err := b.reset(ctx, "bench_ingest", prefix)
	if err != nil {
		return e2eResult{}, err
	}
	if _, _, err := b.newsctl(ctx, environ, "migrate"); err != nil {
		return e2eResult{}, err
	}
	// After the load: the migration made the index for the default model, so
	// it is dropped (EMBED_CREATE_INDEX=false keeps the embedder from making
	// it again).
	if !during {
		if _, _, err := b.newsctl(ctx, environ, "index", "drop"); err != nil {
			return e2eResult{}, err
		}
	}
	var workers []*exec.Cmd
	names := []string{"cleaner", "extractor", "embedder"}
	for _, w := range names {
		cmd := exec.Command(filepath.Join(b.bin, w))
		cmd.Env = environ
		if b.profiles != "" {
			cmd.Env = append(cmd.Env, "CPU_PROFILE="+filepath.Join(b.profiles, w+".prof"))
		}
		cmd.Stdout, cmd.Stderr = io.Discard, os.Stderr
		if err := cmd.Start(); err != nil {
			return e2eResult{}, err
		}
		workers = append(workers, cmd)
	}
	defer func() {
		for _, w := range workers {
			if w.ProcessState == nil {
				w.Process.Kill()
				w.Wait()
			}
		}
	}()
	start := time.Now()
	_, ips, err := b.newsctl(ctx, environ, "ingest", dir, "--json", "--parallel", fmt.Sprint(parallel))
	if err != nil {
		return e2eResult{}, err
	}
	if _, _, err := b.newsctl(ctx, environ, "wait", "--timeout", "30m"); err != nil {
		return e2eResult{}, err
	}
	loaded := time.Now()
	if _, _, err := b.newsctl(ctx, environ, "index", "build"); err != nil { // a no-op when kept up
		return e2eResult{}, err
	}
	res := e2eResult{seconds: time.Since(start).Seconds(), index: time.Since(loaded).Seconds()}
	res.rss = append(res.rss, procRSS{"ingest", maxRSS(ips), cpuSeconds(ips)})
	for i, w := range workers {
		w.Process.Signal(syscall.SIGTERM)
		w.Wait()
		res.rss = append(res.rss, procRSS{names[i], maxRSS(w.ProcessState), cpuSeconds(w.ProcessState)})
	}
	conn, err := pgx.Connect(ctx, b.schemaURL("bench_ingest"))
	if err != nil {
		return res, err
	}
	defer conn.Close(ctx)
	if err := conn.QueryRow(ctx, `SELECT count(DISTINCT doc_id) FROM chunks`).Scan(&res.searchable); err != nil {
		return res, err
	}
	if res.searchable < n*95/100 {
		return res, fmt.Errorf("only %d of %d documents searchable", res.searchable, n)
	}
	// One query through the index, so "searchable" is shown, not assumed.
	out, _, err := b.newsctl(ctx, environ, "search", "harbour council budget", "--k", "3", "--json")
	if err != nil || !strings.Contains(out, "paper") {
		return res, fmt.Errorf("search after the build: %v %q", err, out)
	}
	return res, nil
}

func cpuSeconds(ps *os.ProcessState) float64 {
	if ps == nil {
		return 0
	}
	return (ps.UserTime() + ps.SystemTime()).Seconds()
}

func maxRSS(ps *os.ProcessState) int64 {
	if ps == nil {
		return 0
	}
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return ru.Maxrss / 1024
	}
	return 0
}

var (
	words    = strings.Fields("council harbour budget minister bridge river school hospital election court police storm market railway museum festival farmers union strike report inquiry mayor village ferry airport tunnel energy wind solar water price housing tenants rent teachers nurses doctors patients league season match coach transfer derby stadium fans theatre concert gallery novel author award science study researchers climate flood drought harvest fishing coast island mountain road traffic cyclists")
	sections = []string{"politics", "business", "sport", "culture", "science", "local", "world", "opinion"}
)

// page is article i: its own text (no two alike), in the boilerplate of a
// news site (navigation, related links, scripts, a footer) to 30–80 KB.
func page(i int, host string) string {
	rng := rand.New(rand.NewPCG(uint64(i)+7, 0xbe11c4))
	sentence := func() string {
		k := 8 + rng.IntN(14)
		ws := make([]string, k)
		for j := range ws {
			ws[j] = words[rng.IntN(len(words))]
			if rng.IntN(9) == 0 {
				ws[j] = fmt.Sprintf("%s%d", ws[j], rng.IntN(1000))
			}
		}
		ws[0] = strings.ToUpper(ws[0][:1]) + ws[0][1:]
		return strings.Join(ws, " ") + "."
	}
	title := fmt.Sprintf("%s %s %s: report %d", strings.ToUpper(words[i%len(words)][:1])+words[i%len(words)][1:], words[(i/7)%len(words)], words[(i/49)%len(words)], i)
	var bld strings.Builder
	section := sections[i%len(sections)]
	fmt.Fprintf(&bld, `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>%s | Paper</title>
<meta property="og:type" content="article"><meta property="og:title" content="%s">
<meta property="article:published_time" content="2024-%02d-%02dT08:00:00Z"><meta name="author" content="Reporter %d">
<link rel="canonical" href="https://%s/2024/%02d/story-%d"><style>`, title, title, 1+i%12, 1+i%28, i%40, host, 1+i%12, i)
	for j := range 60 + rng.IntN(60) { // a stylesheet
		fmt.Fprintf(&bld, ".c%d{margin:%dpx;padding:%dpx;color:#%06x}", j, j%9, j%7, rng.IntN(1<<24))
	}
	bld.WriteString(`</style><script>window.dataLayer=window.dataLayer||[];`)
	for j := range 80 + rng.IntN(120) { // analytics and ads
		fmt.Fprintf(&bld, "dataLayer.push({event:'slot%d',id:%d});", j, rng.IntN(1e6))
	}
	bld.WriteString(`</script></head><body><header><nav><ul>`)
	for j := range 80 + rng.IntN(80) {
		fmt.Fprintf(&bld, `<li><a href="/%s/topic-%d">%s %s</a></li>`, sections[j%len(sections)], j, words[j%len(words)], words[(j*3)%len(words)])
	}
	fmt.Fprintf(&bld, `</ul></nav></header><main><article><h1>%s</h1><p class="byline">By Reporter %d, %s desk</p>`, title, i%40, section)
	for range 6 + rng.IntN(8) {
		bld.WriteString("<p>")
		for range 3 + rng.IntN(4) {
			bld.WriteString(sentence() + " ")
		}
		bld.WriteString("</p>")
	}
	bld.WriteString(`</article><aside><h2>Most read</h2><ol>`)
	for j := range 20 + rng.IntN(30) {
		fmt.Fprintf(&bld, `<li><a href="/%s/story-%d">%s %s %s</a></li>`, section, rng.IntN(1e6), words[rng.IntN(len(words))], words[rng.IntN(len(words))], words[j%len(words)])
	}
	bld.WriteString(`</ol></aside></main><footer><ul>`)
	for j := range 60 + rng.IntN(60) {
		fmt.Fprintf(&bld, `<li><a href="/about/page-%d">About %s</a></li>`, j, words[j%len(words)])
	}
	bld.WriteString(`</ul><p>© Paper</p></footer></body></html>`)
	return bld.String()
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}
