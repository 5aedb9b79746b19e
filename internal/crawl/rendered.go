package crawl

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Rendered is what the renderer made of a stored page: the DOM headless
// Chromium built, or why it could not. The crawl stage's store keeps it (it
// owns documents; the rendered table hangs off them).
type Rendered struct {
	DocID    string
	BodyHash string // the static body it was rendered from
	Hash     string // pipeline.BodyHash of Body; "" when the render failed
	Body     []byte
	Error    string // why the render failed: the static page stands
	Tries    int
	Requests int // requests the browser made, and of them refused
	Refused  int
	Bytes    int64
	Took     time.Duration
}

// StoreRendered writes r inside the renderer's ledger transaction. It stores
// nothing when the document's body changed since the render began (its own
// message renders the new one) and reports whether it stored.
func StoreRendered(ctx context.Context, tx pgx.Tx, r *Rendered) (bool, error) {
	var body any
	if r.Body != nil {
		body = r.Body
	}
	var stored bool
	err := tx.QueryRow(ctx, `
		INSERT INTO rendered (doc_id, body_hash, rendered_hash, body, error, tries, requests, refused, bytes, took_ms, rendered_at)
		SELECT doc_id, $2, $3, $4, $5, $6, $7, $8, $9, $10, now() FROM documents WHERE doc_id = $1 AND body_hash = $2
		ON CONFLICT (doc_id) DO UPDATE SET body_hash = EXCLUDED.body_hash, rendered_hash = EXCLUDED.rendered_hash,
			body = EXCLUDED.body, error = EXCLUDED.error, tries = EXCLUDED.tries, requests = EXCLUDED.requests,
			refused = EXCLUDED.refused, bytes = EXCLUDED.bytes, took_ms = EXCLUDED.took_ms, rendered_at = now()
		RETURNING true`,
		r.DocID, r.BodyHash, r.Hash, body, r.Error, r.Tries, r.Requests, r.Refused, r.Bytes, r.Took.Milliseconds()).Scan(&stored)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("store rendered %s: %w", r.DocID, err)
	}
	return true, nil
}
