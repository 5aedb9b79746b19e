package ingest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/netip"
	"net/url"
	"os"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/newscrawl/newscrawl/internal/archive"
	"github.com/newscrawl/newscrawl/internal/crawl"
	"github.com/newscrawl/newscrawl/internal/crawl/fetch"
	"github.com/newscrawl/newscrawl/internal/pipeline"
	"github.com/newscrawl/newscrawl/pkg/streamkit"
)

// Defaults of Config.
const (
	DefaultBatch      = 64       // captures stored per transaction
	DefaultBatchBytes = 16 << 20 // or fewer, when their bodies pass this
	DefaultParallel   = 1
	retryPause        = 2 * time.Second // between tries while PostgreSQL or Redis is away
	busyPoll          = 2 * time.Second // between looks at a source another process reads
)

// Config is one ingest run.
type Config struct {
	Pool     *pgxpool.Pool
	Producer *streamkit.Producer // sends the cleaner's messages; its high-water mark is the backpressure
	Archiver *crawl.Archiver
	Filter   Filter
	Limit    int64 // stop after this many documents stored; 0: none
	Parallel int   // sources read at once
	Restart  bool  // read finished sources again
	MaxBody  int64 // the crawler's body cap
	Batch    int
	Progress io.Writer // a line every few seconds; nil: none
	Every    time.Duration
	Logger   *slog.Logger
}

// Filter says which records go in; every test runs on the WARC header
// alone, before any of the record is parsed, except Status (the HTTP
// status line).
type Filter struct {
	Hosts             []string // exact hosts; none: every host
	IncludeSubdomains bool
	URLPattern        *regexp.Regexp
	Since, Until      time.Time // on WARC-Date; zero: open
	Status            int       // the HTTP status kept; 0: any
	// The crawler's SSRF allowances: a target URI naming a literal address
	// they refuse (or localhost) is skipped, judged on the URI alone.
	AllowPrivate bool
	AllowCIDRs   []netip.Prefix
}

// Counts are what an ingest read, kept and skipped.
type Counts struct {
	Read       int64            `json:"read"`
	Kept       int64            `json:"kept"`
	Filtered   map[string]int64 `json:"filtered"`
	Duplicates int64            `json:"duplicates"`
	Malformed  map[string]int64 `json:"malformed"`
	Truncated  int64            `json:"truncated"`
	Bytes      int64            `json:"bytes"`
}

func (c *Counts) filter(reason string) {
	if c.Filtered == nil {
		c.Filtered = map[string]int64{}
	}
	c.Filtered[reason]++
}

func (c *Counts) malformed(reason string) {
	if c.Malformed == nil {
		c.Malformed = map[string]int64{}
	}
	c.Malformed[reason]++
}

func (c *Counts) add(o Counts) {
	c.Read += o.Read
	c.Kept += o.Kept
	c.Duplicates += o.Duplicates
	c.Truncated += o.Truncated
	c.Bytes += o.Bytes
	for k, v := range o.Filtered {
		if c.Filtered == nil {
			c.Filtered = map[string]int64{}
		}
		c.Filtered[k] += v
	}
	for k, v := range o.Malformed {
		if c.Malformed == nil {
			c.Malformed = map[string]int64{}
		}
		c.Malformed[k] += v
	}
}

// A Report is a run's outcome.
type Report struct {
	Counts
	Seconds  float64         `json:"seconds"`
	Sources  int             `json:"sources"`
	Done     int             `json:"sources_done"`     // read to the end in this run
	Skipped  int             `json:"sources_skipped"`  // read to the end before
	Failures []SourceFailure `json:"source_failures"`  // not read to the end; resumable
	Limited  bool            `json:"stopped_at_limit"` // --limit reached
}

// A SourceFailure is a source that could not be read to its end.
type SourceFailure struct {
	Source string `json:"source"`
	Reason string `json:"reason"`
	Error  string `json:"error"`
}

// Run ingests sources, Parallel at a time, and reports. It returns an
// error only when it could not run at all; a source that fails is in the
// report (its checkpoint kept), and ctx's end stops every source at its
// last stored batch.
func Run(ctx context.Context, cfg Config, sources []Source) (Report, error) {
	if cfg.Parallel <= 0 {
		cfg.Parallel = DefaultParallel
	}
	if cfg.Batch <= 0 {
		cfg.Batch = DefaultBatch
	}
	if cfg.MaxBody <= 0 {
		cfg.MaxBody = archive.DefaultMaxBody
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	host, _ := os.Hostname()
	nonce := crawl.NewNonce()[:6]
	liveRuns.Store(nonce, true)
	defer liveRuns.Delete(nonce)
	r := &run{cfg: cfg, started: time.Now(), cps: &checkpoints{pool: cfg.Pool, owner: fmt.Sprintf("%s:%d:%s", host, os.Getpid(), nonce)},
		report: Report{Sources: len(sources)}, logged: map[string]bool{}, looked: map[string]bool{}}
	for _, s := range sources {
		if s.Size > 0 {
			r.totalBytes += s.Size
		}
	}
	stopProgress := r.progress(ctx)
	// Sources another process holds are put aside and looked at again
	// once the rest are done: shared out, never read twice.
	for pending := sources; len(pending) > 0 && ctx.Err() == nil; {
		var mu sync.Mutex
		var later []Source
		queue := make(chan Source)
		var wg sync.WaitGroup
		for range cfg.Parallel {
			wg.Go(func() {
				for s := range queue {
					if !r.source(ctx, s) {
						mu.Lock()
						later = append(later, s)
						mu.Unlock()
					}
				}
			})
		}
	feed:
		for _, s := range pending {
			select {
			case queue <- s:
			case <-ctx.Done():
				break feed
			}
		}
		close(queue)
		wg.Wait()
		if pending = later; len(pending) > 0 {
			select {
			case <-time.After(busyPoll):
			case <-ctx.Done():
			}
		}
	}
	stopProgress()
	cfg.Archiver.Wait()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.report.Counts = r.counts
	r.report.Seconds = time.Since(r.started).Seconds()
	r.report.Limited = cfg.Limit > 0 && r.reserved.Load() >= cfg.Limit
	return r.report, nil
}

// run is one Run's shared state.
type run struct {
	cfg        Config
	cps        *checkpoints
	started    time.Time
	reserved   atomic.Int64 // captures taken toward Limit
	totalBytes int64

	mu     sync.Mutex
	counts Counts
	report Report
	logged map[string]bool // reasons logged once
	looked map[string]bool // sources claimed at least once
}

// checkpointOf is the name of s's checkpoint: the source, and the filters
// when there are any — a run with other filters keeps a checkpoint of its
// own (the same flags share one, as several processes of one run must).
func (r *run) checkpointOf(s Source) string {
	f := r.cfg.Filter
	pattern := ""
	if f.URLPattern != nil {
		pattern = f.URLPattern.String()
	}
	key := fmt.Sprintf("hosts=%s sub=%v url=%s since=%s until=%s status=%d discover=%v", strings.Join(f.Hosts, ","),
		f.IncludeSubdomains, pattern, stamp(f.Since), stamp(f.Until), f.Status, r.cfg.Archiver.Discover)
	if key == "hosts= sub=false url= since= until= status=200 discover=false" {
		return s.Name // the defaults
	}
	sum := sha256.Sum256([]byte(key))
	return s.Name + " [filters " + hex.EncodeToString(sum[:6]) + "]"
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// source reads one source to its end, or reports false when another
// process holds it.
func (r *run) source(ctx context.Context, s Source) bool {
	cp := checkpoint{Seekable: true}
	state := claimed
	if s.Resumable {
		// --restart clears a finished checkpoint on the first look only: a
		// source another process of this run held, and then finished, is done.
		r.mu.Lock()
		restart := r.cfg.Restart && !r.looked[s.Name]
		r.looked[s.Name] = true
		r.mu.Unlock()
		var err error
		for {
			cp, state, err = r.cps.claim(ctx, r.checkpointOf(s), s.Size, restart)
			if err == nil || ctx.Err() != nil {
				break
			}
			r.pause(ctx, "claim a source", err)
		}
		if ctx.Err() != nil {
			return true
		}
	}
	switch state {
	case finished:
		r.mu.Lock()
		r.report.Skipped++
		r.mu.Unlock()
		return true
	case busy:
		return false
	}
	err := r.read(ctx, s, cp)
	bctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	switch {
	case err == nil:
		if s.Resumable {
			if ferr := r.cps.finish(bctx, r.checkpointOf(s)); ferr != nil {
				r.fail(s, "checkpoint", ferr)
				return true
			}
		}
		r.mu.Lock()
		r.report.Done++
		r.mu.Unlock()
	case errors.Is(err, errLimit), ctx.Err() != nil:
		_ = r.cps.release(bctx, r.checkpointOf(s))
	default:
		_ = r.cps.release(bctx, r.checkpointOf(s))
		r.fail(s, failureReason(err), err)
	}
	return true
}

var errLimit = errors.New("the --limit is reached")

func failureReason(err error) string {
	var se *StatusError
	switch {
	case errors.As(err, &se):
		return fmt.Sprintf("source_status_%d", se.Status)
	case errors.Is(err, errLostClaim):
		return "lost_claim"
	case fetch.IsTimeout(err), errors.Is(err, context.Canceled):
		return "source_timeout"
	case errors.Is(err, os.ErrNotExist):
		return "source_missing"
	}
	return "source_unreadable"
}

func (r *run) fail(s Source, reason string, err error) {
	r.cfg.Logger.Error("source not read to its end", "source", s.Name, "reason", reason, "err", err)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.report.Failures = append(r.report.Failures, SourceFailure{Source: s.Name, Reason: reason, Error: err.Error()})
}

// pause waits out a dependency that is away (PostgreSQL, Redis), saying so
// once per reason.
func (r *run) pause(ctx context.Context, what string, err error) {
	r.cfg.Logger.Warn("pausing: a dependency is away", "while", what, "err", err)
	select {
	case <-time.After(retryPause):
	case <-ctx.Done():
	}
}

// batch is captures read and not yet stored.
type batch struct {
	pages    []*crawl.Prepared
	bytes    int
	end      int64 // where the source resumes once they are stored and sent
	seekable bool  // end is an offset in the source (Reader.Seekable)
	counts   Counts
}

// read streams one claimed source from its checkpoint.
func (r *run) read(ctx context.Context, s Source, cp checkpoint) error {
	start, skipBefore := int64(0), int64(0)
	if cp.ResumeAt > 0 {
		if cp.Seekable {
			start = cp.ResumeAt
		} else {
			skipBefore = cp.ResumeAt // a whole-file gzip: read from the start, pass what was done
		}
	}
	rc, err := s.Open(ctx, start)
	if err != nil {
		return err
	}
	defer rc.Close()
	rd := archive.NewReader(rc, start, archive.Options{MaxBody: r.cfg.MaxBody, Want: r.cfg.Filter.want})
	// Reading (decompressing, parsing) and storing overlap: batches go to a
	// storer, one at a time and in order, so checkpoints only move forward.
	batches, stored := make(chan *batch, 1), make(chan error, 1)
	go func() {
		total := cp.Counts
		for b := range batches {
			if err := r.flush(ctx, s, b, &total); err != nil {
				stored <- err
				for range batches {
				}
				return
			}
		}
		stored <- nil
	}()
	b := &batch{end: start}
	mark := start
	handOver := func() error {
		b.counts.Bytes, mark = rd.Offset()-mark, rd.Offset()
		b.seekable = rd.Seekable()
		select {
		case batches <- b:
		case err := <-stored:
			close(batches)
			return err
		}
		b = &batch{end: b.end}
		return nil
	}
	finish := func(err error) error {
		if herr := handOver(); herr != nil {
			return herr
		}
		close(batches)
		if serr := <-stored; serr != nil {
			return serr
		}
		return err
	}
	for {
		if ctx.Err() != nil {
			return finish(ctx.Err())
		}
		if r.cfg.Limit > 0 && r.reserved.Load() >= r.cfg.Limit {
			return finish(errLimit)
		}
		rec, err := rd.Next()
		var p *archive.Problem
		var sk *archive.Skip
		switch {
		case err == nil:
			if rec.Offset < skipBefore {
				continue
			}
			b.counts.Read++
			b.end = max(b.end, rec.Offset+rec.Size)
			if r.cfg.Filter.Status != 0 && rec.Status != r.cfg.Filter.Status {
				b.counts.filter("status")
				continue
			}
			if r.cfg.Limit > 0 && r.reserved.Add(1) > r.cfg.Limit {
				b.end = rec.Offset // not taken: the next run starts here
				return finish(errLimit)
			}
			b.pages = append(b.pages, r.cfg.Archiver.Prepare(&crawl.Capture{URL: rec.TargetURI, Date: rec.Date, Status: rec.Status,
				Header: rec.HTTPHeader, Body: rec.Body, Source: s.Name, Offset: rec.Offset, Length: rec.Size,
				RecordID: rec.RecordID, Truncated: rec.Truncated, AlreadyStoredRun: rec.Offset < cp.StoredTo}))
			b.bytes += len(rec.Body)
		case errors.Is(err, io.EOF):
			return finish(nil)
		case errors.As(err, &sk):
			if sk.Offset < skipBefore {
				continue
			}
			b.counts.Read++
			b.end = max(b.end, sk.Offset)
			if sk.Reason == reasonBadURI {
				b.counts.malformed(archive.ReasonBadURI)
				r.logOnce(s, archive.ReasonBadURI, sk.Offset, err)
			} else if sk.Reason == "not a response or resource" {
				b.counts.filter(sk.Type)
			} else {
				b.counts.filter(sk.Reason)
			}
		case errors.As(err, &p):
			if p.Offset < skipBefore {
				continue
			}
			if p.Reason != archive.ReasonJunk {
				b.counts.Read++
			}
			b.counts.malformed(p.Reason)
			b.end = max(b.end, p.Offset)
			r.logOnce(s, p.Reason, p.Offset, err)
		default: // the source itself failed: keep what is read
			return finish(err)
		}
		if len(b.pages) >= r.cfg.Batch || b.bytes >= DefaultBatchBytes {
			if err := handOver(); err != nil {
				return err
			}
		}
	}
}

func (r *run) logOnce(s Source, reason string, offset int64, err error) {
	r.mu.Lock()
	first := !r.logged[reason]
	r.logged[reason] = true
	r.mu.Unlock()
	if first {
		r.cfg.Logger.Warn("skipped a malformed record (logged once per reason; every one is counted)",
			"source", s.Name, "offset", offset, "reason", reason, "err", err)
	}
}

// flush stores a batch, sends its cleaner messages and moves the
// checkpoint, pausing while PostgreSQL or Redis is away.
func (r *run) flush(ctx context.Context, s Source, b *batch, total *Counts) error {
	if s.Resumable && len(b.pages) > 0 {
		if err := r.retry(ctx, "checkpoint", func() error { return r.cps.storing(ctx, r.checkpointOf(s), b.end, b.seekable) }); err != nil {
			return err
		}
	}
	var stored []crawl.Archived
	if len(b.pages) > 0 {
		err := r.retry(ctx, "store archived pages", func() error {
			var err error
			stored, err = r.cfg.Archiver.Store(ctx, b.pages)
			return err
		})
		if err != nil {
			return err
		}
	}
	for i, a := range stored {
		switch a.Outcome {
		case crawl.ArchivedStored:
			b.counts.Kept++
			if b.pages[i].Capture().Truncated != "" {
				b.counts.Truncated++
			}
		case crawl.ArchivedDuplicate:
			b.counts.Duplicates++
		case crawl.ArchivedBadURL, crawl.ArchivedCharset:
			b.counts.malformed(a.Outcome)
		default:
			b.counts.filter(a.Outcome)
		}
		if !a.Send {
			continue
		}
		fields := map[string]string{pipeline.FieldDocID: a.DocID, pipeline.FieldBodyHash: a.Hash, pipeline.FieldURL: a.URL}
		if err := r.publish(ctx, s, fields); err != nil {
			return err
		}
	}
	total.add(b.counts)
	if s.Resumable {
		if err := r.retry(ctx, "checkpoint", func() error { return r.cps.sent(ctx, r.checkpointOf(s), b.end, total) }); err != nil {
			return err
		}
	}
	r.mu.Lock()
	r.counts.add(b.counts)
	r.mu.Unlock()
	return nil
}

// publish sends one cleaner message, waiting below the clean stage's
// high-water mark and keeping the source's claim meanwhile.
func (r *run) publish(ctx context.Context, s Source, fields map[string]string) error {
	for {
		wctx, cancel := context.WithTimeout(ctx, leaseTime/3)
		err := r.cfg.Producer.Wait(wctx, pipeline.Clean)
		cancel()
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if !errors.Is(err, context.DeadlineExceeded) {
			r.pause(ctx, "look at the clean stage", err)
		}
		if s.Resumable {
			if err := r.cps.renew(ctx, r.checkpointOf(s)); errors.Is(err, errLostClaim) {
				return err
			}
		}
	}
	return r.retry(ctx, "send to the cleaner", func() error {
		_, err := r.cfg.Producer.Publish(ctx, pipeline.Clean, fields)
		return err
	})
}

// retry runs f until it succeeds, pausing between tries; only ctx's end or
// a lost claim stops it.
func (r *run) retry(ctx context.Context, what string, f func() error) error {
	for {
		err := f()
		if err == nil || errors.Is(err, errLostClaim) {
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		r.pause(ctx, what, err)
	}
}

const reasonBadURI = "bad target uri"

// want judges a record on its WARC header.
func (f Filter) want(h archive.Header) (bool, string) {
	uri := h.TargetURI
	if uri == "" || !utf8.ValidString(uri) || strings.ContainsAny(uri, "\x00\r\n\t ") {
		return false, reasonBadURI
	}
	u, err := url.Parse(uri)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return false, reasonBadURI
	}
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	if f.refused(host) {
		return false, "private_address"
	}
	if len(f.Hosts) > 0 && !f.hostWanted(host) {
		return false, "host"
	}
	if f.URLPattern != nil && !f.URLPattern.MatchString(uri) {
		return false, "url_pattern"
	}
	if !f.Since.IsZero() && h.Date.Before(f.Since) {
		return false, "since"
	}
	if !f.Until.IsZero() && !h.Date.Before(f.Until) {
		return false, "until"
	}
	return true, ""
}

func (f Filter) hostWanted(host string) bool {
	for _, h := range f.Hosts {
		if host == h || (f.IncludeSubdomains && strings.HasSuffix(host, "."+h)) {
			return true
		}
	}
	return false
}

// refused is the crawler's SSRF guard judged on a URI's host alone: a
// literal address it would refuse, or localhost. Names are not looked up:
// an archived page is not fetched.
func (f Filter) refused(host string) bool {
	if f.AllowPrivate {
		return false
	}
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip, err := netip.ParseAddr(strings.Trim(host, "[]"))
	if err != nil {
		return false
	}
	ip = ip.Unmap()
	for _, p := range f.AllowCIDRs {
		if p.Contains(ip) {
			return false
		}
	}
	return fetch.Blocked(ip)
}
