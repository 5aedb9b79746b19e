// Package politeness spaces requests to one host across every crawler
// process: the next allowed time of each host lives in Redis, and slots are
// handed out by a Lua script on the server's clock, so no two requests to
// a host are ever closer than its delay, whatever the number of workers.
//
// A slot alone does not make that hold where the requests arrive: a
// request whose process was descheduled, or whose Redis reply came late,
// wakes after its slot, possibly together with the next one (after a stall
// every overdue timer fires at once). So a waiter, once its slot has come,
// also stamps the host's last send time in Redis (server clock again) and
// waits more if the previous send was less than the delay ago.
//
// A request that can step aside (the crawler re-queues it) uses Claim: a
// slot far away is held for the request under its own key, and handed
// back when it returns, so waiting for a slot need not occupy a worker.
package politeness

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newscrawl/newscrawl/internal/sleep"
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

// sendScript stamps a send to a host, in microseconds (a millisecond
// clock would let two sends be up to 1ms closer than the delay). KEYS[1]
// holds the host's last send (unix µs). ARGV: delay µs. It returns
// {0, µs still to wait} when the last send was less than the delay ago,
// else stamps now and returns {1, now}.
var sendScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local delay = tonumber(ARGV[1])
local last = tonumber(redis.call('GET', KEYS[1]) or '0')
if now < last + delay then
  return {0, last + delay - now}
end
redis.call('SET', KEYS[1], string.format('%d', now), 'PX', math.floor(delay / 1000) + 60000)
return {1, now}
`)

// claimScript is reserveScript for a request that can step aside and come
// back: a slot further away than the defer threshold is reserved for the
// request and remembered under the request's own key, so that when it
// comes back it takes that slot instead of reserving another (the host's
// schedule keeps no holes and returning requests cannot stampede).
// KEYS[1]: the host's next free time (unix ms); KEYS[2]: the slot held for
// the request (unix ms). ARGV: delay ms, defer-after ms, max-ahead ms,
// hold TTL margin ms. It returns {state, slot ms, server now ms}: state 1
// go (the slot is within defer-after; no longer held), 2 held (further than
// defer-after; kept in KEYS[2]), 0 refused (further than max-ahead; nothing
// reserved).
var claimScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local delay = tonumber(ARGV[1])
local deferafter = tonumber(ARGV[2])
local maxahead = tonumber(ARGV[3])
local margin = tonumber(ARGV[4])
local held = redis.call('GET', KEYS[2])
if held then
  local slot = tonumber(held)
  if slot - now > deferafter then
    return {2, slot, now}
  end
  redis.call('DEL', KEYS[2])
  return {1, slot, now}
end
local slot = tonumber(redis.call('GET', KEYS[1]) or '0')
if slot < now then slot = now end
if slot - now > maxahead then
  return {0, slot, now}
end
redis.call('SET', KEYS[1], slot + delay, 'PX', slot + delay - now + 60000)
if slot - now > deferafter then
  redis.call('SET', KEYS[2], slot, 'PX', slot - now + margin)
  return {2, slot, now}
end
return {1, slot, now}
`)

// holdMargin is how long a held slot outlives its time: a request that
// comes back later than that reserves again (the host's gap only grows).
const holdMargin = 10 * time.Minute

// A Reservation is a slot handed out (or refused) for one request.
type Reservation struct {
	Host     string
	Slot     time.Time     // when the request may be sent, on the server's clock
	Wait     time.Duration // Slot minus the server's now
	Reserved bool          // false: the slot was further than the max wait (Claim: max ahead) and is not held
	Sent     time.Time     // set by Wait and Await: the send stamped on the server's clock (>= Slot)
	// Held (Claim only): the slot is reserved for the request but further
	// than the defer threshold; the caller should step aside until shortly
	// before Slot and Claim again with the same id, which returns this slot.
	Held bool
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

// New returns a Limiter whose keys are <prefix>:crawl:host:{<host>}; maxWait
// <= 0 means DefaultMaxWait.
func New(rdb redis.UniversalClient, prefix string, maxWait time.Duration) *Limiter {
	if maxWait <= 0 {
		maxWait = DefaultMaxWait
	}
	return &Limiter{rdb: rdb, prefix: prefix, maxWait: maxWait}
}

// Key is the Redis key holding host's next free time; the host is its hash tag.
func (l *Limiter) Key(host string) string { return l.prefix + ":crawl:host:{" + host + "}" }

// SentKey is the Redis key holding host's last send time.
func (l *Limiter) SentKey(host string) string { return l.prefix + ":crawl:sent:" + host }

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

// HeldKey is the Redis key holding the slot held on host for the request
// id. It shares Key's hash tag, so the claim script runs on Redis Cluster.
func (l *Limiter) HeldKey(host, id string) string {
	return l.prefix + ":crawl:held:{" + host + "}:" + id
}

// Claim reserves host's next slot for the request id (stable across its
// re-deliveries), or returns the slot already held for it. A slot within
// deferAfter is handed over (Reserved, to Await now) and forgotten; a
// further one is kept for id (Reserved and Held: come back before Slot);
// one beyond maxAhead is neither reserved nor held (Reserved false: come
// back later). A held slot that id never comes back for is only lost time
// for the host: no two requests ever share a slot. A delay <= 0 disables
// politeness: the slot is now, nothing is stored.
func (l *Limiter) Claim(ctx context.Context, host, id string, delay, deferAfter, maxAhead time.Duration) (Reservation, error) {
	if delay <= 0 {
		return Reservation{Host: host, Slot: time.Now(), Reserved: true}, nil
	}
	v, err := claimScript.Run(ctx, l.rdb, []string{l.Key(host), l.HeldKey(host, id)}, max(delay.Milliseconds(), 1),
		deferAfter.Milliseconds(), maxAhead.Milliseconds(), holdMargin.Milliseconds()).Int64Slice()
	if err != nil {
		return Reservation{}, fmt.Errorf("claim a slot for %s on %s: %w", id, host, err)
	}
	if len(v) != 3 {
		return Reservation{}, fmt.Errorf("claim a slot for %s on %s: unexpected reply %v", id, host, v)
	}
	return Reservation{Host: host, Slot: time.UnixMilli(v[1]), Wait: time.Duration(v[1]-v[2]) * time.Millisecond,
		Reserved: v[0] != 0, Held: v[0] == 2}, nil
}

// Wait reserves host's next slot and awaits it (see Await). It returns a
// *TooLongError (nothing reserved) when the slot is beyond the max wait,
// and ctx's error if ctx ends while waiting (the slot is then lost, which
// only makes the host's gap longer). The reservation is returned either
// way. A delay <= 0 returns at once.
func (l *Limiter) Wait(ctx context.Context, host string, delay time.Duration) (Reservation, error) {
	r, err := l.Reserve(ctx, host, delay)
	if err != nil {
		return r, err
	}
	if !r.Reserved {
		return r, &TooLongError{Wait: r.Wait}
	}
	return l.Await(ctx, r, delay)
}

// Await sleeps until r's slot, then stamps the send in Redis, sleeping
// more while the host's last stamped send is less than delay ago — so
// waiters that wake together after a stall still go one delay apart. On
// success r.Sent is the stamp (server clock). It returns ctx's error if
// ctx ends first.
func (l *Limiter) Await(ctx context.Context, r Reservation, delay time.Duration) (Reservation, error) {
	if delay <= 0 {
		r.Sent = r.Slot
		return r, nil
	}
	gap := SendGap(delay)
	if err := sleep.For(ctx, r.Wait); err != nil {
		return r, fmt.Errorf("wait for a slot on %s: %w", r.Host, err)
	}
	for {
		v, err := sendScript.Run(ctx, l.rdb, []string{l.SentKey(r.Host)}, max(gap.Microseconds(), 1)).Int64Slice()
		if err != nil {
			return r, fmt.Errorf("stamp a send to %s: %w", r.Host, err)
		}
		if len(v) != 2 {
			return r, fmt.Errorf("stamp a send to %s: unexpected reply %v", r.Host, v)
		}
		if v[0] == 1 {
			r.Sent = time.UnixMicro(v[1])
			return r, nil
		}
		if err := sleep.For(ctx, time.Duration(v[1])*time.Microsecond); err != nil {
			return r, fmt.Errorf("wait for the last send to %s to be %s ago: %w", r.Host, delay, err)
		}
	}
}

// SendGap is how far apart stamped sends to one host are: the delay plus a
// margin (a tenth of it, at most 100 ms) that absorbs the jitter between
// stamping a send and the request reaching the host, so the host itself
// never sees two requests closer than the delay.
func SendGap(delay time.Duration) time.Duration {
	return delay + min(delay/10, 100*time.Millisecond)
}
