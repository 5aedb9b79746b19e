package ingest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// leaseTime is how long a claim on a source holds without renewal: a
// process that died leaves its sources to the others after it.
const leaseTime = 45 * time.Second

// A checkpoint is where a source's reading stands.
type checkpoint struct {
	ResumeAt int64 // records before it are stored and their messages sent
	StoredTo int64 // records before it may be stored without their messages sent
	Seekable bool
	Counts   Counts // the source's counts so far, over every run
}

// claimState is what a claim found.
type claimState int

const (
	claimed  claimState = iota
	finished            // read to the end before (--restart to read it again)
	busy                // another live process reads it
)

// checkpoints is the ingest_sources table: one row per source, its
// checkpoint and its claim. Owned by this package.
type checkpoints struct {
	pool  *pgxpool.Pool
	owner string
}

// claim takes source for this process, or says why not. restart clears a
// finished source's checkpoint first (never one another process holds).
func (c *checkpoints) claim(ctx context.Context, source string, size int64, restart bool) (checkpoint, claimState, error) {
	var cp checkpoint
	if restart {
		if _, err := c.pool.Exec(ctx, `UPDATE ingest_sources SET resume_at = 0, stored_to = 0, seekable = true,
			counts = '{}', finished_at = NULL, started_at = now(), updated_at = now()
			WHERE source = $1 AND (owner = '' OR owner = $2 OR lease_until < now())`, source, c.owner); err != nil {
			return cp, 0, fmt.Errorf("restart %s: %w", source, err)
		}
	}
	var sz *int64
	if size >= 0 {
		sz = &size
	}
	err := c.pool.QueryRow(ctx, `
		INSERT INTO ingest_sources (source, size, owner, lease_until) VALUES ($1, $2, $3, now() + $4::bigint * interval '1 millisecond')
		ON CONFLICT (source) DO UPDATE SET owner = EXCLUDED.owner, lease_until = EXCLUDED.lease_until,
			size = coalesce(EXCLUDED.size, ingest_sources.size), updated_at = now()
		WHERE ingest_sources.finished_at IS NULL
		  AND (ingest_sources.owner IN ('', EXCLUDED.owner) OR ingest_sources.lease_until < now())
		RETURNING resume_at, stored_to, seekable, counts`, source, sz, c.owner, leaseTime.Milliseconds()).
		Scan(&cp.ResumeAt, &cp.StoredTo, &cp.Seekable, &cp.Counts)
	if errors.Is(err, pgx.ErrNoRows) {
		var done bool
		var holder string
		if err := c.pool.QueryRow(ctx, `SELECT finished_at IS NOT NULL, owner FROM ingest_sources WHERE source = $1`, source).Scan(&done, &holder); err != nil {
			return cp, 0, fmt.Errorf("look up %s: %w", source, err)
		}
		if done {
			return cp, finished, nil
		}
		if !c.deadHere(holder) {
			return cp, busy, nil
		}
		// The holder was a process of this machine that is gone (killed):
		// its claim is taken now rather than when its lease runs out.
		err = c.pool.QueryRow(ctx, `UPDATE ingest_sources SET owner = $2, lease_until = now() + $4::bigint * interval '1 millisecond', updated_at = now()
			WHERE source = $1 AND owner = $3 AND finished_at IS NULL RETURNING resume_at, stored_to, seekable, counts`,
			source, c.owner, holder, leaseTime.Milliseconds()).Scan(&cp.ResumeAt, &cp.StoredTo, &cp.Seekable, &cp.Counts)
		if errors.Is(err, pgx.ErrNoRows) {
			return cp, busy, nil // another process took it first
		}
		if err != nil {
			return cp, 0, fmt.Errorf("take over %s: %w", source, err)
		}
		return cp, claimed, nil
	}
	if err != nil {
		return cp, 0, fmt.Errorf("claim %s: %w", source, err)
	}
	return cp, claimed, nil
}

// liveRuns are the owner nonces of this process's runs in progress.
var liveRuns sync.Map

// deadHere reports whether holder (host:pid:nonce) names a run of this
// host that no longer goes on: its pid is gone, or the pid is this
// process's and the nonce none of its runs' (a restarted container, where
// the pid repeats).
func (c *checkpoints) deadHere(holder string) bool {
	parts := strings.Split(holder, ":")
	mine := strings.Split(c.owner, ":")
	if len(parts) != 3 || len(mine) != 3 || parts[0] != mine[0] {
		return false
	}
	pid, err := strconv.Atoi(parts[1])
	if err != nil || pid <= 0 {
		return false
	}
	if pid == os.Getpid() {
		_, live := liveRuns.Load(parts[2])
		return !live
	}
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

var errLostClaim = errors.New("another ingest process took this source over (this one stalled past its lease)")

// storing moves the source's stored-to mark to end before a batch is
// stored: after a crash, records before it are read again as possibly
// stored without their messages sent.
func (c *checkpoints) storing(ctx context.Context, source string, end int64, seekable bool) error {
	return c.update(ctx, `UPDATE ingest_sources SET stored_to = greatest(stored_to, $3), seekable = $4,
		lease_until = now() + $5::bigint * interval '1 millisecond', updated_at = now()
		WHERE source = $1 AND owner = $2`, source, end, seekable, leaseTime.Milliseconds())
}

// sent moves the resume point to end once a batch is stored and its
// messages sent, with the source's counts to then.
func (c *checkpoints) sent(ctx context.Context, source string, end int64, counts *Counts) error {
	b, _ := json.Marshal(counts)
	return c.update(ctx, `UPDATE ingest_sources SET resume_at = greatest(resume_at, $3), counts = $4,
		lease_until = now() + $5::bigint * interval '1 millisecond', updated_at = now()
		WHERE source = $1 AND owner = $2`, source, end, b, leaseTime.Milliseconds())
}

// renew keeps the claim while a batch waits (backpressure).
func (c *checkpoints) renew(ctx context.Context, source string) error {
	return c.update(ctx, `UPDATE ingest_sources SET lease_until = now() + $3::bigint * interval '1 millisecond', updated_at = now()
		WHERE source = $1 AND owner = $2`, source, leaseTime.Milliseconds())
}

// finish marks the source read to its end and lets it go.
func (c *checkpoints) finish(ctx context.Context, source string) error {
	return c.update(ctx, `UPDATE ingest_sources SET finished_at = now(), owner = '', lease_until = NULL, updated_at = now()
		WHERE source = $1 AND owner = $2`, source)
}

// release lets an unfinished source go (a failed download): the next run,
// or another process, takes it up at its checkpoint.
func (c *checkpoints) release(ctx context.Context, source string) error {
	_, err := c.pool.Exec(ctx, `UPDATE ingest_sources SET owner = '', lease_until = NULL, updated_at = now()
		WHERE source = $1 AND owner = $2`, source, c.owner)
	return err
}

func (c *checkpoints) update(ctx context.Context, sql string, source string, args ...any) error {
	tag, err := c.pool.Exec(ctx, sql, append([]any{source, c.owner}, args...)...)
	if err != nil {
		return fmt.Errorf("checkpoint %s: %w", source, err)
	}
	if tag.RowsAffected() == 0 {
		return errLostClaim
	}
	return nil
}
