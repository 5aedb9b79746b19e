package streamkit

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"runtime/debug"
	"strconv"
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

// process runs the handler for one entry and routes its outcome.
func (c *Consumer) process(ctx context.Context, m *Message) {
	hctx, cancel := context.WithTimeoutCause(ctx, c.cfg.HandlerTimeout, errHandlerTimeout)
	start := time.Now()
	res, err, panicked := c.call(hctx, m)
	timedOut := context.Cause(hctx) == errHandlerTimeout
	cancel()
	c.metrics.latency.Observe(time.Since(start).Seconds())

	switch {
	case panicked:
		// Treated as a crash of this entry's worker: it stays pending, is
		// reclaimed after the visibility, and the delivery ceiling ends a loop.
		c.metrics.failed("panic")
		c.finish(m)
	case err == nil:
		select {
		case c.commits <- &ledgerEntry{key: m.Key, stage: c.cfg.Stage, result: res, msg: m}:
		case <-c.abandoned:
			c.log.Warn("a handler returned after shutdown gave up on it; its entry stays pending", "id", m.ID)
			c.finish(m)
		}
	case ctx.Err() != nil && !timedOut:
		// Shutdown cancelled the handler: leave the entry pending.
		c.finish(m)
	default:
		if timedOut {
			err = fmt.Errorf("%w after %s: %w", errHandlerTimeout, c.cfg.HandlerTimeout, err)
		}
		c.fail(m, err)
	}
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

// fail routes a handler error: permanent errors and the last attempt go to
// the dead-letter stream, others to the retry set. A Later is no failure.
func (c *Consumer) fail(m *Message, err error) {
	errType := ErrorType(err)
	d, deferrable := retryAfterOf(err)
	// A rate limit is not a failed attempt, but an endless one must end:
	// past MaxDeferrals it counts as one.
	deferrable = deferrable && m.Deferred < c.cfg.MaxDeferrals
	if deferrable && isLater(err) {
		c.metrics.deferred.Inc()
		c.retry(m, m.Attempt, m.Deferred+1, d, err)
		return
	}
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
	ctx, cancel := bookkeeping()
	defer cancel()
	err := retryScript.Run(ctx, c.rdb, []string{c.keys.Stream(), c.keys.Retry()},
		c.cfg.Group, m.ID, string(member), delay.Milliseconds()).Err()
	if err != nil {
		// Not acked: the entry stays pending and is reclaimed later.
		c.log.Error("schedule retry", "id", m.ID, "err", err)
		return
	}
	c.metrics.retried.Inc()
	c.log.Info("retry scheduled", "id", m.ID, "key", m.Key, "attempt", attempt, "delay", delay, "err", cause)
}

// deadLetter moves an entry to the dead-letter stream and acks it.
func (c *Consumer) deadLetter(m *Message, errType string, cause error) {
	defer c.finish(m)
	ctx, cancel := bookkeeping()
	defer cancel()
	args := append([]interface{}{c.cfg.Group, m.ID},
		deadLetterArgs(c.cfg.Stage, m.Attempt+1, errType, cause.Error(), c.cfg.Consumer, m.ID, m.Fields)...)
	if err := deadLetterScript.Run(ctx, c.rdb, []string{c.keys.Stream(), c.keys.DLQ()}, args...).Err(); err != nil {
		c.log.Error("dead-letter entry", "id", m.ID, "err", err)
		return
	}
	c.metrics.deadLettered(errType)
	c.log.Warn("dead-lettered", "id", m.ID, "key", m.Key, "error_type", errType, "err", cause)
}
