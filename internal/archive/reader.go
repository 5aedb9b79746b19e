// Package archive reads and writes web archives (WARC 1.0/1.1): a bounded
// reader that turns any WARC stream — gzip per record, one gzip over the
// whole file, or none — into records with their place in the file, and
// skips what is broken with a reason; and the crawler's writer.
//
// Records are parsed by github.com/nlnwa/gowarc/v3. What is ours is the
// framing around it: finding each record (and each gzip member) so that a
// torn member, junk between records or a lying Content-Length costs that
// record alone, judging a record on its WARC header before its block is
// read (filters cost no parsing), and a bound on every record, so a
// compression bomb or a huge body never holds more than the body cap.
package archive

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httputil"
	"net/textproto"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/klauspost/compress/gzip"
	"github.com/nlnwa/gowarc/v3"

	"github.com/newscrawl/newscrawl/internal/crawl/fetch"
)

// Defaults of Options.
const (
	DefaultMaxBody   = 10 << 20  // as the crawler's CRAWL_MAX_BODY
	maxHeader        = 64 << 10  // a WARC header block longer than this is not one
	maxJunk          = 1 << 20   // junk decompressed inside one gzip member before it is given up
	readBufferSize   = 256 << 10 // compressed input
	memberBufferSize = 64 << 10  // decompressed input
)

// Reasons a record is skipped, the keys of Report.Malformed.
const (
	ReasonTruncatedGzip = "truncated_gzip"  // a gzip member that ends early or fails its checksum
	ReasonJunk          = "junk"            // bytes between records that start none
	ReasonBadHeader     = "bad_header"      // a WARC header block that does not parse
	ReasonContentLength = "content_length"  // the block is not as long as Content-Length says
	ReasonTooLarge      = "over_body_cap"   // a block larger than the body cap (a bomb included)
	ReasonNotHTTP       = "not_http"        // a response record whose block is no HTTP response
	ReasonBadEncoding   = "bad_encoding"    // a Content- or Transfer-Encoding that does not decode
	ReasonBadURI        = "bad_target_uri"  // NUL, invalid UTF-8 or no http(s) URL
	ReasonDigest        = "digest_mismatch" // the block or payload is not what its digest says
)

// Options bound a Reader.
type Options struct {
	// MaxBody is the largest HTTP payload kept (decoded); a record whose
	// block is larger is skipped as ReasonTooLarge without being held.
	MaxBody int64
	// Want, when set, is asked about each record on its WARC header alone,
	// before the block is read: false skips it at the cost of reading past
	// it. reason is counted in Report.Filtered.
	Want func(h Header) (ok bool, reason string)
}

// Header is a record's WARC header: the fields filters look at, read by
// the framing before the record is parsed.
type Header struct {
	Type, TargetURI, RecordID, ContentType, Truncated, IP string
	Date                                                  time.Time
	Length                                                int64 // Content-Length of the block
}

// A Record is one kept response or resource record.
type Record struct {
	Header
	// Offset is where the record starts in the source (its gzip member's
	// first byte); Size is what it takes there. In a file compressed as one
	// gzip stream they are offsets in the decompressed stream.
	Offset, Size int64
	Status       int         // the HTTP status; 200 for a resource record
	HTTPHeader   http.Header // of the response; nil for a resource record
	Body         []byte      // the payload, any Content- and Transfer-Encoding undone
}

// A Problem is a record or a stretch of the source skipped as malformed.
type Problem struct {
	Offset int64
	Reason string
	Err    error
}

func (p *Problem) Error() string {
	return fmt.Sprintf("offset %d: %s: %v", p.Offset, p.Reason, p.Err)
}

// A Skip is a record passed over on its header: Options.Want refused it,
// or its type is not response or resource.
type Skip struct {
	Offset int64
	Type   string
	Reason string
}

func (s *Skip) Error() string {
	return fmt.Sprintf("offset %d: %s record skipped: %s", s.Offset, s.Type, s.Reason)
}

// gowarcMu serializes what builds gowarc's options: each build sets a
// global of the uuid package (uuid.EnableRandPool), a data race when two
// goroutines build at once.
var gowarcMu sync.Mutex

// A Reader yields the records of one WARC stream. It is not safe for
// concurrent use.
type Reader struct {
	opts  Options
	raw   *countingReader // the source, which keeps its first error
	tee   *teeSource      // the current member's compressed bytes, for a replay
	src   *countingReader // what in reads: the source, or a replay in front of it
	in    *bufio.Reader   // compressed (or plain) input
	start int64           // source offset of src's first byte

	zr        *gzip.Reader
	member    *bufio.Reader   // the current gzip member's decompressed bytes, nil between members
	memberBuf *bufio.Reader   // member's buffer, reused
	inMember  *countingReader // counts them
	memberAt  int64           // source offset of the current member
	records   int             // records found in the current member
	plain     bool            // not gzip: records follow one another in the stream
	quietSkip bool            // what nextMember skips next is a torn member's rest, reported already
	wholeGzip bool            // one gzip member holds many records: offsets are in its decompressed bytes
	done      bool

	unmarshal gowarc.Unmarshaler
	recordBuf *bufio.Reader
	pending   []error // problems found while moving on, reported before the next record
}

// NewReader reads WARC records from r, whose first byte is at offset start
// of its source (a resumed download or a seek).
func NewReader(r io.Reader, start int64, opts Options) *Reader {
	if opts.MaxBody <= 0 {
		opts.MaxBody = DefaultMaxBody
	}
	raw := &countingReader{r: r}
	tee := &teeSource{r: raw, start: start}
	src := &countingReader{r: tee}
	gowarcMu.Lock()
	u := gowarc.NewUnmarshaler(gowarc.WithBufferMaxMemBytes(opts.MaxBody+maxHeader),
		gowarc.WithSyntaxErrorPolicy(gowarc.ErrWarn), gowarc.WithSpecViolationPolicy(gowarc.ErrWarn),
		gowarc.WithUnknownRecordTypePolicy(gowarc.ErrIgnore))
	gowarcMu.Unlock()
	return &Reader{opts: opts, raw: raw, tee: tee, src: src, in: bufio.NewReaderSize(src, readBufferSize), start: start,
		unmarshal: u, recordBuf: bufio.NewReaderSize(nil, memberBufferSize)}
}

// Offset is the source offset of the next byte the reader would frame.
func (r *Reader) Offset() int64 { return r.start + r.src.n - int64(r.in.Buffered()) }

// Seekable reports whether record offsets are offsets in the source, where
// a reader may start again (false for a file gzipped as one stream, whose
// offsets are in its decompressed bytes: resume reads it from the start).
func (r *Reader) Seekable() bool { return !r.wholeGzip }

// Next returns the next kept record, a *Skip or a *Problem (the reader
// goes on after either), an error of the source itself (the reader is
// then done), or io.EOF at the end.
func (r *Reader) Next() (*Record, error) {
	for {
		if len(r.pending) > 0 {
			err := r.pending[0]
			r.pending = r.pending[1:]
			return nil, err
		}
		if r.done {
			return nil, io.EOF
		}
		if r.member == nil && !r.plain {
			if err := r.nextMember(); errors.Is(err, io.EOF) {
				r.done = true
			} else if err != nil {
				r.done = true
				return nil, err
			}
			continue
		}
		rec, err := r.nextRecord()
		switch {
		case errors.Is(err, io.EOF) && r.plain:
			r.done = true
		case errors.Is(err, io.EOF):
			r.member = nil
		case err != nil && r.raw.err != nil: // the source failed, not the archive
			r.done = true
			return nil, fmt.Errorf("read archive at offset %d: %w", r.Offset(), r.raw.err)
		default:
			return rec, err
		}
	}
}

// nextMember positions the reader on the next gzip member, or switches to
// plain records when the stream holds them. Junk before either is a
// Problem; io.EOF ends the stream.
func (r *Reader) nextMember() error {
	at, skipped, quiet := r.Offset(), int64(0), r.quietSkip
	r.quietSkip = false
	defer func() {
		if skipped > 0 && !quiet {
			r.pending = append(r.pending, &Problem{Offset: at, Reason: ReasonJunk, Err: fmt.Errorf("%d bytes that start no record", skipped)})
		}
	}()
	for {
		b, err := r.in.Peek(5)
		switch {
		case isGzipStart(b):
			if r.openMember() == nil {
				return nil
			}
		case bytes.Equal(b, []byte("WARC/")):
			r.plain = true
			return nil
		case len(b) < 5:
			d, _ := r.in.Discard(len(b))
			skipped += int64(d)
			if r.raw.err != nil {
				return fmt.Errorf("read archive at offset %d: %w", r.Offset(), r.raw.err)
			}
			if err == nil || errors.Is(err, io.EOF) {
				return io.EOF
			}
			return err
		}
		skipped += r.skipToNextStart()
	}
}

// skipToNextStart drops input up to the next byte, after the first, that
// may begin a gzip member or a record, and reports how many it dropped.
func (r *Reader) skipToNextStart() int64 {
	b, _ := r.in.Peek(readBufferSize)
	if len(b) == 0 {
		return 0
	}
	i := indexStart(b[1:]) + 1
	if i <= 0 {
		i = max(len(b)-4, 1) // keep a tail that may begin a magic cut by the buffer's end
	}
	d, _ := r.in.Discard(i)
	return int64(d)
}

func (r *Reader) openMember() error {
	r.memberAt = r.Offset()
	r.tee.from(r.memberAt)
	var err error
	if r.zr == nil {
		r.zr, err = gzip.NewReader(r.in)
	} else {
		err = r.zr.Reset(r.in)
	}
	if err != nil {
		return err
	}
	r.zr.Multistream(false)
	if r.inMember == nil {
		r.inMember = &countingReader{}
		r.memberBuf = bufio.NewReaderSize(r.inMember, memberBufferSize)
	}
	*r.inMember = countingReader{r: r.zr}
	r.memberBuf.Reset(r.inMember)
	r.member = r.memberBuf
	r.records = 0
	return nil
}

// abandon leaves the current member: a member that ends within a bound
// is read to its end (and its checksum checked), one that goes on (a bomb)
// is left undecompressed and the next member is looked for in the
// compressed input.
func (r *Reader) abandon() {
	if r.member == nil {
		return
	}
	_, err := io.CopyN(io.Discard, r.member, maxJunk)
	r.member = nil
	switch {
	case errors.Is(err, io.EOF):
	case err == nil: // more than the bound
		if b, _ := r.in.Peek(1); len(b) > 0 {
			r.skipToNextStart()
		}
	default:
		r.torn(err)
	}
}

// torn reports a member the decompressor failed on, and reads the input
// again from just after the member's first byte: what it took for the
// member's data may hold the next members (a member cut short is followed
// by whole ones).
func (r *Reader) torn(err error) {
	r.member = nil
	r.pending = append(r.pending, &Problem{Offset: r.memberAt, Reason: ReasonTruncatedGzip, Err: err})
	replay, ok := r.tee.replay(r.memberAt + 1)
	if !ok {
		r.skipToNextStart()
		return
	}
	r.start = r.memberAt + 1
	r.tee = &teeSource{r: io.MultiReader(bytes.NewReader(replay), r.tee.r), start: r.start}
	r.src = &countingReader{r: r.tee}
	r.in = bufio.NewReaderSize(r.src, readBufferSize)
	r.quietSkip = true
}

// nextRecord frames, judges and parses one record of the current member
// (or of the plain stream).
func (r *Reader) nextRecord() (*Record, error) {
	in := r.member
	if r.plain {
		in = r.in
	}
	at := r.position()
	junk, err := skipToMagic(in, !r.plain)
	if junk > 0 {
		r.pending = append(r.pending, &Problem{Offset: at, Reason: ReasonJunk, Err: fmt.Errorf("%d bytes that start no record", junk)})
	}
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, io.EOF
		}
		if errors.Is(err, errJunkBound) {
			r.abandon()
			return nil, r.next()
		}
		if !r.plain { // a torn or corrupt member
			r.torn(err)
			return nil, r.next()
		}
		return nil, err
	}
	offset := r.position()
	r.records++
	if !r.plain && r.records == 2 {
		r.wholeGzip = true
	}
	h, hdrLen, perr := parseHeader(in)
	if perr != nil {
		_, _ = in.Discard(1) // past this "WARC/", to look for the next one
		return nil, r.failed(&Problem{Offset: offset, Reason: ReasonBadHeader, Err: perr})
	}
	total := int64(hdrLen) + h.Length
	if h.Length > r.opts.MaxBody+maxHeader {
		p := &Problem{Offset: offset, Reason: ReasonTooLarge, Err: fmt.Errorf("%s record of %d bytes (cap %d)", h.Type, h.Length, r.opts.MaxBody)}
		if !r.plain && !r.wholeGzip {
			r.abandon() // on to the next member, without decompressing this one
			return nil, p
		}
		return nil, r.discard(in, total, p)
	}
	if h.Type != "response" && h.Type != "resource" {
		return nil, r.discard(in, total, &Skip{Offset: offset, Type: h.Type, Reason: "not a response or resource"})
	}
	if r.opts.Want != nil {
		if ok, why := r.opts.Want(h); !ok {
			return nil, r.discard(in, total, &Skip{Offset: offset, Type: h.Type, Reason: why})
		}
	}
	rec, err := r.parse(in, h, total)
	if err != nil {
		if p, ok := err.(*Problem); ok {
			p.Offset = offset
		}
		return nil, r.failed(err)
	}
	rec.Offset = offset
	if err := r.finish(rec); err != nil {
		return nil, err
	}
	return rec, nil
}

// position is where the next record would start: in the source, or in the
// decompressed stream of a whole-file gzip.
func (r *Reader) position() int64 {
	switch {
	case r.plain:
		return r.Offset()
	case r.wholeGzip || r.records > 0:
		return r.inMember.n - int64(r.member.Buffered())
	}
	return r.memberAt
}

// finish sets the record's size. A member that held it alone is ended
// here (its checksum checked), so the reader stands at the next member.
func (r *Reader) finish(rec *Record) error {
	if r.plain || r.wholeGzip {
		rec.Size = r.position() - rec.Offset
		return nil
	}
	b, err := r.member.Peek(1)
	if len(b) > 0 {
		rec.Size = r.position() - rec.Offset // more in this member: sized in its decompressed bytes
		return nil
	}
	if !errors.Is(err, io.EOF) {
		r.torn(err)
		return r.next()
	}
	r.member = nil
	rec.Size = r.Offset() - r.memberAt
	return nil
}

// failed is a Problem met inside a member: the member is given up unless
// it holds many records.
func (r *Reader) failed(err error) error {
	if !r.plain && !r.wholeGzip {
		r.abandon()
	}
	return err
}

func (r *Reader) next() error {
	err := r.pending[0]
	r.pending = r.pending[1:]
	return err
}

// discard passes over a record's n bytes and its end marker, and returns
// why.
func (r *Reader) discard(in *bufio.Reader, n int64, why error) error {
	if _, err := io.CopyN(io.Discard, in, n); err != nil && !r.plain {
		if !errors.Is(err, io.EOF) {
			r.torn(err)
		}
		r.member = nil
		return why
	}
	skipCRLF(in)
	return why
}

// parse hands the record's bytes to gowarc and takes its payload.
func (r *Reader) parse(in *bufio.Reader, h Header, total int64) (*Record, error) {
	limited := io.LimitReader(in, total+4) // the block and its end marker
	r.recordBuf.Reset(limited)
	wr, _, validation, err := r.unmarshal.Unmarshal(r.recordBuf)
	_, _ = io.Copy(io.Discard, limited)
	if after, _ := in.Peek(5); len(after) > 0 && !bytes.Equal(after, []byte("WARC/")) && !isGzipStart(after) {
		if wr != nil {
			wr.Close()
		}
		return nil, &Problem{Reason: ReasonContentLength, Err: fmt.Errorf("the block goes on past its Content-Length of %d", h.Length)}
	}
	if err != nil {
		reason := ReasonBadHeader
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			reason = ReasonContentLength
		}
		return nil, &Problem{Reason: reason, Err: err}
	}
	defer wr.Close()
	for _, v := range validation {
		var dErr *gowarc.DigestError
		var clErr *gowarc.ContentLengthError
		switch {
		case errors.As(v, &dErr):
			return nil, &Problem{Reason: ReasonDigest, Err: v}
		case errors.As(v, &clErr), strings.Contains(v.Error(), "end of record"):
			return nil, &Problem{Reason: ReasonContentLength, Err: v}
		}
	}
	rec := &Record{Header: h, Status: http.StatusOK}
	var payload io.Reader
	switch b := wr.Block().(type) {
	case gowarc.HttpResponseBlock:
		rec.Status = b.HttpStatusCode()
		if hh := b.HttpHeader(); hh != nil {
			rec.HTTPHeader = *hh
		}
		if rec.Status < 100 || rec.HTTPHeader == nil {
			return nil, &Problem{Reason: ReasonNotHTTP, Err: fmt.Errorf("status line %q", b.HttpStatusLine())}
		}
		if payload, err = b.PayloadBytes(); err != nil {
			return nil, &Problem{Reason: ReasonNotHTTP, Err: err}
		}
	default:
		if h.Type == "response" {
			return nil, &Problem{Reason: ReasonNotHTTP, Err: fmt.Errorf("block of type %q is no HTTP response", h.ContentType)}
		}
		if payload, err = wr.Block().RawBytes(); err != nil {
			return nil, &Problem{Reason: ReasonContentLength, Err: err}
		}
		rec.HTTPHeader = http.Header{"Content-Type": {h.ContentType}}
	}
	if rec.Body, err = decodePayload(payload, rec.HTTPHeader, r.opts.MaxBody); err != nil {
		reason := ReasonBadEncoding
		if errors.Is(err, fetch.ErrTooLarge) {
			reason = ReasonTooLarge
		}
		return nil, &Problem{Reason: reason, Err: err}
	}
	return rec, nil
}

// decodePayload undoes what the archive kept of the HTTP transfer: a
// chunked body, a Content-Encoding. Archives such as CC-NEWS store the
// payload decoded and rename those headers X-Crawler-*, which leaves
// nothing to undo.
func decodePayload(payload io.Reader, h http.Header, limit int64) ([]byte, error) {
	if strings.EqualFold(strings.TrimSpace(h.Get("Transfer-Encoding")), "chunked") {
		payload = httputil.NewChunkedReader(payload)
	}
	return fetch.Decode(payload, h.Get("Content-Encoding"), limit)
}

var errJunkBound = errors.New("junk without end inside a gzip member")

// skipToMagic discards bytes until "WARC/" starts the input and reports
// how many it dropped. Inside a gzip member the search is bounded (a bomb
// of junk would otherwise be decompressed to the end).
func skipToMagic(in *bufio.Reader, bounded bool) (int64, error) {
	var n int64
	for {
		b, err := in.Peek(5)
		if bytes.Equal(b, []byte("WARC/")) {
			return n, nil
		}
		if len(b) < 5 {
			d, _ := in.Discard(len(b))
			n += int64(d)
			if err == nil {
				err = io.EOF
			}
			return n, err
		}
		if bounded && n > maxJunk {
			return n, errJunkBound
		}
		if err != nil {
			return n, err
		}
		buf, _ := in.Peek(in.Buffered())
		i := bytes.Index(buf[1:], []byte("WARC/"))
		if i < 0 {
			i = len(buf) - 5
		} else {
			i++
		}
		d, _ := in.Discard(max(i, 1))
		n += int64(d)
	}
}

// parseHeader reads a record's WARC header block (version line, fields,
// blank line) from in and returns the fields filters need and the block's
// length in bytes.
func parseHeader(in *bufio.Reader) (Header, int, error) {
	var h Header
	b, err := in.Peek(maxHeader)
	end := bytes.Index(b, []byte("\r\n\r\n"))
	sep := 4
	if end < 0 {
		if end = bytes.Index(b, []byte("\n\n")); end < 0 {
			if err == nil {
				err = fmt.Errorf("no end of header in %d bytes", maxHeader)
			}
			return h, 0, fmt.Errorf("warc header: %w", err)
		}
		sep = 2
	}
	block := b[:end+sep]
	lines := strings.Split(strings.ReplaceAll(string(block), "\r\n", "\n"), "\n")
	mh := textproto.MIMEHeader{}
	for _, line := range lines[1:] { // lines[0]: WARC/1.1
		if line == "" {
			continue
		}
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			return h, 0, fmt.Errorf("warc header field %q has no colon", line)
		}
		mh.Add(textproto.CanonicalMIMEHeaderKey(strings.TrimSpace(k)), strings.TrimSpace(v))
	}
	h.Type = strings.ToLower(mh.Get("Warc-Type"))
	h.TargetURI = strings.Trim(mh.Get("Warc-Target-Uri"), "<>")
	h.RecordID = mh.Get("Warc-Record-Id")
	h.ContentType = mh.Get("Content-Type")
	h.Truncated = mh.Get("Warc-Truncated")
	h.IP = mh.Get("Warc-Ip-Address")
	if d := mh.Get("Warc-Date"); d != "" {
		if h.Date, err = time.Parse(time.RFC3339Nano, d); err != nil {
			return h, 0, fmt.Errorf("WARC-Date %q: %w", d, err)
		}
	}
	cl := mh.Get("Content-Length")
	if h.Length, err = strconv.ParseInt(strings.TrimSpace(cl), 10, 64); err != nil || h.Length < 0 {
		return h, 0, fmt.Errorf("Content-Length %q is no length", cl)
	}
	if h.Type == "" {
		return h, 0, errors.New("no WARC-Type")
	}
	return h, len(block), nil
}

// skipCRLF passes the end-of-record marker when it is there.
func skipCRLF(in *bufio.Reader) {
	for range 4 {
		b, _ := in.Peek(1)
		if len(b) == 0 || (b[0] != '\r' && b[0] != '\n') {
			return
		}
		_, _ = in.Discard(1)
	}
}

func isGzipStart(b []byte) bool { return len(b) >= 3 && b[0] == 0x1f && b[1] == 0x8b && b[2] == 8 }

// indexStart is the position of the first byte in p that may start a gzip
// member or a WARC record, or -1.
func indexStart(p []byte) int {
	g := bytes.Index(p, []byte{0x1f, 0x8b, 0x08})
	w := bytes.Index(p, []byte("WARC/"))
	switch {
	case g < 0:
		return w
	case w < 0:
		return g
	}
	return min(g, w)
}

// maxReplay bounds the compressed bytes of one member kept for a replay.
const maxReplay = 16 << 20

// A teeSource keeps what is read from the source since the current
// member's first byte (read-ahead included), so that a torn member can be
// read again from just after its start. It sits below the buffered reader,
// which the decompressor then reads directly (its fast path); keeping the
// bytes costs one copy per read.
type teeSource struct {
	r     io.Reader
	buf   []byte
	start int64 // source offset of buf[0]
	head  int   // buf[head:] is the current member's (and what follows it)
	over  bool  // the member passed maxReplay: nothing kept until the next one
}

func (t *teeSource) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	if !t.over {
		if len(t.buf)-t.head+n > maxReplay {
			t.over, t.buf, t.head = true, t.buf[:0], 0
			t.start += int64(n) // unused while over; from() starts afresh
		} else {
			t.buf = append(t.buf, p[:n]...)
		}
	}
	return n, err
}

// from drops what lies before offset (a member's first byte). The bytes
// are moved down only when the dropped part is the larger half, so each
// byte is copied a bounded number of times.
func (t *teeSource) from(offset int64) {
	end := t.start + int64(len(t.buf))
	switch {
	case t.over || offset < t.start || offset >= end:
		t.buf, t.over = t.buf[:0], false
		t.start = max(offset, end)
		t.head = 0
		return
	}
	t.head = int(offset - t.start)
	if t.head > len(t.buf)/2 {
		k := copy(t.buf, t.buf[t.head:])
		t.buf, t.start, t.head = t.buf[:k], offset, 0
	}
}

// replay returns the kept bytes from offset on, unless they were not kept.
func (t *teeSource) replay(offset int64) ([]byte, bool) {
	if t.over || offset < t.start+int64(t.head) || offset > t.start+int64(len(t.buf)) {
		return nil, false
	}
	return append([]byte(nil), t.buf[offset-t.start:]...), true
}

// countingReader counts what it reads and keeps the first error other
// than io.EOF: a source that failed, told apart from a broken archive.
type countingReader struct {
	r   io.Reader
	n   int64
	err error
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	if err != nil && !errors.Is(err, io.EOF) && c.err == nil {
		c.err = err
	}
	return n, err
}
