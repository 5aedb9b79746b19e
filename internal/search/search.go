package search

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/newscrawl/newscrawl/internal/embed"
)

// Defaults for Config fields left zero.
const (
	DefaultCandidates     = 100    // chunks taken from each list before grouping and fusion
	DefaultEfSearch       = 100    // hnsw.ef_search floor up to efGrowsFrom chunks: doc recall@10 ≈ 0.99 on the benchmark's 100k clustered vectors
	LegacyEfSearch        = 200    // the floor for an index built with ef_construction below embed.HNSWEfConstruction
	DefaultExactThreshold = 10000  // filtered chunks at or below which an exact scan is used (or 1/exactShare of the table, if more)
	DefaultMaxScanTuples  = 100000 // hnsw.max_scan_tuples for filtered index scans
	DefaultRRFK           = 60     // reciprocal rank fusion constant
	DefaultMaxLexical     = 5000   // chunks ranked at most by each widening of the full-text match
	maxCandidates         = 4000   // candidate growth stops here, then exact scan
	maxEfSearch           = 1000   // pgvector's limit for hnsw.ef_search
	efGrowsFrom           = 100000 // chunks past which the default ef_search floor grows
	// exactShare: a filter keeping at most 1/exactShare of the chunks is
	// answered exactly however many that is. At a million chunks the SQL
	// of a 1% host filter took 93 ms p50 as a filtered index scan and 13 ms
	// as the exact scan of its rows; straddling the fixed threshold, the
	// searcher's recall on it was 0.914 (bench-search, one run).
	exactShare   = 50
	snippetRunes = 320
)

// Config tunes the Searcher.
type Config struct {
	Candidates int
	// EfSearch is the hnsw.ef_search floor; 0 sizes it to the table
	// (EfSearchFor).
	EfSearch       int
	ExactThreshold int
	MaxScanTuples  int
	RRFK           int
	// MaxLexicalMatches bounds the chunks ranked by each widening of the
	// full-text match, when the all-words match is too small.
	MaxLexicalMatches int
	// QueryEmbedTimeout bounds the query's embedding (DefaultQueryEmbedTimeout).
	QueryEmbedTimeout time.Duration
}

// DefaultQueryEmbedTimeout is how long a search waits for its query vector
// before answering from full text alone.
const DefaultQueryEmbedTimeout = 2 * time.Second

func (c *Config) setDefaults() {
	if c.QueryEmbedTimeout <= 0 {
		c.QueryEmbedTimeout = DefaultQueryEmbedTimeout
	}
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&c.Candidates, DefaultCandidates)
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
	efSearch  int       // hnsw.ef_search floor for the model's index: cfg.EfSearch or sized to the table, raised by checkModel for an old index
	halfIndex bool      // the model's index keeps halfvecs: ANN queries cast to halfvec to use it
	rows      int64     // the chunks table's estimated rows (pg_class.reltuples), for the exact plan's threshold
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
	id := emb.Identity()
	return &Searcher{pool: pool, emb: emb, id: id, cfg: cfg, log: log, efSearch: cfg.efSearch(0), halfIndex: embed.PrecisionAuto.Half(id.Dims)}
}

// efSearch is the configured floor, or the one for a table of rows chunks.
func (c Config) efSearch(rows int64) int {
	if c.EfSearch > 0 {
		return c.EfSearch
	}
	return EfSearchFor(rows)
}

// EfSearchFor is the default ef_search floor for a table of rows chunks.
// HNSW finds fewer of the true nearest at the same ef_search as its graph
// grows — on the benchmark's corpus (bench-search), recall@10 at ef_search
// 100 was 0.99 or more at 100,000 chunks and 0.966 at a million — so past
// efGrowsFrom the floor grows with the square root of the table: 100 up to
// 100,000 chunks, 316 at a million, pgvector's 1,000 from ten million.
func EfSearchFor(rows int64) int {
	if rows <= efGrowsFrom {
		return DefaultEfSearch
	}
	return min(maxEfSearch, int(float64(DefaultEfSearch)*math.Sqrt(float64(rows)/efGrowsFrom)))
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
	// Passage is the whole best chunk and FirstSeen the day the crawler
	// first saw the page: for callers that read further than the snippet
	// (newsctl ask), not part of the search answer.
	Passage   string     `json:"-"`
	FirstSeen *time.Time `json:"-"`
}

// A ModelError says the configured model has no stored chunks.
type ModelError struct {
	Want    embed.Identity
	Stored  []string // model@dims with chunks, from embed_models
	Nothing bool     // no chunks at all, of any model
}

func (e *ModelError) Error() string {
	if e.Nothing {
		// Nothing is embedded with any model: not a model mismatch, the
		// pipeline has not brought a document this far.
		return "nothing is embedded yet, with any model: no document has reached the end of the pipeline. " +
			"`newsctl stats` shows how far documents got, `newsctl dlq counts` whether they were dead-lettered, " +
			"and `newsctl wait` waits for the pipeline to drain"
	}
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

// An Answer is a query's results, and a note when they are not what was
// asked for (the query embedder was unavailable: full text alone answered).
type Answer struct {
	Results []Result `json:"results"`
	Mode    Mode     `json:"mode"` // the mode that answered
	Note    string   `json:"note,omitempty"`
}

// Search runs q and returns its results; see Answer.
func (s *Searcher) Search(ctx context.Context, q Query) ([]Result, error) {
	a, err := s.Answer(ctx, q)
	return a.Results, err
}

// Answer runs q (validated by Normalize first) and returns at most q.K
// documents. Search never waits on the model: the query's embedding gets
// QueryEmbedTimeout (and at most half of what is left of ctx), and when it
// fails or takes longer, full text alone answers and Note says so. Errors:
// *InvalidError for a bad query, *ModelError when the model has no chunks,
// otherwise a wrapped database error.
func (s *Searcher) Answer(ctx context.Context, q Query) (Answer, error) {
	if err := q.Normalize(); err != nil {
		return Answer{}, err
	}
	if err := s.checkModel(ctx); err != nil {
		return Answer{}, err
	}
	limit := max(s.cfg.Candidates, 4*q.K)
	a := Answer{Mode: q.Mode}
	var hits []hit
	var ee *EmbedError
	switch q.Mode {
	case Lexical:
		lc, err := s.lexical(ctx, q, limit)
		if err != nil {
			return Answer{}, err
		}
		hits = byDocument(lc)
	case Vector:
		vc, err := s.vectorWithin(ctx, q, limit)
		if errors.As(err, &ee) {
			s.log.Warn("query embedder unavailable; answering from full text", "err", err)
			a.Mode, a.Note = Lexical, fmt.Sprintf("answered from full text alone: %v", err)
			vc, err = s.lexical(ctx, q, limit)
		}
		if err != nil {
			return Answer{}, err
		}
		hits = byDocument(vc)
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
		vc, verr := s.vectorWithin(ctx, q, limit)
		l := <-lex
		if l.err != nil {
			return Answer{}, l.err
		}
		switch {
		case errors.As(verr, &ee):
			s.log.Warn("query embedder unavailable; answering from full text", "err", verr)
			a.Mode, a.Note = Lexical, fmt.Sprintf("answered from full text alone: %v", verr)
			hits = byDocument(l.c)
		case verr != nil:
			return Answer{}, verr
		default:
			hits = allWordsFirst(fuse(s.cfg.RRFK, vc, l.c), l.c)
		}
	}
	if len(hits) > q.K {
		hits = hits[:q.K]
	}
	res, err := s.hydrate(ctx, hits)
	a.Results = res
	return a, err
}

// vectorWithin embeds the query within the embedder's time bound (an
// embedding that fails or outlasts it is an *EmbedError) and fetches its
// vector candidates. Only the embedding is bounded: a slow vector query is
// the database's, not a missing model, and answering it from full text
// would hide it — it gets the caller's ctx, as the full-text query does.
func (s *Searcher) vectorWithin(ctx context.Context, q Query, limit int) ([]cand, error) {
	budget := s.cfg.QueryEmbedTimeout
	if dl, ok := ctx.Deadline(); ok {
		budget = min(budget, time.Until(dl)/2)
	}
	ectx, cancel := context.WithTimeout(ctx, budget)
	vec, err := s.embedQuery(ectx, q.Text)
	cancel()
	if err != nil {
		var ee *EmbedError
		if ctx.Err() == nil && ectx.Err() != nil && !errors.As(err, &ee) {
			err = &EmbedError{Model: s.id, Err: fmt.Errorf("no query vector within %s: %w", budget, err)}
		}
		return nil, err
	}
	return s.vectorList(ctx, q, vec, limit)
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
		s.readIndex(ctx)
		s.markSeen(&s.modelSeen)
		return nil
	}
	me := &ModelError{Want: s.id}
	var some bool
	if err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM chunks)`).Scan(&some); err == nil && !some {
		me.Nothing = true
		return me
	}
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

// readIndex learns what vector queries need to know of the table and the
// model's index: the table's size, the index's precision, and the
// ef_search floor — an index built with a smaller
// ef_construction (before it was raised to 128) needs a wider search for
// the same recall (0.984 at ef_search 200 on the benchmark, against
// 0.992-0.998 at 100 with 128).
func (s *Searcher) readIndex(ctx context.Context) {
	var rows float64 // -1 before the table was first analysed
	if err := s.pool.QueryRow(ctx, `SELECT reltuples FROM pg_class WHERE oid = 'chunks'::regclass`).Scan(&rows); err == nil {
		s.mu.Lock()
		s.rows = int64(max(rows, 0))
		s.mu.Unlock()
	}
	st, err := embed.Index(ctx, s.pool, s.id)
	if err != nil || !st.Exists {
		return
	}
	s.mu.Lock()
	ef := s.cfg.efSearch(s.rows)
	s.mu.Unlock()
	if st.EfConstruction() < embed.HNSWEfConstruction {
		ef = max(ef, LegacyEfSearch)
	}
	s.mu.Lock()
	s.efSearch, s.halfIndex = ef, st.Half
	s.mu.Unlock()
}

// exactThreshold is how many filtered chunks at most an exact scan takes.
func (s *Searcher) exactThreshold() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return max(s.cfg.ExactThreshold, int(s.rows/exactShare))
}

// indexParams is the ef_search floor and precision of the model's index.
func (s *Searcher) indexParams() (efSearch int, half bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.efSearch, s.halfIndex
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
