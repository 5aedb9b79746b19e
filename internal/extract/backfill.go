package extract

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/newscrawl/newscrawl/internal/pipeline"
)

// A Publisher sends one message to a stage (streamkit.Producer, which waits
// while the stage is over its high-water mark).
type Publisher interface {
	Publish(ctx context.Context, stage string, fields map[string]string) (string, error)
}

// A Backfill selects cleaned documents to enqueue for extraction again.
type Backfill struct {
	DocIDs         []string  // only these documents (empty: all)
	Since          time.Time // only documents cleaned at or after this time (zero: any)
	Limit          int       // at most this many (0: no limit)
	IncludeSkipped bool      // also duplicates and non-articles
	// MissingProvider/MissingModel keep only documents whose current text has
	// no extraction by that provider (and model, when set) yet.
	MissingProvider string
	MissingModel    string
}

// backfillPage is how many rows Enqueue reads per query.
const backfillPage = 500

// Enqueue publishes an extract message (doc_id, content_hash = the cleaned
// row's text_hash, url) for every selected document, in doc_id order, and
// returns how many it published. It stops at the first error, having
// published the count returned; ctx cancels it between messages.
func Enqueue(ctx context.Context, pool *pgxpool.Pool, pub Publisher, b Backfill) (int, error) {
	after, n := "", 0
	for {
		rows, err := pool.Query(ctx, `
			SELECT c.doc_id, c.text_hash, c.url FROM cleaned c
			WHERE c.doc_id > $1
			  AND (cardinality($2::text[]) = 0 OR c.doc_id = ANY($2))
			  AND ($3::timestamptz IS NULL OR c.cleaned_at >= $3)
			  AND ($4 OR (c.is_article AND coalesce(c.duplicate_of, '') = ''))
			  AND ($5 = '' OR NOT EXISTS (SELECT 1 FROM extractions x WHERE x.doc_id = c.doc_id
			        AND x.content_hash = c.text_hash AND x.provider = $5 AND ($6 = '' OR x.model = $6)))
			ORDER BY c.doc_id LIMIT $7`,
			after, nonNil(b.DocIDs), nullTime(b.Since), b.IncludeSkipped, b.MissingProvider, b.MissingModel, backfillPage)
		if err != nil {
			return n, fmt.Errorf("select documents to re-extract: %w", err)
		}
		type doc struct{ id, hash, url string }
		var page []doc
		for rows.Next() {
			var d doc
			if err := rows.Scan(&d.id, &d.hash, &d.url); err != nil {
				rows.Close()
				return n, fmt.Errorf("read document to re-extract: %w", err)
			}
			page = append(page, d)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return n, fmt.Errorf("select documents to re-extract: %w", err)
		}
		for _, d := range page {
			if b.Limit > 0 && n >= b.Limit {
				return n, nil
			}
			_, err := pub.Publish(ctx, pipeline.Extract, map[string]string{
				pipeline.FieldDocID: d.id, pipeline.FieldContentHash: d.hash, pipeline.FieldURL: d.url,
			})
			if err != nil {
				return n, fmt.Errorf("enqueue %s: %w", d.id, err)
			}
			n++
		}
		if len(page) < backfillPage {
			return n, nil
		}
		after = page[len(page)-1].id
	}
}

func nullTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}
