package embed_test

import (
	"context"
	"strings"
	"testing"

	"github.com/newscrawl/newscrawl/internal/testenv"
)

// The per-document statements of the embedder and of search must use the
// primary key even before the table has statistics (a first load, a new
// model): with a filter index on (model, dims, …) the planner once chose
// that and scanned every chunk of the model per document.
func TestStore_DocumentLookupsUseThePrimaryKeyWithoutStatistics(t *testing.T) {
	t.Parallel()
	pool := testenv.Postgres(t)
	ctx := context.Background()
	_, err := pool.Exec(ctx, `INSERT INTO chunks (doc_id, model, dims, chunk_index, content_hash, char_start, char_end, text, embedding)
		SELECT 'd' || (i / 4), 'fresh-model', 3, i % 4, 'h', 0, 1, 'word', '[1,0,0]' FROM generate_series(0, 7999) i`)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`DELETE FROM chunks WHERE doc_id = ANY('{d1,d2}') AND model = 'fresh-model' AND dims = 3`,
		`SELECT content_hash FROM chunks WHERE doc_id = 'd1' AND model = 'fresh-model' AND dims = 3 LIMIT 1`,
	} {
		var plan strings.Builder
		rows, err := pool.Query(ctx, "EXPLAIN "+q)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var line string
			rows.Scan(&line)
			plan.WriteString(line + "\n")
		}
		rows.Close()
		if !strings.Contains(plan.String(), "chunks_pkey") {
			t.Errorf("%s\nplan:\n%s", q, plan.String())
		}
	}
}
