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

// Enqueue publishes one embed message (doc_id, content_hash, url) per
// selected cleaned article, in doc_id order, pausing while the embed stage
// is over the producer's high-water mark. The ledger key carries the model
// version, so after a model change every message is embedded again, while
// documents already embedded with the current model are skipped cheaply.
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
	sql := `SELECT doc_id, content_hash, url FROM cleaned WHERE ` + strings.Join(conds, " AND ") +
		fmt.Sprintf(` ORDER BY doc_id LIMIT %d`, pipeline.EnqueuePage)
	return pipeline.EnqueueDocs(ctx, pool, p, pipeline.Embed, sql, args, b.Limit, nil)
}
