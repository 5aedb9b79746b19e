package search

import (
	"context"
	"fmt"
	"testing"

	"github.com/newscrawl/newscrawl/internal/embed"
	"github.com/newscrawl/newscrawl/internal/embed/local"
	"github.com/newscrawl/newscrawl/internal/testenv"
)

// An index built with a smaller ef_construction than embed's current one
// gets the wider ef_search that gave it its recall.
func TestSearcher_EfSearchFollowsTheIndex(t *testing.T) {
	t.Parallel()
	pool := testenv.Postgres(t)
	ctx := context.Background()
	e := local.New(local.Config{})
	if _, err := pool.Exec(ctx, `INSERT INTO chunks (doc_id, model, dims, chunk_index, body_hash, char_start, char_end, text, embedding)
		VALUES ('d', 'local-hash-v1', 384, 0, 'h', 0, 1, 'x', array_fill(0.05, ARRAY[384])::vector)`); err != nil {
		t.Fatal(err)
	}
	floor := func(cfg ...Config) int {
		s := New(pool, e, append(cfg, Config{})[0], nil)
		if err := s.checkModel(ctx); err != nil {
			t.Fatal(err)
		}
		ef, _ := s.indexParams()
		return ef
	}
	if got := floor(); got != DefaultEfSearch {
		t.Fatalf("current index: ef_search floor %d, want %d", got, DefaultEfSearch)
	}
	if got := floor(Config{EfSearch: 250}); got != 250 {
		t.Fatalf("configured: ef_search floor %d, want 250", got)
	}
	name := embed.IndexName(e.Identity())
	if _, err := pool.Exec(ctx, `DROP INDEX `+name+`; CREATE INDEX `+name+` ON chunks
		USING hnsw ((embedding::vector(384)) vector_cosine_ops) WITH (ef_construction = 64) WHERE model = 'local-hash-v1' AND dims = 384`); err != nil {
		t.Fatal(err)
	}
	if got := floor(); got != LegacyEfSearch {
		t.Fatalf("index built with ef_construction 64: ef_search floor %d, want %d", got, LegacyEfSearch)
	}
}

// A half-precision index is queried as halfvec (or the planner could not
// use it), and the result is the same document.
func TestSearcher_FollowsTheIndexPrecision(t *testing.T) {
	t.Parallel()
	pool := testenv.Postgres(t)
	ctx := context.Background()
	e := local.New(local.Config{})
	vecs, err := e.Embed(ctx, []string{"harbour bridge opens", "council budget vote"}, embed.Document)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range vecs {
		if _, err := pool.Exec(ctx, `INSERT INTO chunks (doc_id, model, dims, chunk_index, body_hash, char_start, char_end, text, embedding)
			VALUES ($1, 'local-hash-v1', 384, 0, 'h', 0, 1, 'x', $2::real[]::vector)`, fmt.Sprint("d", i), v); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []embed.Precision{embed.PrecisionHalf, embed.PrecisionFull} {
		if err := embed.BuildIndex(ctx, pool, e.Identity(), p, ""); err != nil {
			t.Fatal(err)
		}
		s := New(pool, e, Config{}, nil)
		got, err := s.Search(ctx, Query{Text: "harbour bridge opens", K: 1, Mode: Vector})
		if err != nil {
			t.Fatal(err)
		}
		if _, half := s.indexParams(); half != (p == embed.PrecisionHalf) {
			t.Fatalf("%s index: the searcher casts to halfvec: %v", p, half)
		}
		if len(got) != 1 || got[0].DocID != "d0" {
			t.Fatalf("%s index: %+v, want d0", p, got)
		}
	}
}

// A filter keeping at most 1/exactShare of a large table is answered
// exactly, however many chunks that is; a small table keeps the floor.
func TestSearcher_ExactThresholdGrowsWithTheTable(t *testing.T) {
	s := &Searcher{cfg: Config{ExactThreshold: DefaultExactThreshold}}
	for _, tc := range []struct{ rows, want int64 }{{0, DefaultExactThreshold}, {100_000, DefaultExactThreshold}, {1_000_000, 20_000}, {10_000_000, 200_000}} {
		s.rows = tc.rows
		if got := s.exactThreshold(); int64(got) != tc.want {
			t.Errorf("%d rows: exact below %d filtered chunks, want %d", tc.rows, got, tc.want)
		}
	}
}

// The default floor grows with the table past 100,000 chunks, up to
// pgvector's limit.
func TestEfSearchFor_GrowsWithTheTable(t *testing.T) {
	for rows, want := range map[int64]int{0: 100, 50_000: 100, 100_000: 100, 400_000: 200, 1_000_000: 316, 10_000_000: 1000, 1e9: 1000} {
		if got := EfSearchFor(rows); got != want {
			t.Errorf("EfSearchFor(%d) = %d, want %d", rows, got, want)
		}
	}
}
