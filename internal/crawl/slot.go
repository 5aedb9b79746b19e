package crawl

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/newscrawl/newscrawl/pkg/streamkit"
)

// claim takes the host slot of a page request, or steps the request aside
// until shortly before it: a slot within DeferAfter is awaited by the
// returned function, which the fetch calls before it sends (and which
// waits for the host's turn too); a
// further one is held for the request (under id) and the request is
// re-queued with streamkit.RetryAfter to come back just before it — one
// deferral per request, however long the host's queue; a slot beyond
// MaxAhead is not reserved and the request comes back later to try again.
// delay <= 0 disables politeness. The returned error is in streamkit's terms.
func (c *Crawler) claim(ctx context.Context, r *request, id string, delay time.Duration) (func(context.Context) (func(), error), error) {
	if delay <= 0 {
		return nil, nil
	}
	res, err := c.limiter.Claim(ctx, r.Host, id, delay, c.cfg.DeferAfter, c.cfg.MaxAhead)
	if err != nil {
		return nil, c.classifyErr(r, err)
	}
	switch {
	case res.Held:
		// Due one promoter period before the slot (at most half the defer
		// threshold, so it is not deferred again): the promoter brings it
		// back at most that much later, so it arrives just before its slot.
		d := max(res.Wait-min(c.cfg.PromoteInterval, c.cfg.DeferAfter/2), time.Millisecond)
		return nil, streamkit.Later(d, fmt.Sprintf("slot on %s held for %s ahead: stepping aside", r.Host, res.Wait))
	case !res.Reserved:
		// Come back when the host's queue has room again, spread over half
		// the horizon so the refused requests do not return together.
		d := res.Wait - c.cfg.MaxAhead/2 + rand.N(c.cfg.MaxAhead/2)
		return nil, streamkit.Later(d, fmt.Sprintf("next slot on %s is %s ahead, beyond %s: re-queued", r.Host, res.Wait, c.cfg.MaxAhead))
	}
	// The wait for the slot and the host's turn happen in the fetch, before
	// its timeout starts; the fetch ends the turn at the answer's first byte.
	return func(ctx context.Context) (func(), error) {
		// A host busy with another request of ours longer than this sends
		// this one aside (a slow host must not hold every handler).
		res, err := c.limiter.Await(ctx, res, delay, max(c.cfg.DeferAfter, 2*delay))
		if err != nil {
			return nil, err // the fetch's error: outcomeOf classifies it
		}
		if c.cfg.OnReserve != nil {
			c.cfg.OnReserve(res)
		}
		return res.Release, nil
	}, nil
}

// holdID names a request's held slot: the same for every delivery of the
// request (doc id and nonce, as its idempotency key). A request without a
// nonce falls back to its entry id, which a re-queue changes: it then
// reserves again when it comes back, which only lengthens the host's gap.
func holdID(r *request, m *streamkit.Message) string {
	if r.Nonce == "" {
		return "id:" + m.ID
	}
	return r.DocID + ":" + r.Nonce
}
