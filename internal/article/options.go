package article

import (
	"errors"
	"fmt"
	"time"
)

// Default limits applied when the corresponding Options field is zero.
const (
	DefaultMaxBytes = 10 << 20 // 10 MiB of raw input
	DefaultMaxNodes = 200_000  // start tags counted before parsing
	DefaultMaxDepth = 512      // element nesting after parsing
	// DefaultMaxWork is the work budget in steps (a node measured, scored or
	// rendered, a candidate searched, 4 KiB parsed); the heaviest page of the
	// dev sets takes under 3% of it (steps_internal_test.go measures them).
	DefaultMaxWork = 2_000_000
	// DefaultTimeout is the runaway guard: far above what the work budget
	// allows on a busy machine, so it only stops what the budget cannot see.
	DefaultTimeout = 30 * time.Second
)

// Permanent extraction errors; Extract wraps them with context, test with errors.Is.
var (
	// ErrNotHTML reports input that is binary, empty or has no markup at all.
	ErrNotHTML = errors.New("article: input is not HTML")
	// ErrTooLarge reports input above Options.MaxBytes.
	ErrTooLarge = errors.New("article: input too large")
	// ErrTooComplex reports a DOM above the node/depth limits or one whose
	// extraction needs more than Options.MaxWork steps: the same verdict on a
	// busy machine as on a quiet one.
	ErrTooComplex = errors.New("article: document too complex")
	// ErrRunaway reports that the wall-clock guard (Options.Timeout) stopped
	// the extraction first. That can be the machine's fault rather than the
	// page's, so it is not a verdict on the page: try it again later.
	ErrRunaway = errors.New("article: extraction stopped by its time guard")
)

// Options bounds the work Extract may do; zero fields take the Default* values.
type Options struct {
	MaxBytes int           // raw input size limit in bytes
	MaxNodes int           // element count limit
	MaxDepth int           // element nesting limit
	MaxWork  int           // work budget in steps for one page
	Timeout  time.Duration // wall-clock guard for one page (a runaway, not a verdict)
	// FetchedAt is when the page was fetched (an archive's capture time);
	// a page is not published or modified after it. Zero means now.
	FetchedAt time.Time

	kindSample *KindSample // set by KindFeatures: where assemble leaves the page-kind model's input
}

// withDefaults fills zero fields so the rest of the package can rely on them.
func (o Options) withDefaults() Options {
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.MaxNodes <= 0 {
		o.MaxNodes = DefaultMaxNodes
	}
	if o.MaxDepth <= 0 {
		o.MaxDepth = DefaultMaxDepth
	}
	if o.MaxWork <= 0 {
		o.MaxWork = DefaultMaxWork
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	return o
}

// budget counts the work of one Extract call against its step limit, and
// watches the wall-clock guard behind it; clock checks are amortised
// because time.Now is comparatively costly in the hot loops.
type budget struct {
	steps, limit int
	start        time.Time
	guard        time.Duration
	spent        bool // the work budget ran out: the page is too complex
	ranAway      bool // the guard ran out first
}

// newBudget starts a budget of limit steps, guarded by d of wall-clock time.
func newBudget(limit int, d time.Duration) *budget {
	return &budget{limit: limit, start: time.Now(), guard: d}
}

// tick counts one step and reports whether extraction must stop.
func (b *budget) tick() bool { return b.add(1) }

// add counts n steps and reports whether extraction must stop.
func (b *budget) add(n int) bool {
	if b.spent || b.ranAway {
		return true
	}
	prev := b.steps
	b.steps += n
	if b.steps > b.limit {
		b.spent = true
	} else if prev>>10 != b.steps>>10 && time.Since(b.start) > b.guard {
		b.ranAway = true
	}
	return b.spent || b.ranAway
}

// over reports whether extraction must stop (the clock checked now).
func (b *budget) over() bool {
	if !b.spent && !b.ranAway && time.Since(b.start) > b.guard {
		b.ranAway = true
	}
	return b.spent || b.ranAway
}

// err is the error for a budget that stopped extraction, nil otherwise.
func (b *budget) err() error {
	switch {
	case b.spent:
		return fmt.Errorf("%w: work budget of %d steps spent", ErrTooComplex, b.limit)
	case b.ranAway:
		return fmt.Errorf("%w: %v (limit %v) after %d steps", ErrRunaway, time.Since(b.start).Round(time.Millisecond), b.guard, b.steps)
	}
	return nil
}
