package streamkit

import (
	"errors"
	"fmt"
	"time"
)

// Error types written to dead letters by streamkit itself.
const (
	ErrorTypePoison     = "poison"      // delivered more often than the ceiling allows
	ErrorTypeBadMessage = "bad_message" // missing or malformed fields
	ErrorTypePermanent  = "permanent"   // a Permanent error without a type of its own
	ErrorTypeRetries    = "retries_exhausted"
	ErrorTypeTimeout    = "timeout"
	ErrorTypeDeferred   = "deferred" // Later: only seen once deferrals ran past MaxDeferrals
	ErrorTypeRunaway    = "runaway"  // a wall-clock guard stopped it MaxRunaways times in a row
)

// A classified error carries how streamkit should treat a handler failure.
type classified struct {
	err        error
	permanent  bool
	errType    string
	retryAfter time.Duration
	later      bool // not a failure at all: see Later
	runaway    bool // a wall-clock guard ran out: see Runaway
	took       time.Duration
	dependency string // set by Unavailable
}

func (c *classified) Error() string { return c.err.Error() }
func (c *classified) Unwrap() error { return c.err }

// Permanent marks err as one that will never succeed: the message goes to
// the dead-letter stream at once, with error type errType (or "permanent").
func Permanent(errType string, err error) error {
	if err == nil {
		return nil
	}
	if errType == "" {
		errType = ErrorTypePermanent
	}
	return &classified{err: err, permanent: true, errType: errType}
}

// Retryable marks err as transient with an error type for metrics and the
// dead letter written after the last attempt. Unclassified errors are
// retryable too; this only names them.
func Retryable(errType string, err error) error {
	if err == nil {
		return nil
	}
	return &classified{err: err, errType: errType}
}

// RetryAfter asks for the message to be retried after d without counting a
// failed attempt (a rate limit, a 429 with Retry-After).
func RetryAfter(d time.Duration, err error) error {
	if err == nil {
		err = fmt.Errorf("retry after %s", d)
	}
	return &classified{err: err, errType: "rate_limited", retryAfter: d}
}

// Later asks for the message to come back after d, and is not a failure:
// no attempt is counted and the failure metrics stay still (it is counted
// as deferred). For a handler that chooses to wait outside a worker slot,
// such as the crawler stepping aside until its host's politeness slot.
// Like RetryAfter, it counts as an attempt past MaxDeferrals, so an endless
// loop of them still ends.
func Later(d time.Duration, reason string) error {
	return &classified{err: errors.New(reason), errType: ErrorTypeDeferred, retryAfter: max(d, time.Millisecond), later: true}
}

// Runaway says a wall-clock guard stopped the handler's own work after took
// (a parse, an extraction, a loop that would not end). A busy machine can
// make any page slow, so this is not the message's fault: no attempt is
// spent and the message comes back after a backoff. Only MaxRunaways in a
// row — a page that runs away on every try — dead-letter it as "runaway",
// with the time each try took. A limit that measures work (steps, bytes,
// nodes) gives the same answer busy or quiet and should be Permanent
// instead. The handler's own deadline (HandlerTimeout) is treated the same.
func Runaway(took time.Duration, err error) error {
	if err == nil {
		err = fmt.Errorf("ran past its guard after %s", took)
	}
	return &classified{err: err, errType: ErrorTypeRunaway, runaway: true, took: took}
}

func runawayOf(err error) (time.Duration, bool) {
	var c *classified
	if errors.As(err, &c) && c.runaway {
		return c.took, true
	}
	return 0, false
}

// IsRunaway reports whether err was made by Runaway.
func IsRunaway(err error) bool {
	_, ok := runawayOf(err)
	return ok
}

// Unavailable says the handler could not do its work because dependency
// dep is away — a name the stage added to Config.Dependencies, such as its
// model server. The consumer trips that dependency's breaker, pauses, and
// runs the message again once the breaker's probe succeeds: no attempt is
// spent and nothing is dead-lettered. With no dependency of that name it
// is an ordinary retryable error of type "unavailable".
func Unavailable(dep string, err error) error {
	if err == nil {
		err = fmt.Errorf("%s unavailable", dep)
	}
	return &classified{err: err, errType: "unavailable", dependency: dep}
}

func unavailableOf(err error) (string, bool) {
	var c *classified
	if errors.As(err, &c) && c.dependency != "" {
		return c.dependency, true
	}
	return "", false
}

// IsUnavailable reports whether err was made by Unavailable.
func IsUnavailable(err error) bool {
	_, ok := unavailableOf(err)
	return ok
}

// IsDeferral reports whether err asks for the message later without
// failing it (RetryAfter or Later).
func IsDeferral(err error) bool {
	_, ok := retryAfterOf(err)
	return ok
}

// IsPermanent reports whether err was marked Permanent.
func IsPermanent(err error) bool {
	var c *classified
	return errors.As(err, &c) && c.permanent
}

// ErrorType names the class of err for dead letters and metrics.
func ErrorType(err error) string {
	var c *classified
	if errors.As(err, &c) && c.errType != "" {
		return c.errType
	}
	if errors.Is(err, errHandlerTimeout) {
		return ErrorTypeTimeout
	}
	return "transient"
}

func isLater(err error) bool {
	var c *classified
	return errors.As(err, &c) && c.later
}

func retryAfterOf(err error) (time.Duration, bool) {
	var c *classified
	if errors.As(err, &c) && c.retryAfter > 0 {
		return c.retryAfter, true
	}
	return 0, false
}

var errHandlerTimeout = errors.New("handler timed out")
