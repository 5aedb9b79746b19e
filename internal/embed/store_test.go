package embed_test

import (
	"context"
	"strings"
	"testing"

	"github.com/newscrawl/newscrawl/internal/embed"
	"github.com/newscrawl/newscrawl/internal/embed/local"
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
	_, err := pool.Exec(ctx, `INSERT INTO chunks (doc_id, model, dims, chunk_index, body_hash, char_start, char_end, text, embedding)
		SELECT 'd' || (i / 4), 'fresh-model', 3, i % 4, 'h', 0, 1, 'word', '[1,0,0]' FROM generate_series(0, 7999) i`)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`DELETE FROM chunks WHERE doc_id = ANY('{d1,d2}') AND model = 'fresh-model' AND dims = 3`,
		`SELECT body_hash FROM chunks WHERE doc_id = 'd1' AND model = 'fresh-model' AND dims = 3 LIMIT 1`,
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

// An operator drops the HNSW index before a backfill and builds it after;
// a build that failed half-way leaves an invalid index, which the embedder
// leaves alone (it may be a build in progress) and BuildIndex replaces.
func TestIndex_DropBuildAndReplaceInvalid(t *testing.T) {
	t.Parallel()
	pool := testenv.Postgres(t)
	ctx := context.Background()
	id := local.New(local.Config{}).Identity()
	state := func(want string) embed.IndexState {
		t.Helper()
		st, err := embed.Index(ctx, pool, id)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(st.String(), want) {
			t.Fatalf("index %s is %s, want %s", st.Name, st, want)
		}
		return st
	}
	state("valid") // created by the migration
	if err := embed.DropIndex(ctx, pool, id); err != nil {
		t.Fatal(err)
	}
	state("missing")
	if err := embed.EnsureModel(ctx, pool, id, false, embed.PrecisionAuto); err != nil {
		t.Fatal(err)
	}
	state("missing") // EMBED_CREATE_INDEX=false
	if err := embed.BuildIndex(ctx, pool, id, embed.PrecisionAuto, "64MB"); err != nil {
		t.Fatal(err)
	}
	if st := state("valid"); st.Bytes == 0 {
		t.Fatal("built index has no size")
	}

	if _, err := pool.Exec(ctx, `UPDATE pg_index SET indisvalid = false WHERE indexrelid = to_regclass($1)`, embed.IndexName(id)); err != nil {
		t.Fatal(err)
	}
	state("invalid")
	if err := embed.EnsureModel(ctx, pool, id, true, embed.PrecisionAuto); err != nil {
		t.Fatal(err)
	}
	state("invalid")
	if err := embed.BuildIndex(ctx, pool, id, embed.PrecisionAuto, ""); err != nil {
		t.Fatal(err)
	}
	state("valid")
	if err := embed.BuildIndex(ctx, pool, id, embed.PrecisionAuto, ""); err != nil {
		t.Fatalf("building a valid index again: %v", err)
	}

	// An index built with pgvector's default ef_construction (before 128) is
	// rebuilt beside the old one and takes its name.
	if _, err := pool.Exec(ctx, `DROP INDEX `+embed.IndexName(id)+`;
		CREATE INDEX `+embed.IndexName(id)+` ON chunks USING hnsw ((embedding::vector(384)) vector_cosine_ops)
		WHERE model = 'local-hash-v1' AND dims = 384`); err != nil {
		t.Fatal(err)
	}
	if st := state("valid, built with other parameters"); !st.Outdated() || st.EfConstruction() != 64 {
		t.Fatalf("old index: %+v, outdated %v, ef_construction %d", st, st.Outdated(), st.EfConstruction())
	}
	if err := embed.BuildIndex(ctx, pool, id, embed.PrecisionAuto, ""); err != nil {
		t.Fatal(err)
	}
	if st := state("valid"); st.Outdated() || st.EfConstruction() != embed.HNSWEfConstruction {
		t.Fatalf("rebuilt index: %+v", st)
	}
	hnswIndexes := func() string {
		t.Helper()
		var names string
		if err := pool.QueryRow(ctx, `SELECT coalesce(string_agg(indexname, ',' ORDER BY indexname), '') FROM pg_indexes
			WHERE schemaname = current_schema() AND indexname LIKE 'chunks_hnsw_local%'`).Scan(&names); err != nil {
			t.Fatal(err)
		}
		return names
	}
	if got := hnswIndexes(); got != embed.IndexName(id) {
		t.Fatalf("HNSW indexes after the rebuild: %s", got)
	}

	// Another precision is another index: half precision is built beside the
	// full one and replaces it, and back again.
	for _, p := range []embed.Precision{embed.PrecisionHalf, embed.PrecisionFull} {
		if err := embed.BuildIndex(ctx, pool, id, p, ""); err != nil {
			t.Fatal(err)
		}
		if st := state("valid"); st.Half != (p == embed.PrecisionHalf) {
			t.Fatalf("built at %s precision: %+v", p, st)
		}
		if got := hnswIndexes(); got != embed.IndexName(id) {
			t.Fatalf("HNSW indexes after a build at %s precision: %s", p, got)
		}
	}

	// A rebuild interrupted after the old index was dropped, before the
	// rename, left only the successor: the next build puts it in place.
	if _, err := pool.Exec(ctx, `ALTER INDEX `+embed.IndexName(id)+` RENAME TO `+embed.IndexName(id)+`_new`); err != nil {
		t.Fatal(err)
	}
	state("missing")
	if err := embed.BuildIndex(ctx, pool, id, embed.PrecisionAuto, ""); err != nil {
		t.Fatal(err)
	}
	state("valid")
	if got := hnswIndexes(); got != embed.IndexName(id) {
		t.Fatalf("HNSW indexes after recovering the successor: %s", got)
	}

	// One build at a time: a second one is refused, not raced.
	if err := embed.DropIndex(ctx, pool, id); err != nil {
		t.Fatal(err)
	}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock(hashtext(current_schema() || '.' || $1))`, embed.IndexName(id)); err != nil {
		t.Fatal(err)
	}
	if err := embed.BuildIndex(ctx, pool, id, embed.PrecisionAuto, ""); err == nil || !strings.Contains(err.Error(), "another session") {
		t.Fatalf("build while another runs: %v", err)
	}
	state("missing")
	conn.Exec(ctx, `SELECT pg_advisory_unlock_all()`)
}

// Embedders started together each create the model's index at start; the
// losers of that race must start too (they once failed on a deadlock).
func TestEnsureModel_ConcurrentStartsAllSucceed(t *testing.T) {
	t.Parallel()
	pool := testenv.Postgres(t)
	ctx := context.Background()
	id := embed.Identity{Provider: "openai", Model: "race-model", Dims: 8}
	if _, err := pool.Exec(ctx, `INSERT INTO chunks (doc_id, model, dims, chunk_index, body_hash, char_start, char_end, text, embedding)
		SELECT 'd' || i, 'race-model', 8, 0, 'h', 0, 1, 'word', '[1,0,0,0,0,0,0,1]' FROM generate_series(0, 1999) i`); err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 8)
	for range 8 {
		go func() { errs <- embed.EnsureModel(ctx, pool, id, true, embed.PrecisionAuto) }()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Errorf("EnsureModel: %v", err)
		}
	}
	if st, err := embed.Index(ctx, pool, id); err != nil || !st.Exists || !st.Valid {
		t.Fatalf("index after concurrent starts: %+v, %v", st, err)
	}
}

// pgvector indexes full vectors up to 2,000 dimensions: a larger model at
// full precision is refused with the setting to change, not a server error.
func TestIndex_FullPrecisionRefusesTooManyDimensions(t *testing.T) {
	t.Parallel()
	pool := testenv.Postgres(t)
	id := embed.Identity{Provider: "openai", Model: "big", Dims: 3072}
	for _, err := range []error{
		embed.EnsureModel(context.Background(), pool, id, true, embed.PrecisionFull),
		embed.BuildIndex(context.Background(), pool, id, embed.PrecisionFull, ""),
	} {
		if err == nil || !strings.Contains(err.Error(), "EMBED_INDEX_PRECISION") {
			t.Fatalf("3,072 dimensions at full precision: %v", err)
		}
	}
	if err := embed.EnsureModel(context.Background(), pool, id, false, embed.PrecisionAuto); err != nil {
		t.Fatalf("at auto precision: %v", err)
	}
}
