// Package retryafter reads how long a server asks to be left alone: the
// one parser of Retry-After for the crawler, the extractor and the
// embedder, each of which applies its own default and ceiling.
package retryafter

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Parse reads retry-after-ms (OpenAI-style milliseconds) or Retry-After
// (seconds, fractions allowed, or an HTTP date; a date in the past is 0).
// ok is false when neither is there in a form it reads.
func Parse(h http.Header, now time.Time) (d time.Duration, ok bool) {
	if h == nil {
		return 0, false
	}
	if ms, err := strconv.ParseFloat(strings.TrimSpace(h.Get("Retry-After-Ms")), 64); err == nil && ms >= 0 {
		return time.Duration(ms * float64(time.Millisecond)), true
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 {
		return time.Duration(s * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// Or is Parse with a default for a missing or unreadable header, bounded
// by ceiling (a server cannot pause a stage for an hour by saying so).
func Or(h http.Header, now time.Time, def, ceiling time.Duration) time.Duration {
	d, ok := Parse(h, now)
	if !ok {
		d = def
	}
	return min(d, ceiling)
}
