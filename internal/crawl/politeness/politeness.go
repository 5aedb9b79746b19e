// Package politeness spaces requests to one host across every crawler
// process: the next allowed time of each host lives in Redis, and slots are
// handed out by a Lua script on the server's clock, so no two requests to
// a host are ever closer than its delay, whatever the number of workers.
//
// A slot alone does not make that hold where the requests arrive: a
// request whose process was descheduled, or whose Redis reply came late,
// wakes after its slot, possibly together with the next one (after a stall
// every overdue timer fires at once); and a stamp taken at the send cannot
// see how late that request then reached the host. So the gap is kept from
// the host's answer, as colly and Heritrix keep it: once its slot has
// come, a request is sent only when the host's previous request has had
// its first response byte (or failed) at least the delay ago, on the Redis
// server's clock. The host saw that previous request before it answered,
// so it never sees two closer than the delay, whatever the jitter.
//
// A request that can step aside (the crawler re-queues it) uses Claim: a
// slot far away is held for the request under its own key, and handed
// back when it returns, so waiting for a slot need not occupy a worker.
package politeness

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync"
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

// gateScript lets one request to a host go. KEYS[1]: the host's last
// answer (unix µs); KEYS[2]: the request in flight (its token); KEYS[3]:
// the host's next free slot (reserveScript's); KEYS[4]: the host is wanted
// by a request the one in flight cannot hand over to. ARGV: delay µs,
// token, in-flight TTL ms, the caller's limiter id (its tokens' prefix).
// It returns {0, -1} while another limiter's request is in flight (and
// marks the host wanted), {0, -2} while one of the caller's limiter is,
// {0, µs still to wait} while the last answer is less than the delay ago,
// else marks this request in flight and returns {1, now µs}.
var gateScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local busy = redis.call('GET', KEYS[2])
if busy and busy ~= ARGV[2] then
  if string.sub(busy, 1, #ARGV[4]) == ARGV[4] then
    return {0, -2}
  end
  redis.call('SET', KEYS[4], '1', 'PX', 50)
  return {0, -1}
end
local delay = tonumber(ARGV[1])
local last = tonumber(redis.call('GET', KEYS[1]) or '0')
if now < last + delay then
  return {0, last + delay - now}
end
redis.call('SET', KEYS[2], ARGV[2], 'PX', tonumber(ARGV[3]))
return {1, now}
`)

// releaseScript ends a request's turn: the host answered (or the request
// failed) now. Same KEYS as gateScript; ARGV: delay ms, token, and
// optionally the token of the next request of this process in line and
// how long (ms) it may hold the host. The next free slot moves to at
// least now + delay, so slots handed out from here on follow the host's
// real pace (held ones keep their time: the gate still spaces them). The
// turn is handed straight to the next request when the releasing one
// still held the host and no other process wants it: that request then
// goes a delay after the reply without asking (the gate's round trip
// saved) while other processes' gates see the host busy and mark it
// wanted, so the next release leaves the turn to them. It returns {handed
// over (0/1), now µs, wanted by another process (0/1)}.
var releaseScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local held = redis.call('GET', KEYS[2]) == ARGV[2]
if held then
  redis.call('DEL', KEYS[2])
end
local delay = tonumber(ARGV[1])
redis.call('SET', KEYS[1], string.format('%d', now), 'PX', delay + 60000)
local nowms = math.floor(now / 1000)
local nxt = tonumber(redis.call('GET', KEYS[3]) or '0')
if nxt < nowms + delay then
  redis.call('SET', KEYS[3], nowms + delay, 'PX', delay + 60000)
end
local wanted = redis.call('EXISTS', KEYS[4])
if held and ARGV[3] and ARGV[3] ~= '' and wanted == 0 then
  redis.call('SET', KEYS[2], ARGV[3], 'PX', tonumber(ARGV[4]))
  return {1, now, 0}
end
return {0, now, wanted}
`)

// dropScript gives back a turn handed over to a request that then did not
// take it (its context ended): KEYS[1] the host's in-flight key, ARGV[1]
// the request's token.
var dropScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
end
return 1
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
	Sent     time.Time     // set by Wait and Await: when the request was let go, on the server's clock (>= Slot)
	// Release (set by Wait and Await) ends the request's turn on the host:
	// call it once, when the first byte of the answer has come or the
	// request has failed. Until then no other request goes to the host,
	// for at most twice the delay (at least a second).
	Release func()
	// Held (Claim only): the slot is reserved for the request but further
	// than the defer threshold; the caller should step aside until shortly
	// before Slot and Claim again with the same id, which returns this slot.
	Held bool
}

// TooLongError is returned by Wait when the next slot is beyond the max
// wait, and by Await when the host stayed busy with another request of
// ours for longer than the caller would wait (Busy): come back after Wait.
type TooLongError struct {
	Wait time.Duration
	Busy bool
}

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
	id      string // prefixes this limiter's tokens: the gate tells its requests from other processes'

	mu   sync.Mutex
	line map[string][]*waiter // per host: this process's requests waiting for its turn, in order
}

// A waiter is a request of this process in line for its host's turn.
type waiter struct {
	token string
	slot  time.Time   // its reserved slot, on this process's clock
	wake  chan wakeup // one wake-up at most stands
}

// A wakeup tells the first in line that the line moved: a release here
// (the host answered at answered, µs on the server's clock), which may
// have handed it the turn or found another process waiting for it, or a
// request ahead that left without it.
type wakeup struct {
	released, handed, wanted bool
	answered                 int64     // the release's time, µs on the server's clock
	at                       time.Time // when the release's reply came, on this process's clock (after answered)
}

// inFlightTTL is how long a request holds its host unless it releases it
// first: twice the delay, at least a second. A request still unanswered
// then (a slow host, or a process stopped or killed mid-request) no longer
// keeps the others back, and the next one still goes at least that long
// after it was let go, so the gap holds either way.
func inFlightTTL(delay time.Duration) time.Duration { return max(2*delay, time.Second) }

// pollBusy is how often a request waiting for another process's request
// to the same host asks again (this process's own releases wake it).
const pollBusy = 5 * time.Millisecond

// New returns a Limiter whose keys are <prefix>:crawl:host:{<host>}; maxWait
// <= 0 means DefaultMaxWait.
func New(rdb redis.UniversalClient, prefix string, maxWait time.Duration) *Limiter {
	if maxWait <= 0 {
		maxWait = DefaultMaxWait
	}
	return &Limiter{rdb: rdb, prefix: prefix, maxWait: maxWait, id: strconv.FormatInt(rand.Int64(), 36) + ".", line: map[string][]*waiter{}}
}

// Key is the Redis key holding host's next free time; the host is its hash tag.
func (l *Limiter) Key(host string) string { return l.prefix + ":crawl:host:{" + host + "}" }

// AnsweredKey is the Redis key holding when host last answered us.
func (l *Limiter) AnsweredKey(host string) string { return l.prefix + ":crawl:answered:{" + host + "}" }

// BusyKey is the Redis key naming the request in flight to host.
func (l *Limiter) BusyKey(host string) string { return l.prefix + ":crawl:busy:{" + host + "}" }

// WantedKey is the Redis key saying that a request the host's turn cannot
// be handed to (another process's) is waiting for it.
func (l *Limiter) WantedKey(host string) string { return l.prefix + ":crawl:wanted:{" + host + "}" }

// keys are the host's keys the gate and the release share.
func (l *Limiter) keys(host string) []string {
	return []string{l.AnsweredKey(host), l.BusyKey(host), l.Key(host), l.WantedKey(host)}
}

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
	return l.Await(ctx, r, delay, l.maxWait)
}

// Await waits in the host's line for r's slot, then for the host's turn: no
// request of ours in flight to it, and its last answer at least delay ago
// (see the package comment), so waiters that wake together after a stall
// still go one delay apart. A turn handed over by the release before it
// is taken at the slot, or a delay after that answer if later. While
// another request holds the host it waits at most maxBusy, then returns a
// *TooLongError (step aside: a slow host must not hold every worker). On
// success r.Sent is when it was let go (server clock) and r.Release must
// be called when the answer starts or the request fails. It returns ctx's
// error if ctx ends first.
func (l *Limiter) Await(ctx context.Context, r Reservation, delay, maxBusy time.Duration) (Reservation, error) {
	r.Release = func() {}
	if delay <= 0 {
		r.Sent = r.Slot
		return r, nil
	}
	// In line from the start, not from the slot: a request of ours that
	// answers meanwhile hands the turn over at its release, and this one
	// goes a delay after that answer without asking the gate. Joining at
	// the slot, a polite crawl's next request was never in line when the
	// previous one released, and every page asked the gate (bench-crawler,
	// 8 hosts × 20 ms: 1.1 gate scripts a page).
	keys := l.keys(r.Host)
	slot := time.Now().Add(r.Wait)
	w := l.join(r.Host, slot)
	turn := false
	defer func() { l.leave(r.Host, w, turn) }()
	busySince := time.Time{}
	for {
		// Before the slot, or behind a request of ours in line, wait for
		// the slot or for the line to move.
		var wait time.Duration
		busy := true
		if early := time.Until(slot); early > 0 {
			wait, busy = early, false
		} else if l.first(r.Host, w) {
			v, err := gateScript.Run(ctx, l.rdb, keys, max(delay.Microseconds(), 1), w.token, inFlightTTL(delay).Milliseconds(), l.id).Int64Slice()
			if err != nil {
				return r, fmt.Errorf("wait for the turn on %s: %w", r.Host, err)
			}
			if len(v) != 2 {
				return r, fmt.Errorf("wait for the turn on %s: unexpected reply %v", r.Host, v)
			}
			if v[0] == 1 {
				turn = true
				return l.went(r, time.UnixMicro(v[1]), keys, delay, w.token), nil
			}
			// Another process's request in flight: ask again shortly (its
			// release wakes nobody here). One of ours: its release will
			// wake us (polling made a gate script every 5 ms of a slow
			// answer), else its hold ends with the in-flight TTL. Else the
			// delay since the answer.
			switch busy = v[1] < 0; {
			case v[1] == -1:
				wait = pollBusy
			case busy:
				wait = inFlightTTL(delay)
			default:
				wait = time.Duration(v[1]) * time.Microsecond
			}
		}
		if busy {
			if busySince.IsZero() {
				busySince = time.Now()
			} else if time.Since(busySince) >= maxBusy {
				return r, &TooLongError{Wait: maxBusy, Busy: true}
			}
			if left := maxBusy - time.Since(busySince); wait == 0 || wait > left {
				wait = left
			}
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return r, fmt.Errorf("wait for the turn on %s: %w", r.Host, ctx.Err())
		case u := <-w.wake:
			t.Stop()
			if !u.released {
				continue
			}
			// Woken by a release here: the host answered just now, so
			// its turn is a delay away (asking now would only be told so).
			// A turn handed over is ours then, without asking. One another
			// process wants goes to it: that process asks at the delay's
			// end, and we a poll later.
			// A handed turn's delay runs from the release's reply, not
			// from this wake (this goroutine's start is part of it), and
			// not from the answer: the reply comes after the server
			// stamped the release, so the send is never before the Sent
			// it reports, however late the script ran (from the answer, a
			// loaded machine made Sents 18 ms apart at a 20 ms delay). One
			// not handed asks the gate after the whole delay, which the
			// gate (on the server's clock, from the release) then lets go
			// at once.
			pause := delay
			if u.handed { // and never before its own slot
				pause = max(delay-time.Since(u.at), time.Until(slot))
			}
			if u.wanted {
				pause += pollBusy
			}
			if err := sleep.For(ctx, pause); err != nil {
				if u.handed {
					l.drop(r.Host, w.token)
				}
				return r, fmt.Errorf("wait for the turn on %s: %w", r.Host, err)
			}
			if u.handed {
				turn = true
				return l.went(r, later(time.UnixMicro(u.answered).Add(delay), r.Slot), keys, delay, w.token), nil
			}
		case <-t.C:
		}
	}
}

// later is the later of a and b.
func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// went returns r let go at sent (server clock), with its Release.
func (l *Limiter) went(r Reservation, sent time.Time, keys []string, delay time.Duration, token string) Reservation {
	r.Sent = sent
	var once sync.Once
	r.Release = func() { once.Do(func() { l.release(r.Host, keys, delay, token) }) }
	return r
}

// join puts a request of this process in line for host's turn. Only the
// first in line asks Redis (polling while a request of another process is
// in flight), and a release here wakes the first alone: when a release
// woke every waiter, each asked Redis at every turn (one host × 1 ms, 16
// workers: 100 Redis commands a page; in line, 24).
func (l *Limiter) join(host string, slot time.Time) *waiter {
	w := &waiter{token: l.id + strconv.FormatInt(rand.Int64(), 36), slot: slot, wake: make(chan wakeup, 1)}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.line[host] = append(l.line[host], w)
	return w
}

// first says whether w is first in host's line.
func (l *Limiter) first(host string, w *waiter) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	q := l.line[host]
	return len(q) > 0 && q[0] == w
}

// leave takes w out of host's line. One that leaves without the turn (its
// context ended, it steps aside, Redis failed) wakes the next, which
// would otherwise wait for a release that is not coming, and gives back a
// turn handed to it that it did not take; one that took the turn wakes
// the next at its release.
func (l *Limiter) leave(host string, w *waiter, turn bool) {
	l.mu.Lock()
	q := l.line[host]
	i := slices.Index(q, w)
	if i < 0 {
		l.mu.Unlock()
		return
	}
	q = slices.Delete(q, i, i+1)
	if len(q) == 0 {
		delete(l.line, host)
	} else {
		l.line[host] = q
		if i == 0 && !turn {
			wake(q[0], wakeup{})
		}
	}
	var handed bool
	select {
	case u := <-w.wake:
		handed = u.handed
	default:
	}
	l.mu.Unlock()
	if handed && !turn {
		l.drop(host, w.token)
	}
}

// drop gives back the turn on host handed to token, if it still holds it.
func (l *Limiter) drop(host, token string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	// A failed drop leaves the host busy until the in-flight TTL: slower,
	// never closer than the delay.
	_ = dropScript.Run(ctx, l.rdb, []string{l.BusyKey(host)}, token).Err()
}

// wake signals a waiter (under l.mu, so no other signal races it); a
// release replaces a signal not taken yet, since it says more.
func wake(w *waiter, u wakeup) {
	select {
	case old := <-w.wake:
		if !u.released {
			u = old
		}
	default:
	}
	w.wake <- u
}

// release ends a request's turn on host, handing it to the first of this
// process's requests in line for it when Redis allows (see releaseScript),
// and wakes that request. It runs on a context of its own: the request's
// may be over already.
func (l *Limiter) release(host string, keys []string, delay time.Duration, token string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	// The turn is handed only to a request whose slot is at most a delay
	// away: one held longer would outlast the in-flight TTL, and another
	// process's request could then go too.
	next := ""
	l.mu.Lock()
	if q := l.line[host]; len(q) > 0 && time.Until(q[0].slot) <= delay {
		next = q[0].token
	}
	l.mu.Unlock()
	// A failed release leaves the host busy until the in-flight TTL: slower,
	// never closer than the delay.
	v, err := releaseScript.Run(ctx, l.rdb, keys, max(delay.Milliseconds(), 1), token, next,
		(delay + inFlightTTL(delay)).Milliseconds()).Int64Slice()
	u := wakeup{released: true, at: time.Now()}
	if err == nil && len(v) == 3 {
		u.handed, u.answered, u.wanted = v[0] == 1 && next != "", v[1], v[2] == 1
	}
	l.mu.Lock()
	q := l.line[host]
	switch {
	case len(q) > 0 && (!u.handed || q[0].token == next):
		wake(q[0], u)
		l.mu.Unlock()
	default:
		// The request handed the turn left the line meanwhile: give the
		// turn back, and wake whoever is first now to ask for it.
		l.mu.Unlock()
		if u.handed {
			l.drop(host, next)
		}
		l.mu.Lock()
		if q := l.line[host]; len(q) > 0 {
			wake(q[0], wakeup{})
		}
		l.mu.Unlock()
	}
}
