package streamkit

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"
)

// A promoter moves due retries from the stage's retry set back onto its
// stream. The move is one Lua script, so any number of promoters (one per
// consumer process) republish each retry exactly once.
type promoter struct {
	c *Consumer
	*loop
}

func newPromoter(c *Consumer) *promoter {
	p := &promoter{c: c}
	p.loop = newLoop(c.cfg.PromoteInterval, p.exec)
	return p
}

func (p *promoter) exec(ctx context.Context) {
	for ctx.Err() == nil {
		n, err := Promote(ctx, p.c.rdb, p.c.keys, p.c.cfg.BatchSize)
		if err != nil {
			p.c.log.Error("promote due retries", "err", err)
			return
		}
		if n < p.c.cfg.BatchSize {
			return
		}
	}
}

// Promote moves up to limit due retries of a stage back onto its stream
// and returns how many moved. Safe to call from many processes at once.
func Promote(ctx context.Context, rdb redis.UniversalClient, k Keys, limit int) (int, error) {
	n, err := promoteScript.Run(ctx, rdb, []string{k.Retry(), k.Stream()}, limit).Int()
	if err != nil {
		return 0, fmt.Errorf("run promote script on %s: %w", k.Retry(), err)
	}
	return n, nil
}
