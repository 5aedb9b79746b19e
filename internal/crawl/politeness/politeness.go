// Package politeness spaces requests to one host across every crawler
// process: the next allowed time of each host lives in Redis, and slots are
// handed out by a Lua script on the server's clock, so no two requests to
// a host are ever closer than its delay, whatever the number of workers.
package politeness

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// DefaultMaxWait is how long Wait blocks for a slot before giving up.
const DefaultMaxWait = 10 * time.Second

// reserveScript hands out the next slot of a host. KEYS[1] holds the
// host's next free time (unix ms). ARGV: delay ms, max wait ms. It returns
// {reserved (0/1), slot ms, server now ms}; a slot further away than the
// max wait is not reserved, so a refused caller leaves no hole behind.
var reserveScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local delay = tonumber(ARGV[1])
local maxwait = tonumber(ARGV[2])
local nxt = tonumber(redis.call('GET', KEYS[1]) or '0')
local slot = nxt
if slot < now then slot = now end
if slot - now > maxwait then
  return {0, slot, now}
end
redis.call('SET', KEYS[1], slot + delay, 'PX', slot + delay - now + 60000)
return {1, slot, now}
`)

// A Reservation is a slot handed out (or refused) for one request.
type Reservation struct {
	Host     string
	Slot     time.Time     // when the request may be sent, on the server's clock
	Wait     time.Duration // Slot minus the server's now
	Reserved bool          // false: the slot was further than the max wait and is not held
}

// TooLongError is returned by Wait when the next slot is beyond the max wait.
type TooLongError struct{ Wait time.Duration }

func (e *TooLongError) Error() string {
	return fmt.Sprintf("politeness: next slot for the host is %s away", e.Wait)
}

// IsTooLong reports whether err is a TooLongError and returns its wait.
func IsTooLong(err error) (time.Duration, bool) {
	var t *TooLongError
	if errors.As(err, &t) {
		return t.Wait, true
	}
	return 0, false
}

// A Limiter reserves per-host request slots in Redis.
type Limiter struct {
	rdb     redis.UniversalClient
	prefix  string
	maxWait time.Duration
}

// New returns a Limiter whose keys are <prefix>:crawl:host:<host>; maxWait
// <= 0 means DefaultMaxWait.
func New(rdb redis.UniversalClient, prefix string, maxWait time.Duration) *Limiter {
	if maxWait <= 0 {
		maxWait = DefaultMaxWait
	}
	return &Limiter{rdb: rdb, prefix: prefix, maxWait: maxWait}
}

// Key is the Redis key holding host's next free time.
func (l *Limiter) Key(host string) string { return l.prefix + ":crawl:host:" + host }

// Reserve asks for the next slot of host, with delay the gap to keep after
// it. A delay <= 0 disables politeness: the slot is now, nothing is stored.
func (l *Limiter) Reserve(ctx context.Context, host string, delay time.Duration) (Reservation, error) {
	if delay <= 0 {
		return Reservation{Host: host, Slot: time.Now(), Reserved: true}, nil
	}
	delayMS := max(delay.Milliseconds(), 1)
	v, err := reserveScript.Run(ctx, l.rdb, []string{l.Key(host)}, delayMS, l.maxWait.Milliseconds()).Int64Slice()
	if err != nil {
		return Reservation{}, fmt.Errorf("reserve a slot for %s: %w", host, err)
	}
	if len(v) != 3 {
		return Reservation{}, fmt.Errorf("reserve a slot for %s: unexpected reply %v", host, v)
	}
	return Reservation{Host: host, Slot: time.UnixMilli(v[1]), Wait: time.Duration(v[1]-v[2]) * time.Millisecond,
		Reserved: v[0] == 1}, nil
}

// Wait reserves host's next slot and sleeps until it. It returns a
// *TooLongError (nothing reserved) when the slot is beyond the max wait,
// and ctx's error if ctx ends while waiting (the slot is then lost, which
// only makes the host's gap longer). The reservation is returned either way.
func (l *Limiter) Wait(ctx context.Context, host string, delay time.Duration) (Reservation, error) {
	r, err := l.Reserve(ctx, host, delay)
	if err != nil {
		return r, err
	}
	if !r.Reserved {
		return r, &TooLongError{Wait: r.Wait}
	}
	if r.Wait <= 0 {
		return r, nil
	}
	t := time.NewTimer(r.Wait)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return r, fmt.Errorf("wait for a slot on %s: %w", host, ctx.Err())
	case <-t.C:
		return r, nil
	}
}
