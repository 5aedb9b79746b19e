package embed

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/newscrawl/newscrawl/internal/pipeline"
)

// A Backfill selects cleaned articles to put on the embed stream again.
type Backfill struct {
	DocIDs         []string   // only these documents (empty: all)
	Host           string     // only this host
	Lang           string     // only this language
	Since, Until   *time.Time // published_at in [Since, Until)
	Limit          int        // at most this many (0: no limit)
	IncludeSkipped bool       // also duplicates and non-articles
}

// Enqueue publishes one embed message (doc_id, text_hash, url) per
// selected cleaned article, in doc_id order, pausing while the embed stage
// is over the producer's high-water mark. The message is the one the
// extractor sends on the live path, text hash and all, so its ledger key
// (embed:doc_id:text_hash:model@dims) is the live one: a document the
// embedder has done with the current model is acked from the ledger
// without being read. The key carries the model version, so after a model
// change every message is embedded again; a document whose key is new but
// whose chunks of the model come from its current body (embedded under
// another key) is skipped by the stage without embedding.
// It returns how many messages were published, also on error.
func Enqueue(ctx context.Context, pool *pgxpool.Pool, p pipeline.Publisher, b Backfill) (int, error) {
	conds := []string{"doc_id > $1"}
	args := []any{""}
	add := func(cond string, v any) {
		args = append(args, v)
		conds = append(conds, fmt.Sprintf(cond, len(args)))
	}
	if len(b.DocIDs) > 0 {
		add("doc_id = ANY($%d)", b.DocIDs)
	}
	if b.Host != "" {
		add("host = $%d", b.Host)
	}
	if b.Lang != "" {
		add("language = $%d", b.Lang)
	}
	if b.Since != nil {
		add("published_at >= $%d", *b.Since)
	}
	if b.Until != nil {
		add("published_at < $%d", *b.Until)
	}
	if !b.IncludeSkipped {
		conds = append(conds, "searchable")
	}
	sql := `SELECT doc_id, text_hash, url FROM cleaned WHERE ` + strings.Join(conds, " AND ") +
		fmt.Sprintf(` ORDER BY doc_id LIMIT %d`, pipeline.EnqueuePage)
	return pipeline.EnqueueDocs(ctx, pool, p, pipeline.Embed, sql, args, b.Limit, nil)
}
