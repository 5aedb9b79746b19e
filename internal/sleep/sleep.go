// Package sleep waits for a duration unless a context ends first.
package sleep

import (
	"context"
	"time"
)

// For waits d or until ctx ends, and returns ctx's error in that case (also
// when d <= 0 and ctx is already done).
func For(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
