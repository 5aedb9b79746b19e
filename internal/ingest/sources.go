package ingest

import (
	"bufio"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// A Source is one WARC stream to read: a file, a URL, or standard input.
type Source struct {
	Name string // as checkpointed: a cleaned path, a URL, or "-"
	Size int64  // bytes, or -1 when unknown
	open func(ctx context.Context, offset int64) (io.ReadCloser, error)
	// Resumable: open can start at an offset (a file, a URL that takes a
	// Range request). Standard input is read once, without a checkpoint.
	Resumable bool
}

// Open starts reading the source at offset.
func (s Source) Open(ctx context.Context, offset int64) (io.ReadCloser, error) {
	return s.open(ctx, offset)
}

// isWARCName reports a file name that holds WARC records.
func isWARCName(name string) bool {
	n := strings.ToLower(name)
	return strings.HasSuffix(n, ".warc") || strings.HasSuffix(n, ".warc.gz")
}

// isListingName reports a file name of a listing of WARC paths, one per
// line (Common Crawl's warc.paths.gz).
func isListingName(name string) bool {
	n := strings.ToLower(name)
	return strings.HasSuffix(n, ".paths") || strings.HasSuffix(n, ".paths.gz") || strings.HasSuffix(n, ".txt")
}

// Expand turns the command's arguments into sources, in order: a file, a
// directory (its WARC files, sorted), an http(s) URL, a listing of paths
// or URLs (relative ones joined to baseURL, else to the listing's own
// place), or "-" for standard input. client downloads (the crawler's SSRF
// guard on the address dialled).
func Expand(ctx context.Context, args []string, baseURL string, client *http.Client) ([]Source, error) {
	var out []Source
	seen := map[string]bool{}
	add := func(s Source) {
		if !seen[s.Name] {
			seen[s.Name] = true
			out = append(out, s)
		}
	}
	for _, arg := range args {
		switch {
		case arg == "-":
			add(stdinSource())
		case isListingName(arg):
			lines, err := readListing(ctx, arg, client)
			if err != nil {
				return nil, err
			}
			for _, l := range lines {
				s, err := listed(l, baseURL, arg, client)
				if err != nil {
					return nil, err
				}
				add(s)
			}
		case isURL(arg):
			add(urlSource(arg, client))
		default:
			fi, err := os.Stat(arg)
			if err != nil {
				return nil, fmt.Errorf("source %s: %w", arg, err)
			}
			if fi.IsDir() {
				files, err := warcFiles(arg)
				if err != nil {
					return nil, err
				}
				if len(files) == 0 {
					return nil, fmt.Errorf("source %s: no .warc or .warc.gz files in it", arg)
				}
				for _, f := range files {
					add(fileSource(f))
				}
				continue
			}
			add(fileSource(arg))
		}
	}
	return out, nil
}

func isURL(s string) bool { return strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://") }

// listed is a listing's line as a source.
func listed(line, baseURL, listing string, client *http.Client) (Source, error) {
	switch {
	case isURL(line):
		return urlSource(line, client), nil
	case baseURL != "":
		b, err := url.Parse(strings.TrimSuffix(baseURL, "/") + "/")
		if err != nil {
			return Source{}, fmt.Errorf("--base-url %q: %w", baseURL, err)
		}
		ref, err := url.Parse(strings.TrimPrefix(line, "/"))
		if err != nil {
			return Source{}, fmt.Errorf("listing line %q: %w", line, err)
		}
		u := b.ResolveReference(ref).String()
		if isURL(u) {
			return urlSource(u, client), nil
		}
		return fileSource(filepath.FromSlash(strings.TrimPrefix(u, "file://"))), nil
	case isURL(listing):
		b, _ := url.Parse(listing)
		ref, err := url.Parse(line)
		if err != nil {
			return Source{}, fmt.Errorf("listing line %q: %w", line, err)
		}
		return urlSource(b.ResolveReference(ref).String(), client), nil
	case filepath.IsAbs(line):
		return fileSource(line), nil
	}
	return fileSource(filepath.Join(filepath.Dir(listing), filepath.FromSlash(line))), nil
}

// readListing reads a listing (gzip'd or not): one path or URL per line.
func readListing(ctx context.Context, where string, client *http.Client) ([]string, error) {
	var r io.ReadCloser
	var err error
	if isURL(where) {
		r, err = urlSource(where, client).Open(ctx, 0)
	} else {
		r, err = os.Open(where)
	}
	if err != nil {
		return nil, fmt.Errorf("listing %s: %w", where, err)
	}
	defer r.Close()
	br := bufio.NewReader(r)
	var in io.Reader = br
	if b, _ := br.Peek(2); len(b) == 2 && b[0] == 0x1f && b[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("listing %s: %w", where, err)
		}
		in = zr
	}
	var out []string
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("listing %s: %w", where, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("listing %s names no files", where)
	}
	return out, nil
}

func warcFiles(dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && isWARCName(d.Name()) {
			out = append(out, p)
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}

func fileSource(path string) Source {
	name := filepath.Clean(path)
	if abs, err := filepath.Abs(name); err == nil {
		name = abs
	}
	size := int64(-1)
	if fi, err := os.Stat(name); err == nil {
		size = fi.Size()
	}
	return Source{Name: name, Size: size, Resumable: true, open: func(_ context.Context, offset int64) (io.ReadCloser, error) {
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		if offset > 0 {
			if _, err := f.Seek(offset, io.SeekStart); err != nil {
				f.Close()
				return nil, err
			}
		}
		return f, nil
	}}
}

func stdinSource() Source {
	return Source{Name: "-", Size: -1, open: func(context.Context, int64) (io.ReadCloser, error) {
		return io.NopCloser(os.Stdin), nil
	}}
}

// Download settings (variables for the tests).
var (
	idleTimeout = 60 * time.Second // a download that sends nothing for this long is dropped and resumed
	maxResumes  = 5                // resumes of one download after dropped connections
)

// A StatusError is a source that answered with an HTTP error.
type StatusError struct {
	URL    string
	Status int
}

func (e *StatusError) Error() string { return fmt.Sprintf("get %s: status %d", e.URL, e.Status) }

func urlSource(u string, client *http.Client) Source {
	return Source{Name: u, Size: -1, Resumable: true, open: func(ctx context.Context, offset int64) (io.ReadCloser, error) {
		d := &download{ctx: ctx, url: u, client: client, pos: offset}
		if err := d.request(); err != nil {
			return nil, err
		}
		return d, nil
	}}
}

// A download streams a URL, resuming with a Range request after a dropped
// connection or a stall.
type download struct {
	ctx     context.Context
	url     string
	client  *http.Client
	pos     int64
	body    io.ReadCloser
	cancel  context.CancelFunc
	idle    *time.Timer
	resumes int
	Size    int64
}

func (d *download) request() error {
	ctx, cancel := context.WithCancel(d.ctx)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, d.url, nil)
	if err != nil {
		cancel()
		return err
	}
	if d.pos > 0 {
		req.Header.Set("Range", fmt.Sprintf("bytes=%d-", d.pos))
	}
	req.Header.Set("Accept-Encoding", "identity")
	d.idle = time.AfterFunc(idleTimeout, cancel)
	resp, err := d.client.Do(req)
	if err != nil {
		d.idle.Stop()
		cancel()
		return fmt.Errorf("get %s: %w", d.url, err)
	}
	switch {
	case resp.StatusCode == http.StatusPartialContent && d.pos > 0:
	case resp.StatusCode == http.StatusOK:
		if d.pos > 0 { // no Range support: read up to where we were
			if _, err := io.CopyN(io.Discard, resp.Body, d.pos); err != nil {
				resp.Body.Close()
				d.idle.Stop()
				cancel()
				return fmt.Errorf("get %s: skip to %d: %w", d.url, d.pos, err)
			}
		}
		d.Size = resp.ContentLength
	default:
		resp.Body.Close()
		d.idle.Stop()
		cancel()
		return &StatusError{URL: d.url, Status: resp.StatusCode}
	}
	d.body, d.cancel = resp.Body, cancel
	return nil
}

func (d *download) Read(p []byte) (int, error) {
	for {
		d.idle.Reset(idleTimeout)
		n, err := d.body.Read(p)
		d.pos += int64(n)
		if err == nil || errors.Is(err, io.EOF) || n > 0 {
			if errors.Is(err, io.EOF) {
				d.idle.Stop()
			}
			return n, err
		}
		if d.ctx.Err() != nil || d.resumes >= maxResumes {
			return 0, fmt.Errorf("download %s at byte %d: %w", d.url, d.pos, err)
		}
		d.resumes++
		d.close()
		select {
		case <-time.After(time.Duration(d.resumes) * time.Second):
		case <-d.ctx.Done():
			return 0, d.ctx.Err()
		}
		if rerr := d.request(); rerr != nil {
			return 0, fmt.Errorf("resume %s at byte %d after %v: %w", d.url, d.pos, err, rerr)
		}
	}
}

func (d *download) close() {
	if d.body != nil {
		d.body.Close()
		d.idle.Stop()
		d.cancel()
		d.body = nil
	}
}

func (d *download) Close() error {
	d.close()
	return nil
}
