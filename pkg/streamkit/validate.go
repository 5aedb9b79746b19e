package streamkit

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"unicode/utf8"
)

// Size limits on what streamkit stores and logs.
const (
	// MaxKeyBytes bounds an idempotency key and a doc_id: both are ledger
	// columns, and a B-tree entry must fit in a third of a page.
	MaxKeyBytes = 1024
	// maxLogValue bounds each string or error in a log line (and a breaker's
	// reason); longer values are cut and marked with "…".
	maxLogValue = 2048
)

// storable checks a value bound for a ledger column: at most MaxKeyBytes,
// valid UTF-8, no NUL (PostgreSQL's text refuses both).
func storable(what, v string) error {
	switch {
	case len(v) > MaxKeyBytes:
		return fmt.Errorf("%s is %d bytes, over the %d-byte limit", what, len(v), MaxKeyBytes)
	case !utf8.ValidString(v):
		return fmt.Errorf("%s is not valid UTF-8", what)
	case strings.IndexByte(v, 0) >= 0:
		return fmt.Errorf("%s contains a NUL byte", what)
	}
	return nil
}

// clip cuts s to at most n bytes (on a rune boundary), marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// clipHandler cuts every string and error attribute of a log record to
// maxLogValue, so a hostile field cannot turn one log line into megabytes.
type clipHandler struct{ slog.Handler }

func (h clipHandler) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, r.Level, clip(r.Message, maxLogValue), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(clipAttr(a))
		return true
	})
	return h.Handler.Handle(ctx, out)
}

func (h clipHandler) WithAttrs(as []slog.Attr) slog.Handler {
	clipped := make([]slog.Attr, len(as))
	for i, a := range as {
		clipped[i] = clipAttr(a)
	}
	return clipHandler{h.Handler.WithAttrs(clipped)}
}

func (h clipHandler) WithGroup(name string) slog.Handler {
	return clipHandler{h.Handler.WithGroup(name)}
}

func clipAttr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		if len(v.String()) > maxLogValue {
			return slog.String(a.Key, clip(v.String(), maxLogValue))
		}
	case slog.KindAny:
		if err, ok := v.Any().(error); ok {
			return slog.String(a.Key, clip(err.Error(), maxLogValue))
		}
	case slog.KindGroup:
		as := v.Group()
		clipped := make([]any, len(as))
		for i, g := range as {
			clipped[i] = clipAttr(g)
		}
		return slog.Group(a.Key, clipped...)
	}
	return a
}
