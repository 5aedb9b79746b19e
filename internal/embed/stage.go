package embed

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/newscrawl/newscrawl/internal/embed/chunk"
	"github.com/newscrawl/newscrawl/internal/forget"
	"github.com/newscrawl/newscrawl/internal/modelclient"
	"github.com/newscrawl/newscrawl/internal/pipeline"
	"github.com/newscrawl/newscrawl/pkg/streamkit"
)

// Defaults of the stage's Config.
const (
	DefaultBatch = 64 // inputs per embeddings request
)

// Dead-letter error types of the stage.
const (
	ErrTypeMissingInput      = "missing_input"
	ErrTypeDimensionMismatch = "dimension_mismatch"
	ErrTypeRejected          = "embed_rejected"
	ErrTypeUnavailable       = "embed_unavailable"
)

// Config configures the stage. Embedder is required; zero fields take defaults.
type Config struct {
	Embedder Embedder
	Chunk    chunk.Config
	Batch    int // inputs per Embed call
	// IncludeSkipped embeds duplicates and non-articles too; by default they
	// get no chunks (and lose any they had), so search shows each story once.
	IncludeSkipped bool
	// MaxChunks bounds one document's chunks (DefaultMaxChunks); the rest
	// of a longer text is not embedded, and a warning says so.
	MaxChunks int
	Log       *slog.Logger
}

// DefaultMaxChunks is the chunk limit per document: the cleaner's text cap
// already keeps an article under it at the default chunk size.
const DefaultMaxChunks = 1000

// A Stage is the embedder's streamkit handler: for each message it loads
// the cleaned article, chunks and embeds it, and returns a Commit that
// replaces the document's chunks for the embedder's model. It is the last
// stage: nothing is emitted.
type Stage struct {
	pool *pgxpool.Pool
	cfg  Config
	id   Identity
}

// NewStage returns the handler reading articles from pool.
func NewStage(pool *pgxpool.Pool, cfg Config) (*Stage, error) {
	if cfg.Embedder == nil {
		return nil, errors.New("embed stage: Config.Embedder is required")
	}
	if cfg.Batch <= 0 {
		cfg.Batch = DefaultBatch
	}
	if cfg.MaxChunks <= 0 {
		cfg.MaxChunks = DefaultMaxChunks
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	return &Stage{pool: pool, cfg: cfg, id: cfg.Embedder.Identity()}, nil
}

// Key is the stage's streamkit.KeyFunc: embed:doc_id:text_hash:version
// (version: the model and dimension), the text hash read from the
// message's text_hash or, in a message sent before the fields were
// renamed, from content_hash (the same value on the live path, so the
// same key).
var Key = pipeline.HashKey(pipeline.FieldTextHash)

// article is the cleaned row the stage embeds.
type article struct {
	bodyHash       string // cleaned.body_hash: what its chunks are stamped with
	title, text    string
	host, language string
	publishedAt    *time.Time
	searchable     bool    // cleaned.searchable: an article, not a copy
	stored         *string // body_hash of the stored chunks of the stage's model; nil: none
}

// Handle embeds one document. A missing cleaned row is a permanent
// missing_input error; provider errors are classified by classify. When
// the stored chunks for this model already come from the current cleaned
// content, it commits nothing (a replay or a backfill of an unchanged doc).
func (s *Stage) Handle(ctx context.Context, m *streamkit.Message) (streamkit.Result, error) {
	docID, err := m.Require(pipeline.FieldDocID)
	if err != nil {
		return streamkit.Result{}, err
	}
	a, err := s.load(ctx, docID)
	if streamkit.ErrorType(err) == ErrTypeMissingInput {
		switch gone, ferr := forget.Was(ctx, s.pool, docID); {
		case ferr != nil:
			return streamkit.Result{}, ferr
		case gone: // forgotten while in flight: nothing to do
			return streamkit.Result{}, nil
		}
	}
	if err != nil {
		return streamkit.Result{}, err
	}
	if a.stored != nil && *a.stored == a.bodyHash {
		return streamkit.Result{DocID: docID}, nil
	}

	var chunks []chunk.Chunk
	if s.cfg.IncludeSkipped || a.searchable {
		chunks = chunk.Split(s.cfg.Chunk, a.title, a.text)
		if len(chunks) > s.cfg.MaxChunks {
			s.cfg.Log.Warn("document has more chunks than the limit; embedding the first", "doc_id", docID,
				"chunks", len(chunks), "limit", s.cfg.MaxChunks)
			chunks = chunks[:s.cfg.MaxChunks]
		}
	} else {
		s.cfg.Log.Debug("not embedding a duplicate or non-article", "doc_id", docID)
	}
	vecs, err := s.embed(ctx, chunks)
	if err != nil {
		return streamkit.Result{}, classify(fmt.Errorf("embed %d chunks of %s: %w", len(chunks), docID, err))
	}
	doc := DocChunks{DocID: docID, BodyHash: a.bodyHash, Title: a.title, Host: a.host,
		Language: a.language, PublishedAt: a.publishedAt, Chunks: chunks, Vectors: vecs, New: a.stored == nil}
	return streamkit.Result{
		DocID: docID,
		Commit: func(ctx context.Context, tx pgx.Tx) error {
			return Replace(ctx, tx, s.id, doc)
		},
	}, nil
}

// load reads the article, and the body hash its stored chunks of this
// model come from, in one query; the message's text_hash is not required
// to match: an older message embeds the current text, and the newer message
// then finds it stored.
func (s *Stage) load(ctx context.Context, docID string) (article, error) {
	var a article
	err := s.pool.QueryRow(ctx, `SELECT body_hash, title, text, host, language, published_at, searchable,
		(SELECT ch.body_hash FROM chunks ch WHERE ch.doc_id = $1 AND ch.model = $2 AND ch.dims = $3 LIMIT 1)
		FROM cleaned WHERE doc_id = $1`, docID, s.id.Model, s.id.Dims).
		Scan(&a.bodyHash, &a.title, &a.text, &a.host, &a.language, &a.publishedAt,
			&a.searchable, &a.stored)
	if errors.Is(err, pgx.ErrNoRows) {
		return a, streamkit.Permanent(ErrTypeMissingInput, fmt.Errorf("no cleaned article for doc %s", docID))
	}
	if err != nil {
		return a, fmt.Errorf("load cleaned article %s: %w", docID, err)
	}
	return a, nil
}

// embed embeds the chunks' inputs in batches of cfg.Batch.
func (s *Stage) embed(ctx context.Context, chunks []chunk.Chunk) ([][]float32, error) {
	out := make([][]float32, 0, len(chunks))
	for start := 0; start < len(chunks); start += s.cfg.Batch {
		end := min(start+s.cfg.Batch, len(chunks))
		inputs := make([]string, 0, end-start)
		for _, c := range chunks[start:end] {
			inputs = append(inputs, c.Input)
		}
		vecs, err := s.cfg.Embedder.Embed(ctx, inputs, Document)
		if err != nil {
			return nil, err
		}
		if len(vecs) != len(inputs) {
			return nil, fmt.Errorf("provider returned %d vectors for %d inputs", len(vecs), len(inputs))
		}
		if err := CheckDims(s.id.Model, s.id.Dims, vecs); err != nil {
			return nil, err
		}
		out = append(out, vecs...)
	}
	return out, nil
}

// classify maps provider errors to streamkit's classes: a 429 waits
// without counting an attempt, a wrong dimension or a rejected request is
// permanent, everything else (5xx, timeouts, resets) is retried.
func classify(err error) error {
	var rl *RateLimitError
	var st *StatusError
	switch {
	case errors.As(err, &rl):
		return streamkit.RetryAfter(rl.RetryAfter, err)
	case isDimension(err):
		return streamkit.Permanent(ErrTypeDimensionMismatch, err)
	case errors.As(err, &st) && st.Permanent():
		return streamkit.Permanent(ErrTypeRejected, err)
	case errors.As(err, &st) && st.Refused():
		return streamkit.Unavailable(Dependency, fmt.Errorf("%w; check EMBED_MODEL, EMBED_BASE_URL (…/v1) and EMBED_API_KEY", err))
	case modelclient.Unreachable(err):
		return streamkit.Unavailable(Dependency, fmt.Errorf("embedding server is not answering: %w; is it started?", err))
	default:
		return streamkit.Retryable(ErrTypeUnavailable, err)
	}
}

// Dependency names the embedding server among the stage's dependencies: a
// server that is not there, refuses the credentials or does not serve the
// model pauses the stage (streamkit.Unavailable) when the binary registered
// a probe under this name (Probe); without one, such a failure is retried.
const Dependency = "embedding server"

// Probe is the embedding server's probe: one tiny embedding, so it passes
// only when the server answers, accepts the credentials and serves the model.
func Probe(e Embedder) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		_, err := e.Embed(ctx, []string{"probe"}, Query)
		return err
	}
}
