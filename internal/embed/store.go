package embed

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"regexp"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/pgvector/pgvector-go"
	pgxvec "github.com/pgvector/pgvector-go/pgx"

	"github.com/newscrawl/newscrawl/internal/embed/chunk"
)

// HNSW build parameters and the dimension from which indexes use halfvec
// (half the index size, the same recall; float32 vectors that large are
// also slow to scan).
const (
	HNSWM              = 16
	HNSWEfConstruction = 64
	HalfvecFromDims    = 512
	maxHNSWDims        = 4000 // halfvec's HNSW limit
)

// A DocChunks is one document's chunks and their vectors, ready to store.
type DocChunks struct {
	DocID       string
	ContentHash string
	Title       string
	Host        string
	Language    string
	PublishedAt *time.Time
	Chunks      []chunk.Chunk
	Vectors     [][]float32 // one per chunk
	// New says no chunks of this model were stored for the document when it
	// was read: Replace skips its DELETE. Should another writer have stored
	// some since, the insert fails on the primary key and the message is
	// retried, finding them.
	New bool
}

// Replace writes docs' chunks for id inside tx: it deletes each document's
// previous chunks of the same model and dimension (unless the document is
// New) and inserts the new rows, as one pipelined batch of at most two
// statements (one round trip) however many documents and chunks. A document with no chunks ends up with none. On
// error nothing of tx should be committed.
//
// The rows go in as one INSERT over unnest()ed arrays rather than COPY: the
// embedder writes a document or a few at a time, where COPY's extra round
// trip and start-up cost more than it saves per row.
func Replace(ctx context.Context, tx pgx.Tx, id Identity, docs ...DocChunks) error {
	if err := RegisterVectorTypes(ctx, tx.Conn()); err != nil {
		return err
	}
	var ids []string
	var r chunkRows
	for _, d := range docs {
		if len(d.Chunks) != len(d.Vectors) {
			return fmt.Errorf("store chunks of %s: %d chunks but %d vectors", d.DocID, len(d.Chunks), len(d.Vectors))
		}
		if err := CheckDims(id.Model, id.Dims, d.Vectors); err != nil {
			return err
		}
		if !d.New {
			ids = append(ids, d.DocID)
		}
		r.add(d)
	}
	var b pgx.Batch
	if len(ids) > 0 {
		b.Queue(`DELETE FROM chunks WHERE doc_id = ANY($1) AND model = $2 AND dims = $3`, ids, id.Model, id.Dims)
	}
	if len(r.docIDs) > 0 {
		b.Queue(`INSERT INTO chunks (doc_id, model, dims, chunk_index, content_hash, char_start, char_end,
				title, text, host, language, published_at, embedding)
			SELECT d, $1, $2, i, h, s, e, t, x, o, l, p, v FROM unnest($3::text[], $4::int[], $5::text[], $6::int[], $7::int[],
				$8::text[], $9::text[], $10::text[], $11::text[], $12::timestamptz[], $13::vector[]) AS r(d, i, h, s, e, t, x, o, l, p, v)`,
			id.Model, id.Dims, r.docIDs, r.index, r.hash, r.start, r.end, r.title, r.text, r.host, r.lang, r.published, r.vectors)
	}
	if err := tx.SendBatch(ctx, &b).Close(); err != nil {
		return fmt.Errorf("replace the chunks of %d documents: %w", len(docs), err)
	}
	return nil
}

// chunkRows holds chunk rows as column arrays for one unnest insert.
type chunkRows struct {
	docIDs, hash, title, text, host, lang []string
	index, start, end                     []int32
	published                             []*time.Time
	vectors                               []pgvector.Vector
}

func (r *chunkRows) add(d DocChunks) {
	for i, c := range d.Chunks {
		r.docIDs = append(r.docIDs, d.DocID)
		r.index = append(r.index, int32(c.Index))
		r.hash = append(r.hash, d.ContentHash)
		r.start = append(r.start, int32(c.Start))
		r.end = append(r.end, int32(c.End))
		r.title = append(r.title, d.Title)
		r.text = append(r.text, c.Text)
		r.host = append(r.host, d.Host)
		r.lang = append(r.lang, d.Language)
		r.published = append(r.published, d.PublishedAt)
		r.vectors = append(r.vectors, pgvector.NewVector(d.Vectors[i]))
	}
}

// RegisterVectorTypes teaches conn pgvector's binary types once per
// connection (the shared pools have no AfterConnect hook).
func RegisterVectorTypes(ctx context.Context, conn *pgx.Conn) error {
	if _, ok := conn.TypeMap().TypeForName("vector"); ok {
		return nil
	}
	if err := pgxvec.RegisterTypes(ctx, conn); err != nil {
		return fmt.Errorf("register pgvector types (is the vector extension installed?): %w", err)
	}
	return nil
}

// VectorType is the SQL type indexes and queries cast embeddings of dims
// to: vector(d) below HalfvecFromDims, halfvec(d) from there.
func VectorType(dims int) string {
	if dims >= HalfvecFromDims {
		return fmt.Sprintf("halfvec(%d)", dims)
	}
	return fmt.Sprintf("vector(%d)", dims)
}

// IndexName is the name of the HNSW index of a model and dimension.
func IndexName(id Identity) string {
	if id.Model == "local-hash-v1" && id.Dims == 384 {
		return "chunks_hnsw_local_hash_v1_384" // created by migration 00005
	}
	slug := strings.Trim(nonIdent.ReplaceAllString(strings.ToLower(id.Model), "_"), "_")
	h := fnv.New32a()
	h.Write([]byte(id.Version()))
	name := fmt.Sprintf("chunks_hnsw_%s_%d", slug, id.Dims)
	if len(name) > 50 {
		name = name[:50]
	}
	return fmt.Sprintf("%s_%08x", name, h.Sum32())
}

var nonIdent = regexp.MustCompile(`[^a-z0-9]+`)

// IndexSQL is the CREATE INDEX statement of id's HNSW index: cosine, on
// the embedding cast to VectorType, partial on the model and dimension.
func IndexSQL(id Identity, concurrently bool) string {
	ops := "vector_cosine_ops"
	if id.Dims >= HalfvecFromDims {
		ops = "halfvec_cosine_ops"
	}
	conc := ""
	if concurrently {
		conc = "CONCURRENTLY "
	}
	return fmt.Sprintf(`CREATE INDEX %sIF NOT EXISTS %s ON chunks USING hnsw ((embedding::%s) %s)
		WITH (m = %d, ef_construction = %d) WHERE model = %s AND dims = %d`,
		conc, pgx.Identifier{IndexName(id)}.Sanitize(), VectorType(id.Dims), ops, HNSWM, HNSWEfConstruction,
		quoteLiteral(id.Model), id.Dims)
}

// EnsureModel records id in embed_models and creates its HNSW index
// (CREATE INDEX CONCURRENTLY, so writers of other models are not blocked)
// unless it exists. Safe to call from many embedders at once.
func EnsureModel(ctx context.Context, pool *pgxpool.Pool, id Identity) error {
	if id.Dims <= 0 || id.Dims > maxHNSWDims {
		return fmt.Errorf("embedding dimension %d is outside 1..%d", id.Dims, maxHNSWDims)
	}
	name := IndexName(id)
	var exists bool
	if err := pool.QueryRow(ctx, `SELECT to_regclass($1) IS NOT NULL`, name).Scan(&exists); err != nil {
		return fmt.Errorf("look up index %s: %w", name, err)
	}
	if !exists {
		if _, err := pool.Exec(ctx, IndexSQL(id, true)); err != nil && !isDuplicate(err) {
			return fmt.Errorf("create HNSW index %s for %s: %w", name, id, err)
		}
	}
	_, err := pool.Exec(ctx, `INSERT INTO embed_models (model, dims, provider, index_name) VALUES ($1, $2, $3, $4)
		ON CONFLICT (model, dims) DO NOTHING`, id.Model, id.Dims, id.Provider, name)
	if err != nil {
		return fmt.Errorf("record model %s: %w", id, err)
	}
	return nil
}

func isDuplicate(err error) bool {
	var pg *pgconn.PgError
	return errors.As(err, &pg) && (pg.Code == "42P07" || pg.Code == "23505")
}

// quoteLiteral quotes s as an SQL string literal (standard_conforming_strings on).
func quoteLiteral(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}
