package archive_test

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	cbwarc "github.com/CorentinB/warc"
	"github.com/nlnwa/gowarc/v3"

	"github.com/newscrawl/newscrawl/internal/archive"
)

// rawRecord is a WARC record's bytes, with headers as given (Content-Length
// from the block unless cl is set).
func rawRecord(typ, uri, block string, cl int, extra ...string) []byte {
	if cl < 0 {
		cl = len(block)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "WARC/1.1\r\nWARC-Type: %s\r\nWARC-Record-ID: <urn:uuid:%08d-0000-0000-0000-000000000000>\r\n", typ, len(uri)*7+len(block))
	fmt.Fprintf(&b, "WARC-Date: 2024-03-05T10:00:00Z\r\nWARC-Target-URI: %s\r\n", uri)
	ct := "application/http; msgtype=response"
	if typ == "resource" {
		ct = "text/html"
	}
	fmt.Fprintf(&b, "Content-Type: %s\r\nContent-Length: %d\r\n", ct, cl)
	for _, e := range extra {
		b.WriteString(e + "\r\n")
	}
	b.WriteString("\r\n" + block + "\r\n\r\n")
	return []byte(b.String())
}

func httpBlock(body string, headers ...string) string {
	h := "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n"
	for _, x := range headers {
		h += x + "\r\n"
	}
	return h + fmt.Sprintf("Content-Length: %d\r\n\r\n", len(body)) + body
}

func gz(b []byte) []byte {
	var out bytes.Buffer
	zw := gzip.NewWriter(&out)
	zw.Write(b)
	zw.Close()
	return out.Bytes()
}

func page(n int) string {
	return fmt.Sprintf("<html><head><title>Story %d</title></head><body><p>%s</p></body></html>", n, strings.Repeat("word ", 50))
}

// readAll reads every record of data and sorts what the reader said.
type readResult struct {
	records  []*archive.Record
	skips    []*archive.Skip
	problems map[string]int
	err      error
}

func readAll(t *testing.T, data []byte, opts archive.Options) readResult {
	t.Helper()
	r := archive.NewReader(bytes.NewReader(data), 0, opts)
	res := readResult{problems: map[string]int{}}
	for i := 0; i < 100000; i++ {
		rec, err := r.Next()
		var p *archive.Problem
		var s *archive.Skip
		switch {
		case err == nil:
			res.records = append(res.records, rec)
		case errors.Is(err, io.EOF):
			return res
		case errors.As(err, &p):
			res.problems[p.Reason]++
		case errors.As(err, &s):
			res.skips = append(res.skips, s)
		default:
			res.err = err
			return res
		}
	}
	t.Fatal("the reader never ended")
	return res
}

func TestReader_ReadsEveryLayout(t *testing.T) {
	var records [][]byte
	for i := range 3 {
		records = append(records, rawRecord("response", fmt.Sprintf("https://news.example/%d", i), httpBlock(page(i)), -1))
	}
	records = append(records, rawRecord("request", "https://news.example/0", "GET / HTTP/1.1\r\n\r\n", -1))
	records = append(records, rawRecord("resource", "https://news.example/r", page(9), -1))
	plain := bytes.Join(records, nil)
	var perRecord []byte
	for _, r := range records {
		perRecord = append(perRecord, gz(r)...)
	}
	for name, data := range map[string][]byte{"gzip per record": perRecord, "one gzip stream": gz(plain), "uncompressed": plain} {
		t.Run(name, func(t *testing.T) {
			res := readAll(t, data, archive.Options{})
			if res.err != nil || len(res.problems) > 0 {
				t.Fatalf("err %v, problems %v", res.err, res.problems)
			}
			if len(res.records) != 4 || len(res.skips) != 1 || res.skips[0].Type != "request" {
				t.Fatalf("records %d, skips %+v; want 4 records and the request skipped", len(res.records), res.skips)
			}
			for i, rec := range res.records[:3] {
				if rec.TargetURI != fmt.Sprintf("https://news.example/%d", i) || string(rec.Body) != page(i) || rec.Status != 200 {
					t.Errorf("record %d: %s status %d body %q", i, rec.TargetURI, rec.Status, rec.Body[:min(40, len(rec.Body))])
				}
			}
			if r := res.records[3]; r.Type != "resource" || string(r.Body) != page(9) {
				t.Errorf("resource record: %+v", r.Header)
			}
			if name == "gzip per record" { // offsets and sizes are the members'
				at := int64(0)
				for i, rec := range res.records[:3] {
					n := int64(len(gz(records[i])))
					if rec.Offset != at || rec.Size != n {
						t.Errorf("record %d at %d size %d, want %d size %d", i, rec.Offset, rec.Size, at, n)
					}
					at += n
				}
			}
		})
	}
}

func TestReader_BadArchivesAreCountedAndTheRestGoesIn(t *testing.T) {
	good := func(i int) []byte {
		return gz(rawRecord("response", fmt.Sprintf("https://news.example/%d", i), httpBlock(page(i)), -1))
	}
	bomb := func() []byte { // a small member that decompresses to 64 MiB, honest about its length
		var out bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&out, gzip.BestCompression)
		block := "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n"
		n := 64<<20 + len(block)
		fmt.Fprintf(zw, "WARC/1.1\r\nWARC-Type: response\r\nWARC-Target-URI: https://news.example/bomb\r\nWARC-Date: 2024-03-05T10:00:00Z\r\nContent-Type: application/http; msgtype=response\r\nContent-Length: %d\r\n\r\n%s", n, block)
		zeros := make([]byte, 1<<20)
		for range 64 {
			zw.Write(zeros)
		}
		zw.Write([]byte("\r\n\r\n"))
		zw.Close()
		return out.Bytes()
	}
	lyingBomb := func() []byte { // says 100 bytes, then 64 MiB of zeros inside the member
		var out bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&out, gzip.BestCompression)
		zw.Write(rawRecord("response", "https://news.example/liar", httpBlock("x"), 100))
		zeros := make([]byte, 1<<20)
		for range 64 {
			zw.Write(zeros)
		}
		zw.Close()
		return out.Bytes()
	}
	torn := good(100)
	torn = torn[:len(torn)/2]
	cases := []struct {
		name       string
		middle     []byte
		wantReason string
	}{
		{"a truncated gzip member", torn, archive.ReasonTruncatedGzip},
		{"junk between records", []byte("this is not a record at all\n"), archive.ReasonJunk},
		{"a Content-Length longer than the block", gz(rawRecord("response", "https://news.example/long", httpBlock(page(5)), 99999)), archive.ReasonContentLength},
		{"a Content-Length shorter than the block", gz(rawRecord("response", "https://news.example/short", httpBlock(page(5)), 40)), archive.ReasonContentLength},
		{"a body over the cap", gz(rawRecord("response", "https://news.example/huge", httpBlock(strings.Repeat("x", 12<<20)), -1)), archive.ReasonTooLarge},
		{"a non-HTTP payload in a response record", gz(rawRecord("response", "https://news.example/nothttp", "just some text, no status line\r\n\r\nbody", -1)), archive.ReasonNotHTTP},
		{"a compression bomb inside a record", bomb(), archive.ReasonTooLarge},
		{"a member of zeros after a short record", lyingBomb(), archive.ReasonContentLength},
		{"a Content-Encoding that does not decode", gz(rawRecord("response", "https://news.example/enc", httpBlock("not gzip at all", "Content-Encoding: gzip"), -1)), archive.ReasonBadEncoding},
		{"a header without end", gz([]byte("WARC/1.1\r\nWARC-Type: response\r\n" + strings.Repeat("X-Pad: y\r\n", 8000))), archive.ReasonBadHeader},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			data := append(append(good(1), tc.middle...), good(2)...)
			res := readAll(t, data, archive.Options{})
			if res.err != nil {
				t.Fatalf("reader failed: %v", res.err)
			}
			if res.problems[tc.wantReason] == 0 {
				t.Errorf("problems %v, want %s counted", res.problems, tc.wantReason)
			}
			var got []string
			for _, r := range res.records {
				got = append(got, r.TargetURI)
			}
			if strings.Join(got, " ") != "https://news.example/1 https://news.example/2" {
				t.Errorf("records %v, want the two good ones around the bad part", got)
			}
		})
	}
	t.Run("an empty file", func(t *testing.T) {
		if res := readAll(t, nil, archive.Options{}); res.err != nil || len(res.records) != 0 || len(res.problems) != 0 {
			t.Errorf("got %+v", res)
		}
	})
}

func TestReader_WantSkipsOnTheHeaderAlone(t *testing.T) {
	var data []byte
	for i := range 10 {
		data = append(data, gz(rawRecord("response", fmt.Sprintf("https://h%d.example/a", i%2), httpBlock(page(i)), -1))...)
	}
	asked := 0
	res := readAll(t, data, archive.Options{Want: func(h archive.Header) (bool, string) {
		asked++
		return strings.HasPrefix(h.TargetURI, "https://h1."), "host"
	}})
	if asked != 10 || len(res.records) != 5 || len(res.skips) != 5 || res.skips[0].Reason != "host" {
		t.Errorf("asked %d, records %d, skips %d", asked, len(res.records), len(res.skips))
	}
}

func TestWriter_RecordsReadByBothLibrariesAndRepairAfterAKill(t *testing.T) {
	dir := t.TempDir()
	w, err := archive.NewWriter(archive.WriterConfig{Dir: dir, Software: "newscrawl test"})
	if err != nil {
		t.Fatal(err)
	}
	date := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	var locs []archive.Location
	for i := range 5 {
		f := archive.Fetch{URL: fmt.Sprintf("https://news.example/story/%d", i), Date: date, IP: "203.0.113.7",
			RequestHeader: http.Header{"User-Agent": {"NewsCrawl/test"}}, Status: 200, Proto: "HTTP/1.1",
			Header: http.Header{"Content-Type": {"text/html"}, "Content-Encoding": {"gzip"}}, Body: []byte(page(i))}
		if i == 3 {
			f.Revisit, f.Body = gowarc.ProfileServerNotModifiedV1_1, nil
			f.Status = 304
		}
		if i == 4 {
			f.Truncated = "length"
		}
		loc, err := w.Write(f)
		if err != nil {
			t.Fatal(err)
		}
		locs = append(locs, loc)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.warc.gz"))
	if len(files) != 1 || filepath.Base(files[0]) != locs[0].File {
		t.Fatalf("files %v, locations name %q", files, locs[0].File)
	}
	data, _ := os.ReadFile(files[0])

	// Our reader: every response where its location says, the revisit skipped.
	for i, loc := range locs {
		if i == 3 {
			continue
		}
		res := readAll(t, data[loc.Offset:loc.Offset+loc.Length], archive.Options{})
		if len(res.records) != 1 || string(res.records[0].Body) != page(i) || res.records[0].IP != "203.0.113.7" {
			t.Fatalf("record %d at %d+%d: %+v", i, loc.Offset, loc.Length, res)
		}
		if i == 4 && res.records[0].Truncated != "length" {
			t.Errorf("truncated mark lost")
		}
		if enc := res.records[0].HTTPHeader.Get("X-Crawler-Content-Encoding"); enc != "gzip" {
			t.Errorf("stored headers: %v", res.records[0].HTTPHeader)
		}
	}

	// The other library: every record parses, of the types written.
	r, err := cbwarc.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	types := map[string]int{}
	for {
		rec, err := r.ReadRecord()
		if err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			t.Fatalf("the other library: %v", err)
		}
		types[rec.Header.Get("WARC-Type")]++
		if rec.Header.Get("WARC-Type") == "response" && rec.Header.Get("WARC-Payload-Digest") == "" {
			t.Error("a response without WARC-Payload-Digest")
		}
	}
	if types["warcinfo"] != 1 || types["response"] != 4 || types["request"] != 5 || types["revisit"] != 1 {
		t.Errorf("record types %v", types)
	}

	// A writer killed mid-record: the torn member is cut off at the next start.
	torn := filepath.Join(dir, "newscrawl-dead.warc.gz.open")
	if err := os.WriteFile(torn, append(append([]byte{}, data...), data[locs[1].Offset:locs[1].Offset+locs[1].Length/2]...), 0o644); err != nil {
		t.Fatal(err)
	}
	w2, err := archive.NewWriter(archive.WriterConfig{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	w2.Close()
	fixed, err := os.ReadFile(strings.TrimSuffix(torn, ".open"))
	if err != nil || !bytes.Equal(fixed, data) {
		t.Errorf("repaired file: %d bytes (err %v), want the %d whole ones", len(fixed), err, len(data))
	}
}
