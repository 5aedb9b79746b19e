package llm

import (
	"context"
	"fmt"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/newscrawl/newscrawl/internal/sleep"
)

// A Limiter paces every model request of a stage: requests and tokens per
// minute, and a stage-wide pause after a 429. A call that would wait longer
// than its maximum gets a *WaitError instead of blocking, so the message can
// be rescheduled without holding a worker.
type Limiter struct {
	mu          sync.Mutex
	pausedUntil time.Time
	requests    *rate.Limiter // nil = unlimited
	tokens      *rate.Limiter // nil = unlimited
	maxWait     time.Duration
}

// A WaitError says the limiter would make the caller wait Delay.
type WaitError struct{ Delay time.Duration }

func (e *WaitError) Error() string {
	return fmt.Sprintf("model rate limit: next slot in %s", e.Delay.Round(time.Millisecond))
}

// NewLimiter allows rpm requests and tpm tokens per minute (0 = no limit);
// a call waits at most maxWait (default DefaultMaxWait).
func NewLimiter(rpm, tpm int, maxWait time.Duration) *Limiter {
	if maxWait <= 0 {
		maxWait = DefaultMaxWait
	}
	l := &Limiter{maxWait: maxWait}
	if rpm > 0 {
		l.requests = rate.NewLimiter(rate.Limit(float64(rpm)/60), max(1, rpm/60))
	}
	if tpm > 0 {
		l.tokens = rate.NewLimiter(rate.Limit(float64(tpm)/60), tpm)
	}
	return l
}

// Pause holds every request until now+d (extending, never shortening, a pause).
func (l *Limiter) Pause(d time.Duration) {
	if l == nil {
		return
	}
	until := time.Now().Add(d)
	l.mu.Lock()
	if until.After(l.pausedUntil) {
		l.pausedUntil = until
	}
	l.mu.Unlock()
}

// PausedFor reports how long the stage-wide pause still lasts.
func (l *Limiter) PausedFor() time.Duration {
	if l == nil {
		return 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return max(0, time.Until(l.pausedUntil))
}

// Wait blocks until a request of about tokens tokens may be sent. It
// returns a *WaitError when that is more than the maximum wait away, and
// ctx's error when ctx ends first.
func (l *Limiter) Wait(ctx context.Context, tokens int) error {
	if l == nil {
		return nil
	}
	if d := l.PausedFor(); d > 0 {
		if d > l.maxWait {
			return &WaitError{Delay: d}
		}
		if err := sleep.For(ctx, d); err != nil {
			return err
		}
	}
	now := time.Now()
	var rs []*rate.Reservation
	delay := time.Duration(0)
	if l.requests != nil {
		r := l.requests.ReserveN(now, 1)
		rs = append(rs, r)
		delay = max(delay, r.DelayFrom(now))
	}
	if l.tokens != nil {
		r := l.tokens.ReserveN(now, min(max(tokens, 1), l.tokens.Burst()))
		rs = append(rs, r)
		delay = max(delay, r.DelayFrom(now))
	}
	cancel := func() {
		for _, r := range rs {
			r.CancelAt(now)
		}
	}
	if delay > l.maxWait {
		cancel()
		return &WaitError{Delay: delay}
	}
	if err := sleep.For(ctx, delay); err != nil {
		cancel()
		return err
	}
	return nil
}
