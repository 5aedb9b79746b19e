package fetch

import (
	"context"
	"errors"
	"net"
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
