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
type promoter struct {
	*loop
	p promoterParams
}

type promoterParams struct {
	ops      *ops
	deps     *Dependencies
	log      logger
	interval time.Duration
	limit    int // entries moved per script run
}

func newPromoter(p promoterParams) *promoter {
	pr := &promoter{p: p}
	pr.loop = newLoop(p.interval, pr.exec)
	return pr
}

func (p *promoter) exec(ctx context.Context) {
	for ctx.Err() == nil && p.p.deps.Err() == nil {
		n, err := promote(ctx, p.p.ops.rdb, p.p.ops.keys, p.p.limit)
		if err != nil {
			if !p.p.deps.Down(err) {
				p.p.log.failed("promote due retries", err)
			}
			return
		}
		if n < p.p.limit {
			return
		}
	}
}

// promote moves up to limit due retries and up to limit due deferrals of
// a stage back onto its stream and returns how many moved. Safe to call
// from many processes at once.
func promote(ctx context.Context, rdb redis.UniversalClient, k Keys, limit int) (int, error) {
	n, err := promoteScript.Run(ctx, rdb, []string{k.Stream(), k.Retry(), k.Deferred()}, limit).Int()
	if err != nil {
		return 0, fmt.Errorf("run promote script: %w", err)
	}
	return n, nil
}
