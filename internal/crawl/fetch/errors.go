package fetch

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Errors a fetch can end with besides network failures; match with errors.Is.
var (
	ErrTooLarge         = errors.New("body over the size limit")
	ErrTooManyRedirects = errors.New("too many redirects")
	ErrRedirectLoop     = errors.New("redirect loop")
)

// IsTimeout reports whether err is a connect, header or read timeout.
func IsTimeout(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// IsDNS reports whether err is a failed name lookup.
func IsDNS(err error) bool {
	var de *net.DNSError
	return errors.As(err, &de)
}

// RetryAfter parses a Retry-After header (seconds or an HTTP date) relative
// to now; ok is false when it is absent or unparseable.
func RetryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if n, err := strconv.Atoi(v); err == nil && n >= 0 {
		return time.Duration(n) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}
