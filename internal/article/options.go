package article

import (
	"errors"
	"time"
)

// Default limits applied when the corresponding Options field is zero.
const (
	DefaultMaxBytes = 10 << 20 // 10 MiB of raw input
	DefaultMaxNodes = 200_000  // start tags counted before parsing
	DefaultMaxDepth = 512      // element nesting after parsing
	DefaultTimeout  = 2 * time.Second
)

// Permanent extraction errors; Extract wraps them with context, test with errors.Is.
var (
	// ErrNotHTML reports input that is binary, empty or has no markup at all.
	ErrNotHTML = errors.New("article: input is not HTML")
	// ErrTooLarge reports input above Options.MaxBytes.
	ErrTooLarge = errors.New("article: input too large")
	// ErrTooComplex reports a DOM above the node/depth limits or one that
	// could not be processed within Options.Timeout.
	ErrTooComplex = errors.New("article: document too complex")
)

// Options bounds the work Extract may do; zero fields take the Default* values.
type Options struct {
	MaxBytes int           // raw input size limit in bytes
	MaxNodes int           // element count limit
	MaxDepth int           // element nesting limit
	Timeout  time.Duration // wall-clock budget for one page
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
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	return o
}

// budget tracks the deadline of one Extract call; checks are amortised
// because time.Now is comparatively costly in the hot loops.
type budget struct {
	deadline time.Time
	n        int
	expired  bool
}

// newBudget starts a budget of duration d from now.
func newBudget(d time.Duration) *budget { return &budget{deadline: time.Now().Add(d)} }

// tick counts one unit of work and reports whether the deadline has passed.
func (b *budget) tick() bool {
	if b.expired {
		return true
	}
	b.n++
	if b.n&1023 == 0 && time.Now().After(b.deadline) {
		b.expired = true
	}
	return b.expired
}

// over reports whether the deadline has passed (checked now).
func (b *budget) over() bool {
	if !b.expired && time.Now().After(b.deadline) {
		b.expired = true
	}
	return b.expired
}
