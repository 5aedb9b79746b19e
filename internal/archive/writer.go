package archive

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/klauspost/compress/gzip"
	"github.com/nlnwa/gowarc/v3"
)

// DefaultMaxFileSize is where a WARC file is closed and the next begun.
const DefaultMaxFileSize = 1 << 30

// WriterConfig says where and how a Writer archives.
type WriterConfig struct {
	Dir      string // one directory; each process writes files of its own in it
	MaxSize  int64  // rotation size; DefaultMaxFileSize when <= 0
	Software string // the warcinfo record's software field
	Logger   *slog.Logger
}

// A Writer archives fetches as WARC/1.1 files: gzip per record, a warcinfo
// record opening each file, rotation at a size. A file is written as
// NAME.open and renamed when closed; each open file is locked (flock on
// NAME.open.lock) by its writer, so a writer that starts finds the files
// of writers that died — locks the kernel released — and repairs them: it
// cuts a torn last record off and renames them. It is safe for concurrent
// use.
type Writer struct {
	cfg WriterConfig
	w   *gowarc.WarcFileWriter

	mu    sync.Mutex
	locks map[string]*os.File // open file path → its held lock
}

// A Fetch is one request and its answer, as the crawler saw them.
type Fetch struct {
	URL           string
	Date          time.Time // when the request was sent
	IP            string    // the address dialled
	RequestHeader http.Header
	Status        int
	Proto         string // HTTP/1.1, HTTP/2.0
	Header        http.Header
	Body          []byte // the payload as stored: decoded
	// Truncated is WARC-Truncated's reason when Body is not the whole
	// payload: "length" (the body cap), "unspecified" (not read).
	Truncated string
	// Revisit, when set, writes a revisit record instead of a response:
	// gowarc.ProfileServerNotModifiedV1_1 (a 304) or
	// gowarc.ProfileIdenticalPayloadDigestV1_1 (the body stored before).
	Revisit      string
	RefersToDate time.Time // the capture a revisit refers to, when known
}

// A Location is where a record went: its file (base name), the offset of
// its gzip member and the member's length.
type Location struct {
	File     string
	Offset   int64
	Length   int64
	RecordID string
}

// NewWriter opens dir for archiving (creating it) and repairs the files
// that writers which died left open there.
func NewWriter(cfg WriterConfig) (*Writer, error) {
	if cfg.MaxSize <= 0 {
		cfg.MaxSize = DefaultMaxFileSize
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if err := os.MkdirAll(cfg.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("warc directory: %w", err)
	}
	if err := Repair(cfg.Dir, cfg.Logger); err != nil {
		return nil, err
	}
	w := &Writer{cfg: cfg, locks: map[string]*os.File{}}
	gowarcMu.Lock()
	defer gowarcMu.Unlock()
	software := cfg.Software
	w.w = gowarc.NewWarcFileWriter(
		gowarc.WithMaxFileSize(cfg.MaxSize),
		gowarc.WithCompression(true),
		gowarc.WithFileNameGenerator(&gowarc.PatternNameGenerator{Directory: cfg.Dir, Prefix: "newscrawl-",
			Pattern: "%{prefix}s%{ts}s-%{pid}d-%04{serial}d-%{hostOrIp}s.%{ext}s", Params: map[string]any{"pid": os.Getpid()}}),
		gowarc.WithBeforeFileCreationHook(w.lock),
		gowarc.WithAfterFileCreationHook(func(final string, _ int64, _ string) error {
			w.unlock(final + ".open")
			return nil
		}),
		gowarc.WithWarcInfoFunc(func(b gowarc.WarcRecordBuilder) error {
			host, _ := os.Hostname()
			b.WriteString("software: " + software + "\r\nformat: WARC File Format 1.1\r\n" +
				"conformsTo: https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/\r\n" +
				"hostname: " + host + "\r\n")
			return nil
		}),
		gowarc.WithRecordOptions(gowarc.WithAddMissingDigest(true), gowarc.WithAddMissingContentLength(true),
			gowarc.WithAddMissingRecordId(true), gowarc.WithBufferTmpDir(cfg.Dir)),
	)
	return w, nil
}

// Write archives one fetch: its response (or revisit) record, then its
// request record, concurrent to it. It returns where the response went.
func (w *Writer) Write(f Fetch) (Location, error) {
	gowarcMu.Lock() // the file writer writes one record at a time anyway
	defer gowarcMu.Unlock()
	resp, err := w.response(f)
	if err != nil {
		return Location{}, err
	}
	id := resp.RecordId()
	req, err := w.request(f, id)
	if err != nil {
		resp.Close()
		return Location{}, err
	}
	out := w.w.Write(resp, req)
	if len(out) < 2 {
		return Location{}, errors.New("warc writer is closed")
	}
	if err := errors.Join(out[0].Err, out[1].Err); err != nil {
		return Location{}, fmt.Errorf("archive %s: %w", f.URL, err)
	}
	loc := Location{File: out[0].FileName, Offset: out[0].FileOffset, RecordID: id}
	if out[1].FileName == out[0].FileName { // else the file rotated between the two: a member needs no length to be read
		loc.Length = out[1].FileOffset - out[0].FileOffset
	}
	return loc, nil
}

func (w *Writer) response(f Fetch) (gowarc.WarcRecord, error) { return responseRecord(f, w.cfg.Dir) }

// responseRecord builds f's response (or revisit) record; tmp holds what
// does not fit in memory.
func responseRecord(f Fetch, tmp string) (gowarc.WarcRecord, error) {
	typ := gowarc.Response
	if f.Revisit != "" {
		typ = gowarc.Revisit
	}
	b := gowarc.NewRecordBuilder(typ, gowarc.WithAddMissingDigest(true), gowarc.WithAddMissingContentLength(true),
		gowarc.WithBufferTmpDir(tmp), gowarc.WithBufferMaxMemBytes(int64(len(f.Body))+64<<10))
	b.AddWarcHeader(gowarc.WarcTargetURI, f.URL)
	b.AddWarcHeaderTime(gowarc.WarcDate, f.Date)
	b.AddWarcHeader(gowarc.ContentType, "application/http;msgtype=response")
	if f.IP != "" {
		b.AddWarcHeader(gowarc.WarcIPAddress, f.IP)
	}
	if f.Truncated != "" {
		b.AddWarcHeader(gowarc.WarcTruncated, f.Truncated)
	}
	if f.Revisit != "" {
		b.AddWarcHeader(gowarc.WarcProfile, f.Revisit)
		b.AddWarcHeader(gowarc.WarcRefersToTargetURI, f.URL)
		if !f.RefersToDate.IsZero() {
			b.AddWarcHeaderTime(gowarc.WarcRefersToDate, f.RefersToDate)
		}
	}
	b.WriteString(statusLine(f) + "\r\n")
	writeHeader(b, storedHeader(f))
	b.WriteString("\r\n")
	if f.Revisit == "" {
		b.Write(f.Body)
	}
	rec, _, err := b.Build()
	if err != nil {
		return nil, fmt.Errorf("build response record of %s: %w", f.URL, err)
	}
	return rec, nil
}

func (w *Writer) request(f Fetch, concurrentTo string) (gowarc.WarcRecord, error) {
	b := gowarc.NewRecordBuilder(gowarc.Request, gowarc.WithAddMissingDigest(true), gowarc.WithAddMissingContentLength(true))
	b.AddWarcHeader(gowarc.WarcTargetURI, f.URL)
	b.AddWarcHeaderTime(gowarc.WarcDate, f.Date)
	b.AddWarcHeader(gowarc.ContentType, "application/http;msgtype=request")
	b.AddWarcHeader(gowarc.WarcConcurrentTo, concurrentTo)
	if f.IP != "" {
		b.AddWarcHeader(gowarc.WarcIPAddress, f.IP)
	}
	target, host := f.URL, ""
	if i := strings.Index(target, "://"); i >= 0 {
		rest := target[i+3:]
		host, target = rest, "/"
		if j := strings.IndexByte(rest, '/'); j >= 0 {
			host, target = rest[:j], rest[j:]
		}
	}
	b.WriteString("GET " + target + " HTTP/1.1\r\nHost: " + host + "\r\n")
	writeHeader(b, f.RequestHeader)
	b.WriteString("\r\n")
	rec, _, err := b.Build()
	if err != nil {
		return nil, fmt.Errorf("build request record of %s: %w", f.URL, err)
	}
	return rec, nil
}

// A StreamWriter writes response records, gzip per record, to one stream
// (newsctl export --format warc), after a warcinfo record.
type StreamWriter struct {
	w   io.Writer
	tmp string
	m   gowarc.Marshaler
	n   int64
}

// NewStreamWriter starts a WARC stream on w with its warcinfo record.
func NewStreamWriter(w io.Writer, software string) (*StreamWriter, error) {
	gowarcMu.Lock()
	defer gowarcMu.Unlock()
	s := &StreamWriter{w: w, tmp: os.TempDir(), m: gowarc.NewMarshaler()}
	b := gowarc.NewRecordBuilder(gowarc.Warcinfo, gowarc.WithAddMissingDigest(true), gowarc.WithAddMissingContentLength(true))
	b.AddWarcHeaderTime(gowarc.WarcDate, time.Now())
	b.AddWarcHeader(gowarc.ContentType, gowarc.ApplicationWarcFields)
	b.WriteString("software: " + software + "\r\nformat: WARC File Format 1.1\r\n")
	rec, _, err := b.Build()
	if err != nil {
		return nil, err
	}
	return s, s.write(rec)
}

// Write writes f's response record.
func (s *StreamWriter) Write(f Fetch) error {
	gowarcMu.Lock()
	defer gowarcMu.Unlock()
	rec, err := responseRecord(f, s.tmp)
	if err != nil {
		return err
	}
	return s.write(rec)
}

func (s *StreamWriter) write(rec gowarc.WarcRecord) error {
	defer rec.Close()
	zw := gzip.NewWriter(s.w)
	if _, _, err := s.m.Marshal(zw, rec, 0); err != nil {
		return fmt.Errorf("write warc record: %w", err)
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("write warc record: %w", err)
	}
	s.n++
	return nil
}

// Records is how many records were written, warcinfo included.
func (s *StreamWriter) Records() int64 { return s.n }

// Close closes the open files (renaming them to their final names).
func (w *Writer) Close() error {
	gowarcMu.Lock()
	defer gowarcMu.Unlock()
	return w.w.Close()
}

func statusLine(f Fetch) string {
	proto := f.Proto
	if proto == "" || strings.HasPrefix(proto, "HTTP/2") {
		proto = "HTTP/1.1" // the archive holds the exchange as HTTP/1.1 text
	}
	return fmt.Sprintf("%s %d %s", proto, f.Status, http.StatusText(f.Status))
}

// storedHeader is the response header as archived: the body is stored
// decoded, so the headers that describe its transfer are renamed
// X-Crawler-* (as Common Crawl does) and Content-Length is the stored one.
func storedHeader(f Fetch) http.Header {
	h := f.Header.Clone()
	if h == nil {
		h = http.Header{}
	}
	for _, k := range []string{"Content-Encoding", "Transfer-Encoding", "Content-Length"} {
		if v, ok := h[k]; ok {
			h["X-Crawler-"+k] = v
			delete(h, k)
		}
	}
	if f.Revisit == "" {
		h.Set("Content-Length", fmt.Sprint(len(f.Body)))
	}
	return h
}

func writeHeader(b gowarc.WarcRecordBuilder, h http.Header) {
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		for _, v := range h[k] {
			b.WriteString(k + ": " + strings.NewReplacer("\r", " ", "\n", " ").Replace(v) + "\r\n")
		}
	}
}

// lock takes the lock of an open file about to be created.
func (w *Writer) lock(path string) error {
	f, err := lockFile(path + ".lock")
	if err != nil {
		w.cfg.Logger.Error("lock warc file", "file", path, "err", err)
		return nil
	}
	w.mu.Lock()
	w.locks[path] = f
	w.mu.Unlock()
	return nil
}

func (w *Writer) unlock(path string) {
	w.mu.Lock()
	f := w.locks[path]
	delete(w.locks, path)
	w.mu.Unlock()
	if f != nil {
		_ = os.Remove(f.Name())
		_ = f.Close()
	}
}

var errLocked = errors.New("locked by a live writer")

func lockFile(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, errLocked
		}
		return nil, err
	}
	return f, nil
}

// Repair finishes the WARC files in dir that a writer left open when it
// died (no live writer holds their lock): a torn last gzip member is cut
// off, and the file takes its final name. Files of live writers are left
// alone.
func Repair(dir string, log *slog.Logger) error {
	open, err := filepath.Glob(filepath.Join(dir, "*.open"))
	if err != nil {
		return err
	}
	for _, path := range open {
		lock, err := lockFile(path + ".lock")
		if err != nil {
			continue // a live writer's, or gone
		}
		if err := repairOne(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			log.Error("repair warc file", "file", path, "err", err)
		} else if err == nil {
			log.Info("repaired a warc file left open", "file", strings.TrimSuffix(path, ".open"))
		}
		_ = os.Remove(lock.Name())
		lock.Close()
	}
	return nil
}

func repairOne(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	good, err := wholeMembers(f)
	if err != nil {
		return err
	}
	if err := f.Truncate(good); err != nil {
		return fmt.Errorf("cut the torn record off: %w", err)
	}
	if err := f.Sync(); err != nil {
		return err
	}
	return os.Rename(path, strings.TrimSuffix(path, ".open"))
}

// wholeMembers is the length of the run of whole gzip members r starts with.
func wholeMembers(r io.Reader) (int64, error) {
	cr := &countingReader{r: r}
	br := bufio.NewReaderSize(cr, readBufferSize)
	pos := func() int64 { return cr.n - int64(br.Buffered()) }
	var good int64
	var zr *gzip.Reader
	for {
		if b, _ := br.Peek(3); !bytes.Equal(b, []byte{0x1f, 0x8b, 0x08}) {
			return good, nil
		}
		var err error
		if zr == nil {
			zr, err = gzip.NewReader(br)
		} else {
			err = zr.Reset(br)
		}
		if err != nil {
			return good, nil
		}
		zr.Multistream(false)
		if _, err := io.Copy(io.Discard, zr); err != nil {
			return good, nil
		}
		good = pos()
	}
}
