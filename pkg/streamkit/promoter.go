package streamkit

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// A promoter moves due retries from the stage's retry set back onto its
// stream. The move is one Lua script, so any number of promoters (one per
// consumer process) republish each retry exactly once. It skips its turn
// while a dependency is away: what it would move could not be processed.
// Between passes it waits the interval, or longer — until the next entry
// is due, at most maxPromoteWait — when nothing is due sooner: a crawler
// promoting every 10 ms ran a script 100 times a second while idle. An
// entry this process adds wakes it (dueWakes).
type promoter struct {
	*loop
	p    promoterParams
	wait time.Duration // before the next pass
}

type promoterParams struct {
	ops      *ops
	deps     *Dependencies
	log      logger
	interval time.Duration
	limit    int // entries moved per script run
}

// maxPromoteWait is the longest a promoter with a shorter interval waits
// while nothing is due: how late another process's new entry can be
// moved when that process stops before its own promoters move it.
const maxPromoteWait = time.Second

func newPromoter(p promoterParams) *promoter {
	pr := &promoter{p: p, wait: p.interval}
	pr.loop = newLoop(p.interval, pr.exec)
	wake, stop := listenDue(p.ops.keys.Stream())
	context.AfterFunc(pr.loop.ctx, stop)
	pr.loop.pace, pr.loop.wake = func() time.Duration { return pr.wait }, wake
	return pr
}

func (p *promoter) exec(ctx context.Context) {
	p.wait = p.p.interval
	for ctx.Err() == nil && p.p.deps.Err() == nil {
		n, next, err := promote(ctx, p.p.ops.rdb, p.p.ops.keys, p.p.limit)
		if err != nil {
			if !p.p.deps.Down(err) {
				p.p.log.failed("promote due retries", err)
			}
			return
		}
		longest := max(p.p.interval, maxPromoteWait)
		if next < 0 {
			p.wait = longest
		} else {
			p.wait = min(max(next, p.p.interval), longest)
		}
		if n < p.p.limit {
			return
		}
	}
}

// promote moves up to limit due retries and up to limit due deferrals of
// a stage back onto its stream. It returns how many moved and how long
// until the next entry left is due (negative: none is left). Safe to call
// from many processes at once.
func promote(ctx context.Context, rdb redis.UniversalClient, k Keys, limit int) (moved int, next time.Duration, err error) {
	res, err := promoteScript.Run(ctx, rdb, []string{k.Stream(), k.Retry(), k.Deferred()}, limit).Int64Slice()
	if err != nil {
		return 0, 0, fmt.Errorf("run promote script: %w", err)
	}
	if len(res) != 2 {
		return 0, 0, fmt.Errorf("promote script returned %d values, want 2", len(res))
	}
	return int(res[0]), time.Duration(res[1]) * time.Millisecond, nil
}
