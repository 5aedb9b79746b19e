package search

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/newscrawl/newscrawl/internal/embed"
)

// Defaults for Config fields left zero.
const (
	DefaultCandidates     = 100    // chunks taken from each list before grouping and fusion
	DefaultEfSearch       = 100    // hnsw.ef_search floor: doc recall@10 ≈ 0.99 on the benchmark's 100k clustered vectors
	LegacyEfSearch        = 200    // the floor for an index built with ef_construction below embed.HNSWEfConstruction
	DefaultExactThreshold = 10000  // filtered chunks at or below which an exact scan is used
	DefaultMaxScanTuples  = 100000 // hnsw.max_scan_tuples for filtered index scans
	DefaultRRFK           = 60     // reciprocal rank fusion constant
	DefaultMaxLexical     = 5000   // chunks ranked at most by the any-word full-text match
	maxCandidates         = 4000   // candidate growth stops here, then exact scan
	snippetRunes          = 320
)

// Config tunes the Searcher.
type Config struct {
	Candidates     int
	EfSearch       int
	ExactThreshold int
	MaxScanTuples  int
	RRFK           int
	// MaxLexicalMatches bounds the chunks ranked when the all-words match
	// is too small and any word may match.
	MaxLexicalMatches int
}

func (c *Config) setDefaults() {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&c.Candidates, DefaultCandidates)
	def(&c.EfSearch, DefaultEfSearch)
	def(&c.ExactThreshold, DefaultExactThreshold)
	def(&c.MaxScanTuples, DefaultMaxScanTuples)
	def(&c.RRFK, DefaultRRFK)
	def(&c.MaxLexicalMatches, DefaultMaxLexical)
}

// A Searcher answers queries over the chunks of one embedding model: the
// one its Embedder produces, so query and stored vectors always compare.
type Searcher struct {
	pool *pgxpool.Pool
	emb  embed.Embedder
	id   embed.Identity
	cfg  Config
	log  *slog.Logger

	mu        sync.Mutex
	modelSeen time.Time // chunks of the model were seen to exist then
	extSeen   time.Time // the extractions table was seen to exist then
	efSearch  int       // hnsw.ef_search floor for the model's index: cfg.EfSearch, raised by checkModel for an old index
}

// seenFor is how long a positive existence check is trusted.
const seenFor = time.Minute

func (s *Searcher) recent(t *time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return time.Since(*t) < seenFor
}

func (s *Searcher) markSeen(t *time.Time) {
	s.mu.Lock()
	*t = time.Now()
	s.mu.Unlock()
}

// New returns a searcher over pool that embeds queries with emb.
func New(pool *pgxpool.Pool, emb embed.Embedder, cfg Config, log *slog.Logger) *Searcher {
	cfg.setDefaults()
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Searcher{pool: pool, emb: emb, id: emb.Identity(), cfg: cfg, log: log, efSearch: cfg.EfSearch}
}

// Identity is the model whose chunks are searched.
func (s *Searcher) Identity() embed.Identity { return s.id }

// A Result is one document, best first.
type Result struct {
	DocID         string     `json:"doc_id"`
	URL           string     `json:"url"`
	Title         string     `json:"title"`
	Host          string     `json:"host"`
	Language      string     `json:"language"`
	PublishedAt   *time.Time `json:"published_at"`
	Score         float64    `json:"score"`
	Snippet       string     `json:"snippet"`
	ChunkIndex    int        `json:"chunk_index"`
	Topics        []string   `json:"topics"`
	People        []string   `json:"people"`
	Organizations []string   `json:"organizations"`
	Locations     []string   `json:"locations"`
}

// A ModelError says the configured model has no stored chunks.
type ModelError struct {
	Want   embed.Identity
	Stored []string // model@dims with chunks, from embed_models
}

func (e *ModelError) Error() string {
	stored := "none"
	if len(e.Stored) > 0 {
		stored = strings.Join(e.Stored, ", ")
	}
	return fmt.Sprintf("no chunks are embedded with %s (stored models: %s); configure the same provider, EMBED_MODEL and EMBED_DIMENSIONS as the embedder, or run `newsctl reembed` and let the embedder finish", e.Want, stored)
}

// An EmbedError is a failure of the query's embedding (the model server
// is down, rate limited or answered garbage).
type EmbedError struct {
	Model embed.Identity
	Err   error
}

func (e *EmbedError) Error() string {
	return fmt.Sprintf("embed the query with %s: %v", e.Model, e.Err)
}
func (e *EmbedError) Unwrap() error { return e.Err }

// Search runs q (validated by Normalize first) and returns at most q.K
// documents. Errors: *InvalidError for a bad query, *ModelError when the
// model has no chunks, *EmbedError when the query cannot be embedded,
// otherwise a wrapped database error.
func (s *Searcher) Search(ctx context.Context, q Query) ([]Result, error) {
	if err := q.Normalize(); err != nil {
		return nil, err
	}
	if err := s.checkModel(ctx); err != nil {
		return nil, err
	}
	limit := max(s.cfg.Candidates, 4*q.K)
	var hits []hit
	switch q.Mode {
	case Vector:
		vc, err := s.vectorList(ctx, q, limit)
		if err != nil {
			return nil, err
		}
		hits = byDocument(vc)
	case Lexical:
		lc, err := s.lexical(ctx, q, limit)
		if err != nil {
			return nil, err
		}
		hits = byDocument(lc)
	default:
		// The two candidate lists come from independent queries on two
		// pooled connections: run them at once.
		type list struct {
			c   []cand
			err error
		}
		lex := make(chan list, 1)
		go func() {
			c, err := s.lexical(ctx, q, limit)
			lex <- list{c, err}
		}()
		vc, verr := s.vectorList(ctx, q, limit)
		l := <-lex
		if verr != nil {
			return nil, verr
		}
		if l.err != nil {
			return nil, l.err
		}
		hits = fuse(s.cfg.RRFK, vc, l.c)
	}
	if len(hits) > q.K {
		hits = hits[:q.K]
	}
	return s.hydrate(ctx, hits)
}

// checkModel returns a *ModelError unless the model has chunks.
func (s *Searcher) checkModel(ctx context.Context) error {
	if s.recent(&s.modelSeen) {
		return nil
	}
	// Every embedded document has a chunk 0: chunk_index = 0 lets both
	// queries use the partial index chunks_models.
	var ok bool
	err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM chunks WHERE model = $1 AND dims = $2 AND chunk_index = 0)`,
		s.id.Model, s.id.Dims).Scan(&ok)
	if err != nil {
		return fmt.Errorf("check chunks of %s: %w", s.id, err)
	}
	if ok {
		s.setEfSearch(ctx)
		s.markSeen(&s.modelSeen)
		return nil
	}
	me := &ModelError{Want: s.id}
	rows, err := s.pool.Query(ctx, `SELECT model || '@' || dims FROM embed_models m
		WHERE EXISTS (SELECT 1 FROM chunks c WHERE c.model = m.model AND c.dims = m.dims AND c.chunk_index = 0)
		ORDER BY created_at`)
	if err != nil {
		return errors.Join(me, fmt.Errorf("list stored models: %w", err))
	}
	defer rows.Close()
	for rows.Next() {
		var m string
		if err := rows.Scan(&m); err == nil {
			me.Stored = append(me.Stored, m)
		}
	}
	return me
}

// setEfSearch picks the ef_search floor for the model's index: an index
// built with a smaller ef_construction (before it was raised to 128) needs a
// wider search for the same recall (0.984 at ef_search 200 on the
// benchmark, against 0.992-0.998 at 100 with 128).
func (s *Searcher) setEfSearch(ctx context.Context) {
	ef := s.cfg.EfSearch
	if st, err := embed.Index(ctx, s.pool, s.id); err == nil && st.Exists && st.EfConstruction() < embed.HNSWEfConstruction {
		ef = max(ef, LegacyEfSearch)
	}
	s.mu.Lock()
	s.efSearch = ef
	s.mu.Unlock()
}

func (s *Searcher) efSearchFloor() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.efSearch
}

// embedQuery embeds the query text as a query of the searcher's model.
func (s *Searcher) embedQuery(ctx context.Context, text string) ([]float32, error) {
	vecs, err := s.emb.Embed(ctx, []string{text}, embed.Query)
	if err != nil {
		return nil, &EmbedError{Model: s.id, Err: err}
	}
	if len(vecs) != 1 {
		return nil, fmt.Errorf("embed the query with %s: got %d vectors", s.id, len(vecs))
	}
	if err := embed.CheckDims(s.id.Model, s.id.Dims, vecs); err != nil {
		return nil, err
	}
	return vecs[0], nil
}
