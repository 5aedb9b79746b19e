package streamkit

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5/pgxpool"
)

// schema is the SQL of streamkit's one table, the idempotency ledger: one
// row per finished unit of work, keyed on content. Every statement is
// idempotent, so Migrate may run it at every start; a later change to the
// table must be written the same way (ADD COLUMN IF NOT EXISTS, …).
const schema = `
CREATE TABLE IF NOT EXISTS stage_results (
    key      text PRIMARY KEY,            -- the handler's idempotency key (Config.Key)
    stage    text NOT NULL,
    doc_id   text NOT NULL DEFAULT '',
    emitted  json,                        -- downstream messages, re-sent when a finished key is redelivered
    done_at  timestamptz NOT NULL DEFAULT now()
);
-- No secondary index: every lookup is by key, and each index costs every commit.
`

// Migrate creates streamkit's table in the pool's current schema when it is
// missing. Processes starting together take turns on an advisory lock of
// the schema, so concurrent calls are safe.
func Migrate(ctx context.Context, pool *pgxpool.Pool) error {
	tx, err := pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("streamkit migrate: %w", err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('streamkit-migrate:' || current_schema()))`); err != nil {
		return fmt.Errorf("streamkit migrate: lock: %w", err)
	}
	if _, err := tx.Exec(ctx, schema); err != nil {
		return fmt.Errorf("streamkit migrate: %w", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("streamkit migrate: %w", err)
	}
	return nil
}
