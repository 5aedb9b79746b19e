package streamkit

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"
)

// A janitor trims the stage's stream below what every group has finished
// and removes dead consumers that hold nothing.
type janitor struct {
	c *Consumer
	*loop
}

func newJanitor(c *Consumer) *janitor {
	j := &janitor{c: c}
	j.loop = newLoop(c.cfg.JanitorInterval, j.exec)
	return j
}

func (j *janitor) exec(ctx context.Context) {
	c := j.c
	if _, err := Trim(ctx, c.rdb, c.keys.Stream(), c.cfg.RetainLen); err != nil {
		c.log.Error("trim stream", "err", err)
	}
	if err := j.removeDeadConsumers(ctx); err != nil {
		c.log.Error("remove dead consumers", "err", err)
	}
}

func (j *janitor) removeDeadConsumers(ctx context.Context) error {
	c := j.c
	consumers, err := c.rdb.XInfoConsumers(ctx, c.keys.Stream(), c.cfg.Group).Result()
	if err != nil {
		return fmt.Errorf("list consumers: %w", err)
	}
	for _, x := range consumers {
		if x.Name == c.cfg.Consumer || x.Pending > 0 || x.Idle < c.cfg.DeadConsumer {
			continue
		}
		if err := c.rdb.XGroupDelConsumer(ctx, c.keys.Stream(), c.cfg.Group, x.Name).Err(); err != nil {
			return fmt.Errorf("delete consumer %s: %w", x.Name, err)
		}
		c.log.Info("removed idle consumer", "name", x.Name, "idle", x.Idle)
	}
	return nil
}

// SafeTrimPoint is the lowest id any group still needs on stream: the
// smallest of every group's oldest pending id and the id just after its last
// delivered one. ok is false when no group reads the stream (then nothing
// may be trimmed).
func SafeTrimPoint(ctx context.Context, rdb redis.UniversalClient, stream string) (id string, ok bool, err error) {
	groups, err := rdb.XInfoGroups(ctx, stream).Result()
	if err != nil {
		if isNoSuchKey(err) {
			return "", false, nil
		}
		return "", false, fmt.Errorf("read groups of %s: %w", stream, err)
	}
	if len(groups) == 0 {
		return "", false, nil
	}
	var low streamID
	for i, g := range groups {
		need := parseID(g.LastDeliveredID).next()
		if g.Pending > 0 {
			p, err := rdb.XPending(ctx, stream, g.Name).Result()
			if err != nil && !errors.Is(err, redis.Nil) {
				return "", false, fmt.Errorf("read pending of %s/%s: %w", stream, g.Name, err)
			}
			if p != nil && p.Count > 0 {
				need = minID(need, parseID(p.Lower))
			}
		}
		if i == 0 {
			low = need
		} else {
			low = minID(low, need)
		}
	}
	return low.String(), true, nil
}

// Trim removes entries of stream that every group has finished, keeping
// the newest retain of them for inspection. It never removes an entry that
// is undelivered or pending in any group, and returns how many it removed.
func Trim(ctx context.Context, rdb redis.UniversalClient, stream string, retain int64) (int64, error) {
	safe, ok, err := SafeTrimPoint(ctx, rdb, stream)
	if err != nil || !ok {
		return 0, err
	}
	cut := parseID(safe)
	if retain > 0 {
		// The retain-th newest entry below the safe point becomes the cut.
		msgs, err := rdb.XRevRangeN(ctx, stream, "("+safe, "-", retain).Result()
		if err != nil {
			return 0, fmt.Errorf("find retention point of %s: %w", stream, err)
		}
		if int64(len(msgs)) < retain {
			return 0, nil
		}
		cut = minID(cut, parseID(msgs[len(msgs)-1].ID))
	}
	n, err := rdb.XTrimMinID(ctx, stream, cut.String()).Result()
	if err != nil {
		return 0, fmt.Errorf("trim %s to %s: %w", stream, cut, err)
	}
	return n, nil
}

// streamID is a parsed stream entry id.
type streamID struct{ ms, seq uint64 }

func parseID(s string) streamID {
	ms, seq, _ := strings.Cut(s, "-")
	a, _ := strconv.ParseUint(ms, 10, 64)
	b, _ := strconv.ParseUint(seq, 10, 64)
	return streamID{a, b}
}

func (id streamID) next() streamID {
	if id.seq == ^uint64(0) {
		return streamID{id.ms + 1, 0}
	}
	return streamID{id.ms, id.seq + 1}
}

func (id streamID) less(o streamID) bool {
	return id.ms < o.ms || (id.ms == o.ms && id.seq < o.seq)
}

func (id streamID) String() string { return fmt.Sprintf("%d-%d", id.ms, id.seq) }

func minID(a, b streamID) streamID {
	if b.less(a) {
		return b
	}
	return a
}
