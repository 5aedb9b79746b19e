package streamkit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime/debug"
	"strconv"
	"strings"
	"time"
)

// workLoop runs handlers for entries from the work channel until it closes.
// ctx is the hard context: cancelled only when shutdown's grace runs out.
func (c *Consumer) workLoop(ctx context.Context) {
	for m := range c.work {
		if ctx.Err() != nil {
			c.finish(m) // left pending: shutdown ran out of grace
			continue
		}
		c.process(ctx, m)
	}
}

// process runs one entry to its outcome. Trouble that is not the entry's
// — a dependency away, a transaction conflict — runs it again once the
// trouble is over instead of spending an attempt.
func (c *Consumer) process(ctx context.Context, m *Message) {
	for conflicts := 0; ; {
		if c.deps.Wait(ctx) != nil {
			c.finish(m) // shutdown while paused: the entry stays pending
			return
		}
		switch c.admit(ctx, m) {
		case admitDropped:
			return
		case admitAgain:
			continue
		}
		res, err, outcome := c.run(ctx, m)
		switch outcome {
		case ranPanicked:
			// Treated as a crash of this entry's worker: it stays pending, is
			// reclaimed after the visibility, and the delivery ceiling ends a loop.
			c.metrics.failed("panic")
			c.finish(m)
			return
		case ranLost, ranCancelled:
			// Another consumer owns it now, or shutdown cancelled it: leave it.
			c.finish(m)
			return
		}
		if err == nil {
			if err := storable("result DocID", res.DocID); err != nil {
				c.deadLetter(m, ErrorTypeBadMessage, err)
				return
			}
			c.toCommit(m, res)
			return
		}
		if !IsPermanent(err) {
			if dep, ok := unavailableOf(err); ok && c.pauseOn(dep, err) {
				continue
			}
			if retryNow(err) && conflicts < conflictRetries {
				conflicts++
				continue
			}
			if c.deps.Down(err) {
				continue // paused: the loop waits for the dependency
			}
		}
		c.fail(m, err)
		return
	}
}

// pauseOn trips the breaker of the stage's dependency dep; false if the
// stage registered none of that name.
func (c *Consumer) pauseOn(dep string, err error) bool {
	b := c.deps.Breaker(dep)
	if b == nil {
		return false
	}
	b.Trip(err)
	return true
}

type admission int

const (
	admitRun     admission = iota
	admitDropped           // not ours to run: finished or dropped
	admitAgain             // could not decide (a dependency went away): ask again
)

// admit decides, just before a handler starts, whether the entry is still
// this consumer's to run. One whose lease was not renewed lately (this
// process was stalled, or Redis away) is first confirmed as still owned; one
// that waited since its read-time ledger check is checked again.
func (c *Consumer) admit(ctx context.Context, m *Message) admission {
	confirmed, lost := m.part.leases.state(m.ID)
	if !lost && time.Since(confirmed) > c.cfg.Visibility/2 {
		now := time.Now()
		_, gone, err := m.part.ops.renew(ctx, []string{m.ID})
		if err != nil {
			if c.deps.Down(err) {
				return admitAgain
			}
			c.log.failed("confirm lease", err, "id", m.ID)
		} else if len(gone) > 0 {
			m.part.leases.markLost(gone)
			lost = true
		} else {
			m.part.leases.confirm([]string{m.ID}, now)
		}
	}
	if lost {
		c.log.Debug("entry is owned by another consumer now; dropped before its handler ran", "id", m.ID)
		c.finish(m)
		return admitDropped
	}
	if time.Since(m.read) > ledgerRecheck {
		done, err := c.ledger.Lookup(ctx, []string{m.Key})
		if err != nil && c.deps.Down(err) {
			return admitAgain
		}
		if emits, ok := done[m.Key]; ok {
			c.finished(m, emits)
			return admitDropped
		}
	}
	return admitRun
}

type runOutcome int

const (
	ran          runOutcome = iota
	ranPanicked             // the handler panicked
	ranLost                 // the entry was lost to another consumer while it ran
	ranCancelled            // shutdown cancelled it
)

// run calls the handler under its deadline. When the deadline passes, the
// handler is cancelled first; its lease is given up a visibility later, so
// if it ignores cancellation the entry becomes reclaimable, but this
// process never runs it twice at once.
func (c *Consumer) run(ctx context.Context, m *Message) (Result, error, runOutcome) {
	hctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	if !m.part.leases.running(m.ID, cancel) {
		return Result{}, nil, ranLost
	}
	defer m.part.leases.running(m.ID, nil)
	dl := newDeadline(c.cfg.HandlerTimeout, func() {
		cancel(errHandlerTimeout)
		m.part.leases.expire(m.ID, time.Now().Add(c.cfg.Visibility))
	})
	hctx = context.WithValue(hctx, deadlineKey{}, dl)
	start := time.Now()
	res, err, panicked := c.call(hctx, m)
	dl.stop()
	c.metrics.latency.Observe(time.Since(start).Seconds())
	cause := context.Cause(hctx)
	switch {
	case panicked:
		return res, err, ranPanicked
	case errors.Is(cause, errLeaseLost):
		return res, err, ranLost
	case err != nil && ctx.Err() != nil:
		return res, err, ranCancelled
	case err != nil && errors.Is(cause, errHandlerTimeout):
		// The deadline is a guard on the handler's own work: a busy machine
		// can trip it, so it is a runaway, not a failed attempt.
		err = Runaway(time.Since(start), fmt.Errorf("%w after %s: %w", errHandlerTimeout, c.cfg.HandlerTimeout, err))
	}
	return res, err, ran
}

// call runs the handler, turning a panic into panicked=true.
func (c *Consumer) call(ctx context.Context, m *Message) (res Result, err error, panicked bool) {
	defer func() {
		if p := recover(); p != nil {
			c.log.Error("handler panicked", "id", m.ID, "key", m.Key, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			panicked = true
		}
	}()
	res, err = c.handler.Handle(ctx, m)
	return res, err, false
}

// toCommit hands a handler's result to the committers.
func (c *Consumer) toCommit(m *Message, res Result) {
	select {
	case c.commits <- &ledgerEntry{key: m.Key, stage: c.cfg.Stage, result: res, msg: m}:
	case <-c.abandoned:
		c.log.Warn("a handler returned after shutdown gave up on it; its entry stays pending", "id", m.ID)
		c.finish(m)
	}
}

// fail routes a handler error: permanent errors and the last attempt go to
// the dead-letter stream, others to the retry set. A Later is no failure,
// and neither is a Runaway until it happens MaxRunaways times in a row.
func (c *Consumer) fail(m *Message, err error) {
	errType := ErrorType(err)
	if took, ok := runawayOf(err); ok {
		c.runaway(m, took, err)
		return
	}
	d, deferrable := retryAfterOf(err)
	// A rate limit is not a failed attempt, but an endless one must end:
	// past MaxDeferrals it counts as one.
	deferrable = deferrable && m.Deferred < c.cfg.MaxDeferrals
	if deferrable && isLater(err) {
		c.metrics.deferred.Inc()
		c.retry(m, m.Attempt, m.Deferred+1, d, err) // not a try: the runaway streak goes on
		return
	}
	delete(m.Fields, FieldRunaways) // only tries in a row count
	c.metrics.failed(errType)
	if IsPermanent(err) {
		c.deadLetter(m, errType, err)
		return
	}
	if deferrable {
		c.retry(m, m.Attempt, m.Deferred+1, d, err)
		return
	}
	attempt := m.Attempt + 1
	if attempt >= c.cfg.MaxAttempts {
		c.deadLetter(m, errType, fmt.Errorf("%s after %d attempts: %w", ErrorTypeRetries, attempt, err))
		return
	}
	c.retry(m, attempt, m.Deferred, c.backoff(attempt), err)
}

// runaway handles a try a guard stopped: back after a backoff with no
// attempt spent, or the dead-letter stream once MaxRunaways tries in a row
// ran away, with how long each took.
func (c *Consumer) runaway(m *Message, took time.Duration, err error) {
	times := append(runawaysOf(m.Fields), took.Round(time.Millisecond).String())
	c.metrics.failed(ErrorTypeRunaway)
	if len(times) >= c.cfg.MaxRunaways {
		c.deadLetter(m, ErrorTypeRunaway, fmt.Errorf("stopped by a guard %d times in a row (took %s): %w",
			len(times), strings.Join(times, ", "), err))
		return
	}
	m.Fields[FieldRunaways] = strings.Join(times, ",")
	c.retry(m, m.Attempt, m.Deferred, c.backoff(len(times)), err)
}

// backoff is min(base·2^(attempt-1), max) with ±20% jitter.
func (c *Consumer) backoff(attempt int) time.Duration {
	d := c.cfg.RetryBase
	for i := 1; i < attempt && d < c.cfg.RetryMax; i++ {
		d *= 2
	}
	d = min(d, c.cfg.RetryMax)
	jitter := time.Duration(float64(d) * 0.2 * (2*rand.Float64() - 1))
	return max(d+jitter, time.Millisecond)
}

// retryMember is a retry-set entry: the fields to publish again, unique per
// source entry and attempt.
type retryMember struct {
	ID     string            `json:"id"`
	Fields map[string]string `json:"f"`
}

func (c *Consumer) retry(m *Message, attempt, deferred int, delay time.Duration, cause error) {
	defer c.finish(m)
	fields := make(map[string]string, len(m.Fields)+2)
	for k, v := range m.Fields {
		fields[k] = v
	}
	fields[FieldAttempt] = strconv.Itoa(attempt)
	if deferred > 0 {
		fields[FieldDeferred] = strconv.Itoa(deferred)
	}
	member, _ := json.Marshal(retryMember{ID: m.ID, Fields: fields})
	var owned bool
	err := c.bookkeep(func(ctx context.Context) (err error) {
		owned, err = m.part.ops.scheduleRetry(ctx, m.ID, string(member), delay, isLater(cause))
		return err
	})
	switch {
	case err != nil:
		// Not acked: the entry stays pending and is reclaimed later.
		c.log.failed("schedule retry", err, "id", m.ID)
	case !owned:
		c.log.Debug("entry is owned by another consumer now; its retry is that consumer's", "id", m.ID)
	case isLater(cause): // counted in deferred_total by fail
		c.log.Debug("deferred", "id", m.ID, "key", m.Key, "delay", delay.String(), "reason", cause)
	default:
		c.metrics.retried.Inc()
		c.log.Info("retry scheduled", "id", m.ID, "key", m.Key, "attempt", attempt, "delay", delay.String(), "err", cause)
	}
}

// deadLetter moves an entry to the dead-letter stream and acks it.
func (c *Consumer) deadLetter(m *Message, errType string, cause error) {
	defer c.finish(m)
	fields := deadLetterArgs(c.cfg.Stage, m.Attempt+1, errType, cause.Error(), c.cfg.Consumer, m.ID, m.Fields)
	var owned bool
	err := c.bookkeep(func(ctx context.Context) (err error) {
		owned, err = m.part.ops.deadLetter(ctx, m.ID, fields)
		return err
	})
	switch {
	case err != nil:
		c.log.failed("dead-letter entry", err, "id", m.ID)
	case !owned:
		c.log.Debug("entry is owned by another consumer now; not dead-lettered here", "id", m.ID)
	default:
		c.metrics.deadLettered(errType)
		c.log.Warn("dead-lettered", "id", m.ID, "key", m.Key, "error_type", errType, "err", cause)
	}
}

// bookkeep runs op with the bookkeeping deadline. While op fails because a
// dependency is away, it waits for the dependency and runs op again, until
// shutdown's grace runs out; other errors are returned.
func (c *Consumer) bookkeep(op func(ctx context.Context) error) error {
	for {
		ctx, cancel := bookkeeping()
		err := op(ctx)
		cancel()
		if err == nil || !c.deps.Down(err) {
			return err
		}
		if werr := c.deps.Wait(c.hard); werr != nil {
			return err
		}
	}
}
