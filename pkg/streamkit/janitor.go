package streamkit

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// A janitor trims the stage's stream below what every group has finished
// and removes dead consumers that hold nothing. It skips its turn while a
// dependency is away.
type janitor struct {
	*loop
	p janitorParams
}

type janitorParams struct {
	ops          *ops
	deps         *Dependencies
	log          logger
	interval     time.Duration
	retain       int64         // finished entries kept for inspection
	deadConsumer time.Duration // idle time after which a consumer holding nothing is removed
}

func newJanitor(p janitorParams) *janitor {
	j := &janitor{p: p}
	j.loop = newLoop(p.interval, j.exec)
	return j
}

func (j *janitor) exec(ctx context.Context) {
	if j.p.deps.Err() != nil {
		return
	}
	if _, err := trim(ctx, j.p.ops.rdb, j.p.ops.keys.Stream(), j.p.retain); err != nil {
		j.p.log.failed("trim stream", err)
	}
	if err := j.removeDeadConsumers(ctx); err != nil {
		j.p.log.failed("remove dead consumers", err)
	}
}

func (j *janitor) removeDeadConsumers(ctx context.Context) error {
	o := j.p.ops
	consumers, err := o.rdb.XInfoConsumers(ctx, o.keys.Stream(), o.group).Result()
	if isNoSuchKey(err) || isNoGroup(err) {
		return nil // a deleted stream (a former partition's) has nobody to remove
	}
	if err != nil {
		return fmt.Errorf("list consumers: %w", err)
	}
	for _, x := range consumers {
		if x.Name == o.consumer || x.Pending > 0 || x.Idle < j.p.deadConsumer {
			continue
		}
		if err := o.rdb.XGroupDelConsumer(ctx, o.keys.Stream(), o.group, x.Name).Err(); err != nil {
			return fmt.Errorf("delete consumer %s: %w", x.Name, err)
		}
		j.p.log.Info("removed idle consumer", "name", x.Name, "idle", x.Idle.String())
	}
	return nil
}

// safeTrimPoint is the lowest id any group still needs on stream: the
// smallest of every group's oldest pending id and the id just after its last
// delivered one. ok is false when no group reads the stream (then nothing
// may be trimmed).
func safeTrimPoint(ctx context.Context, rdb redis.UniversalClient, stream string) (id string, ok bool, err error) {
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

// trim removes entries of stream that every group has finished, keeping
// the newest retain of them for inspection. It never removes an entry that
// is undelivered or pending in any group, and returns how many it removed.
func trim(ctx context.Context, rdb redis.UniversalClient, stream string, retain int64) (int64, error) {
	safe, ok, err := safeTrimPoint(ctx, rdb, stream)
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
