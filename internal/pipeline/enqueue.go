package pipeline

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5/pgxpool"
)

// A Publisher sends one message to a stage (streamkit.Producer is one).
type Publisher interface {
	Publish(ctx context.Context, stage string, fields map[string]string) (string, error)
}

// EnqueuePage is how many rows EnqueueDocs reads per query.
const EnqueuePage = 500

// EnqueueDocs pages through the documents sql selects and publishes each
// onto stage as a claim check (doc_id, the stage's hash field, url): the
// backfills of `newsctl reextract` and `newsctl reembed`. sql selects those
// three columns (the hash the one HashField(stage) names: a text hash for
// extract and embed, as the live path sends), takes the last doc_id read as $1 (args[0] is that cursor, ""
// at first), and ends in ORDER BY doc_id LIMIT EnqueuePage. At most limit
// are published (0: all); extra fields are added to every message. It
// returns how many were, also on error.
func EnqueueDocs(ctx context.Context, pool *pgxpool.Pool, pub Publisher, stage, sql string, args []any, limit int, extra map[string]string) (int, error) {
	args = append([]any{""}, args[1:]...)
	n := 0
	for {
		rows, err := pool.Query(ctx, sql, args...)
		if err != nil {
			return n, fmt.Errorf("select documents for %s: %w", stage, err)
		}
		var page [][3]string
		for rows.Next() {
			var r [3]string
			if err := rows.Scan(&r[0], &r[1], &r[2]); err != nil {
				rows.Close()
				return n, fmt.Errorf("read documents for %s: %w", stage, err)
			}
			page = append(page, r)
		}
		if err := rows.Err(); err != nil {
			return n, fmt.Errorf("select documents for %s: %w", stage, err)
		}
		for _, r := range page {
			if limit > 0 && n >= limit {
				return n, nil
			}
			fields := map[string]string{FieldDocID: r[0], HashField(stage): r[1], FieldURL: r[2]}
			for k, v := range extra {
				fields[k] = v
			}
			if _, err := pub.Publish(ctx, stage, fields); err != nil {
				return n, fmt.Errorf("enqueue %s: %w", r[0], err)
			}
			n++
		}
		if len(page) < EnqueuePage {
			return n, nil
		}
		args[0] = page[len(page)-1][0]
	}
}
