package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const testPage = `<html lang="en"><head><title>Council approves budget | Gazette</title>
<meta property="article:published_time" content="2019-11-19T08:30:00Z"><meta name="author" content="Jane Doe">
<link rel="canonical" href="https://news.example.com/budget"></head><body><nav><a href="/">Home</a></nav><article>
<p>The city council voted on Tuesday to approve the new budget, which includes funding for schools, roads and parks.</p>
<p>Officials said the plan, drafted over six months, would take effect in January after a final review by the mayor.</p>
<p>Residents who attended the meeting raised concerns about rising costs, traffic congestion and housing.</p>
</article><footer>Copyright Gazette</footer></body></html>`

func TestRunExtract(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "page.html")
	if err := os.WriteFile(plain, []byte(testPage), 0o644); err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(testPage))
	zw.Close()
	gzFile := filepath.Join(dir, "page.html.gz")
	noExt := filepath.Join(dir, "page.bin") // gzip detected by magic bytes
	for _, p := range []string{gzFile, noExt} {
		if err := os.WriteFile(p, gz.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	garbage := filepath.Join(dir, "garbage")
	os.WriteFile(garbage, []byte{0, 1, 2, 3, 0xff, 0}, 0o644)

	cases := []struct {
		name     string
		args     []string
		stdin    string
		code     int
		contains string
		stderr   string
	}{
		{"file", []string{plain}, "", 0, "approve the new budget", ""},
		{"stdin dash", []string{"-"}, testPage, 0, "drafted over six months", ""},
		{"flag after file", []string{plain, "--url", "https://x.example/a"}, "", 0, "approve the new budget", ""},
		{"stdin implicit", nil, testPage, 0, "traffic congestion", ""},
		{"gzip by name", []string{gzFile}, "", 0, "approve the new budget", ""},
		{"gzip by magic", []string{noExt}, "", 0, "approve the new budget", ""},
		{"gzip on stdin", nil, gz.String(), 0, "approve the new budget", ""},
		{"missing file", []string{filepath.Join(dir, "nope.html")}, "", 1, "", "nope.html"},
		{"binary", []string{garbage}, "", 1, "", "not HTML"},
		{"bad flag", []string{"--nope"}, "", 2, "", "flag provided but not defined"},
		{"two files", []string{plain, plain}, "", 2, "", "usage"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := runExtract(tc.args, strings.NewReader(tc.stdin), &out, &errb)
			if code != tc.code {
				t.Fatalf("exit %d, want %d (stderr %q)", code, tc.code, errb.String())
			}
			if !strings.Contains(out.String(), tc.contains) {
				t.Errorf("stdout %q lacks %q", out.String(), tc.contains)
			}
			if tc.code == 0 && (strings.Contains(out.String(), "Home") || strings.Contains(out.String(), "Copyright")) {
				t.Errorf("boilerplate in stdout %q", out.String())
			}
			if !strings.Contains(errb.String(), tc.stderr) {
				t.Errorf("stderr %q lacks %q", errb.String(), tc.stderr)
			}
		})
	}
}

func TestRunExtractJSON(t *testing.T) {
	var out, errb bytes.Buffer
	code := runExtract([]string{"--json", "--url", "https://news.example.com/amp/budget"}, strings.NewReader(testPage), &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var got map[string]any
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("bad JSON %q: %v", out.String(), err)
	}
	for _, k := range []string{"title", "text", "authors", "published_at", "language", "canonical_url", "is_article",
		"modified_at", "tags", "site_name", "description", "top_image", "section", "page_kind", "word_count"} {
		if _, ok := got[k]; !ok {
			t.Errorf("missing key %q", k)
		}
	}
	want := map[string]any{
		"title": "Council approves budget", "published_at": "2019-11-19T08:30:00Z", "language": "en",
		"canonical_url": "https://news.example.com/budget", "is_article": true, "modified_at": nil,
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
	if a, _ := got["authors"].([]any); len(a) != 1 || a[0] != "Jane Doe" {
		t.Errorf("authors = %v", got["authors"])
	}
	if tags, ok := got["tags"].([]any); !ok || len(tags) != 0 {
		t.Errorf("tags = %#v, want []", got["tags"])
	}
}

// --fetched-at judges dates against an archive's capture time; a bad time
// is a usage error.
func TestRunExtractFetchedAt(t *testing.T) {
	for _, tc := range []struct {
		fetched, published string
		code               int
	}{
		{"2019-11-20T00:00:00Z", "2019-11-19T08:30:00Z", 0},
		{"2018-06-01T00:00:00Z", "", 0}, // captured before the day the page declares
		{"last tuesday", "", 2},
	} {
		var out, errb bytes.Buffer
		code := runExtract([]string{"--json", "--fetched-at", tc.fetched}, strings.NewReader(testPage), &out, &errb)
		if code != tc.code {
			t.Fatalf("%s: exit %d, want %d (stderr %q)", tc.fetched, code, tc.code, errb.String())
		}
		if code != 0 {
			if !strings.Contains(errb.String(), "RFC 3339") {
				t.Errorf("%s: stderr %q does not say what time it wants", tc.fetched, errb.String())
			}
			continue
		}
		var got struct {
			PublishedAt string `json:"published_at"`
		}
		if err := json.Unmarshal(out.Bytes(), &got); err != nil {
			t.Fatal(err)
		}
		if got.PublishedAt != tc.published {
			t.Errorf("%s: published_at %q, want %q", tc.fetched, got.PublishedAt, tc.published)
		}
	}
}
