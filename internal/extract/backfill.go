package extract

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/newscrawl/newscrawl/internal/pipeline"
	"github.com/newscrawl/newscrawl/internal/store"
)

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
	// Fallbacks ("provider/model") keeps only documents whose current text
	// has a fallback extraction for that model and no extraction by it;
	// Rerun is then the messages' rerun nonce, so the ledger, which has
	// their keys done, lets them through again.
	Fallbacks string
	Rerun     string
}

// Enqueue publishes an extract message (doc_id, text_hash = the cleaned
// row's, url) for every selected document, in doc_id order, and
// returns how many it published. It stops at the first error, having
// published the count returned; ctx cancels it between messages.
func Enqueue(ctx context.Context, pool *pgxpool.Pool, pub pipeline.Publisher, b Backfill) (int, error) {
	return pipeline.EnqueueDocs(ctx, pool, pub, pipeline.Extract, `
		SELECT c.doc_id, c.text_hash, c.url FROM cleaned c
		WHERE c.doc_id > $1
		  AND (cardinality($2::text[]) = 0 OR c.doc_id = ANY($2))
		  AND ($3::timestamptz IS NULL OR c.cleaned_at >= $3)
		  AND ($4 OR c.searchable)
		  AND ($5 = '' OR NOT EXISTS (SELECT 1 FROM extractions x WHERE x.doc_id = c.doc_id
		        AND x.text_hash = c.text_hash AND x.provider = $5 AND ($6 = '' OR x.model = $6)))
		  AND ($8 = '' OR (EXISTS (SELECT 1 FROM extractions x WHERE x.doc_id = c.doc_id
		        AND x.text_hash = c.text_hash AND x.fallback_for = $8)
		    AND NOT EXISTS (SELECT 1 FROM extractions x WHERE x.doc_id = c.doc_id
		        AND x.text_hash = c.text_hash AND x.provider || '/' || x.model = $8)))
		ORDER BY c.doc_id LIMIT $7`,
		[]any{"", store.NonNil(b.DocIDs), nullTime(b.Since), b.IncludeSkipped, b.MissingProvider, b.MissingModel, pipeline.EnqueuePage, b.Fallbacks},
		b.Limit, rerunField(b.Rerun))
}

func rerunField(nonce string) map[string]string {
	if nonce == "" {
		return nil
	}
	return map[string]string{FieldRerun: nonce}
}

func nullTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}
