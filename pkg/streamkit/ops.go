package streamkit

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// ops is every Redis operation of one stage's consumer: what it reads,
// claims, renews, acks, schedules and dead-letters. The loops call it and
// hold no Redis client of their own.
type ops struct {
	rdb        redis.UniversalClient
	keys       Keys       // the partition's keys
	prefix     string     // of the stages emitted to
	partitions Partitions // of the stages emitted to
	group      string
	consumer   string
	block      time.Duration
}

// ensureGroup creates the stream and the group if missing.
func (o *ops) ensureGroup(ctx context.Context) error {
	return EnsureGroup(ctx, o.rdb, o.keys.Stream(), o.group)
}

// readNew reads up to n undelivered entries, blocking up to the block time.
func (o *ops) readNew(ctx context.Context, n int) ([]redis.XMessage, error) {
	return o.read(ctx, ">", n, o.block)
}

// readOwn reads up to n of this consumer's pending entries after start.
func (o *ops) readOwn(ctx context.Context, start string, n int) ([]redis.XMessage, error) {
	return o.read(ctx, start, n, -1)
}

func (o *ops) read(ctx context.Context, start string, n int, block time.Duration) ([]redis.XMessage, error) {
	streams, err := o.rdb.XReadGroup(ctx, &redis.XReadGroupArgs{
		Group: o.group, Consumer: o.consumer, Streams: []string{o.keys.Stream(), start}, Count: int64(n), Block: block,
	}).Result()
	if errors.Is(err, redis.Nil) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var msgs []redis.XMessage
	for _, s := range streams {
		msgs = append(msgs, s.Messages...)
	}
	return msgs, nil
}

// claimIdle takes over up to n entries idle longer than minIdle, scanning
// from cursor; deleted lists pending ids whose entries were trimmed.
func (o *ops) claimIdle(ctx context.Context, minIdle time.Duration, cursor string, n int) (msgs []redis.XMessage, next string, deleted []string, err error) {
	msgs, next, deleted, err = o.rdb.XAutoClaimWithDeleted(ctx, &redis.XAutoClaimArgs{
		Stream: o.keys.Stream(), Group: o.group, Consumer: o.consumer, MinIdle: minIdle, Start: cursor, Count: int64(n),
	}).Result()
	if errors.Is(err, redis.Nil) {
		err = nil
	}
	return msgs, next, deleted, err
}

// deliveries reads the delivery count of each id (pipelined).
func (o *ops) deliveries(ctx context.Context, ids []string) (map[string]int64, error) {
	pipe := o.rdb.Pipeline()
	cmds := make([]*redis.XPendingExtCmd, len(ids))
	for i, id := range ids {
		cmds[i] = pipe.XPendingExt(ctx, &redis.XPendingExtArgs{Stream: o.keys.Stream(), Group: o.group, Start: id, End: id, Count: 1})
	}
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return nil, fmt.Errorf("read pending entries: %w", err)
	}
	out := make(map[string]int64, len(ids))
	for i, cmd := range cmds {
		if p := cmd.Val(); len(p) == 1 {
			out[ids[i]] = p[0].RetryCount
		}
	}
	return out, nil
}

// renew resets the idle time of the ids this consumer still owns and
// reports which it owns and which it no longer does.
func (o *ops) renew(ctx context.Context, ids []string) (owned, lost []string, err error) {
	args := make([]interface{}, 0, len(ids)+2)
	args = append(args, o.group, o.consumer)
	for _, id := range ids {
		args = append(args, id)
	}
	res, err := renewScript.Run(ctx, o.rdb, []string{o.keys.Stream()}, args...).Slice()
	if err != nil {
		return nil, nil, fmt.Errorf("renew leases: %w", err)
	}
	for i, v := range res {
		if n, _ := v.(int64); n == 1 {
			owned = append(owned, ids[i])
		} else {
			lost = append(lost, ids[i])
		}
	}
	return owned, lost, nil
}

// ack acks ids in the group.
func (o *ops) ack(ctx context.Context, ids ...string) error {
	if err := o.rdb.XAck(ctx, o.keys.Stream(), o.group, ids...).Err(); err != nil {
		return fmt.Errorf("ack %d entries: %w", len(ids), err)
	}
	return nil
}

// emit sends messages downstream and waits for Redis to take them.
func (o *ops) emit(ctx context.Context, emits []Emit) error {
	if len(emits) == 0 {
		return nil
	}
	pipe := o.rdb.Pipeline()
	for _, em := range emits {
		values := make([]interface{}, 0, 2*len(em.Fields))
		for k, v := range em.Fields {
			values = append(values, k, v)
		}
		if len(values) == 0 {
			continue
		}
		pipe.XAdd(ctx, &redis.XAddArgs{Stream: o.partitions.Route(o.prefix, em.Stage, em.Fields).Stream(), Values: values})
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("emit %d messages: %w", len(emits), err)
	}
	return nil
}

// scheduleRetry adds member to the retry set (the deferred set for a
// deferral), due after delay, and acks the entry — only if this consumer
// still owns it (owned false otherwise: the entry is another consumer's to
// finish, and nothing was done).
func (o *ops) scheduleRetry(ctx context.Context, id, member string, delay time.Duration, deferral bool) (owned bool, err error) {
	set := o.keys.Retry()
	if deferral {
		set = o.keys.Deferred()
	}
	n, err := retryScript.Run(ctx, o.rdb, []string{o.keys.Stream(), set},
		o.group, id, member, delay.Milliseconds(), o.consumer).Int()
	if err != nil {
		return false, fmt.Errorf("schedule retry: %w", err)
	}
	if n == 1 {
		dueAdded(o.keys.Stream())
	}
	return n == 1, nil
}

// deadLetter appends a dead letter (fields) and acks the entry, only if
// this consumer still owns it.
func (o *ops) deadLetter(ctx context.Context, id string, fields []interface{}) (owned bool, err error) {
	args := append([]interface{}{o.group, id, o.consumer}, fields...)
	n, err := deadLetterScript.Run(ctx, o.rdb, []string{o.keys.Stream(), o.keys.DLQ()}, args...).Int()
	if err != nil {
		return false, fmt.Errorf("dead-letter: %w", err)
	}
	return n == 1, nil
}
