package search

import (
	"context"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5"
	"github.com/pgvector/pgvector-go"

	"github.com/newscrawl/newscrawl/internal/embed"
)

// A cand is one chunk found by a list, best first within its list.
type cand struct {
	docID string
	chunk int
	score float64 // higher is better: cosine similarity or text rank
	// allWords marks a chunk holding every word of the query in a full-text
	// list widened to any word (set only then).
	allWords bool
}

// A plan is how vector candidates are fetched.
type plan int

const (
	planANN   plan = iota // HNSW index scan (iterative when filtered)
	planExact             // exact distance over the (filtered) rows
)

func (p plan) String() string { return [...]string{"ann", "exact"}[p] }

// vectorList returns, for the query vector vec, at least enough chunk
// candidates to cover q.K documents when that many match: it chooses the
// plan by the filters' selectivity, grows the candidate count when chunks
// of the same documents crowd the list, and falls back to an exact scan if
// an index scan still comes back short, so filters never starve the
// results.
func (s *Searcher) vectorList(ctx context.Context, q Query, vec []float32, limit int) ([]cand, error) {
	p, err := s.planOf(ctx, q)
	if err != nil {
		return nil, err
	}
	for {
		cs, err := s.vectorQuery(ctx, q, vec, limit, p)
		if err != nil {
			return nil, err
		}
		exhausted := len(cs) < limit
		if distinctDocs(cs) >= q.K || (exhausted && p == planExact) {
			return cs, nil
		}
		switch {
		case !exhausted && limit < maxCandidates:
			limit = min(4*limit, maxCandidates)
		case p == planANN:
			s.log.Debug("index scan came back short; exact scan", "docs", distinctDocs(cs), "k", q.K)
			p = planExact
		default:
			return cs, nil
		}
	}
}

// planOf chooses how q's vector candidates are fetched: exactly when asked,
// or when its filters keep few enough chunks; by the index otherwise.
func (s *Searcher) planOf(ctx context.Context, q Query) (plan, error) {
	switch {
	case q.Exact:
		return planExact, nil
	case !q.filtered():
		return planANN, nil
	}
	most := s.exactThreshold()
	n, err := s.countFiltered(ctx, q, most+1)
	if err != nil {
		return planANN, err
	}
	if n <= most {
		return planExact, nil
	}
	return planANN, nil
}

// NearestChunks runs what a vector search of q asks PostgreSQL first — its
// plan choice and its first nearest-chunk query, with vec as the query
// vector — and returns how many chunks came back: the part of a search the
// database does, which benchmarks time beside the whole Search call.
func (s *Searcher) NearestChunks(ctx context.Context, q Query, vec []float32) (int, error) {
	if err := s.checkModel(ctx); err != nil {
		return 0, err
	}
	p, err := s.planOf(ctx, q)
	if err != nil {
		return 0, err
	}
	cs, err := s.vectorQuery(ctx, q, vec, s.cfg.Candidates, p)
	return len(cs), err
}

// countFiltered counts the model's chunks matching q's filters, stopping at limit.
func (s *Searcher) countFiltered(ctx context.Context, q Query, limit int) (int, error) {
	where, args := q.filters(4)
	var n int
	err := s.pool.QueryRow(ctx, `SELECT count(*) FROM (SELECT 1 FROM chunks WHERE model = $1 AND dims = $2`+where+` LIMIT $3) f`,
		append([]any{s.id.Model, s.id.Dims, limit}, args...)...).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count filtered chunks: %w", err)
	}
	return n, nil
}

// vectorQuery fetches limit chunks nearest to vec with plan p. The
// settings and the query go out as one pipelined batch: one round trip,
// one implicit transaction, so set_config(…, true) applies to this query only.
func (s *Searcher) vectorQuery(ctx context.Context, q Query, vec []float32, limit int, p plan) ([]cand, error) {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("acquire a connection for vector search: %w", err)
	}
	defer conn.Release()
	if err := embed.RegisterVectorTypes(ctx, conn.Conn()); err != nil {
		return nil, err
	}
	// ef_search also caps how many rows one index scan returns, and pgvector
	// refuses more than maxEfSearch: past that, an iterative scan draws the
	// rest in further rounds.
	efFloor, half := s.indexParams()
	ef := max(efFloor, limit)
	iterative, indexScan := "off", "on"
	if q.filtered() || ef > maxEfSearch {
		iterative = "strict_order"
		ef = min(ef, maxEfSearch)
	}
	if p == planExact {
		indexScan = "off" // bitmap scans on the filter B-trees stay allowed; HNSW has none
		half = false      // exact means exact: the rows' full vectors
	}
	var b pgx.Batch
	// Custom plans let the planner match the partial index's model predicate.
	b.Queue(`SELECT set_config('hnsw.ef_search', $1, true), set_config('hnsw.iterative_scan', $2, true),
		set_config('hnsw.max_scan_tuples', $3, true), set_config('enable_indexscan', $4, true),
		set_config('plan_cache_mode', 'force_custom_plan', true)`,
		strconv.Itoa(ef), iterative, strconv.Itoa(s.cfg.MaxScanTuples), indexScan)
	where, args := q.filters(5)
	expr := "embedding::" + embed.IndexType(s.id.Dims, half)
	qexpr := fmt.Sprintf("$1::vector(%d)::%s", s.id.Dims, embed.IndexType(s.id.Dims, half))
	sql := fmt.Sprintf(`SELECT doc_id, chunk_index, %[1]s <=> %[2]s AS dist FROM chunks
		WHERE model = $2 AND dims = $3%[3]s ORDER BY %[1]s <=> %[2]s LIMIT $4`, expr, qexpr, where)
	var cs []cand
	b.Queue(sql, append([]any{pgvector.NewVector(vec), s.id.Model, s.id.Dims, limit}, args...)...).
		Query(func(rows pgx.Rows) error {
			var err error
			cs, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (cand, error) {
				var c cand
				var dist float64
				err := r.Scan(&c.docID, &c.chunk, &dist)
				c.score = 1 - dist
				return c, err
			})
			return err
		})
	if err := conn.SendBatch(ctx, &b).Close(); err != nil {
		return nil, fmt.Errorf("vector search (%s): %w", p, err)
	}
	return cs, nil
}

func distinctDocs(cs []cand) int {
	seen := make(map[string]bool, len(cs))
	for _, c := range cs {
		seen[c.docID] = true
	}
	return len(seen)
}
