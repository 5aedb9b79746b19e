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
}

// chunkColumns are the columns COPY writes (tsv and embedded_at are computed).
var chunkColumns = []string{"doc_id", "model", "dims", "chunk_index", "content_hash", "char_start", "char_end",
	"title", "text", "host", "language", "published_at", "embedding"}

// Replace writes docs' chunks for id inside tx: it deletes each document's
// previous chunks of the same model and dimension, then COPYs the new rows,
// in two round trips however many documents and chunks. A document with no
// chunks ends up with none. On error nothing of tx should be committed.
func Replace(ctx context.Context, tx pgx.Tx, id Identity, docs ...DocChunks) error {
	if err := RegisterVectorTypes(ctx, tx.Conn()); err != nil {
		return err
	}
	ids := make([]string, len(docs))
	n := 0
	for i, d := range docs {
		if len(d.Chunks) != len(d.Vectors) {
			return fmt.Errorf("store chunks of %s: %d chunks but %d vectors", d.DocID, len(d.Chunks), len(d.Vectors))
		}
		if err := CheckDims(id.Model, id.Dims, d.Vectors); err != nil {
			return err
		}
		ids[i] = d.DocID
		n += len(d.Chunks)
	}
	if _, err := tx.Exec(ctx, `DELETE FROM chunks WHERE doc_id = ANY($1) AND model = $2 AND dims = $3`,
		ids, id.Model, id.Dims); err != nil {
		return fmt.Errorf("delete previous chunks: %w", err)
	}
	if n == 0 {
		return nil
	}
	rows := make([][]any, 0, n)
	for _, d := range docs {
		for i, c := range d.Chunks {
			rows = append(rows, []any{d.DocID, id.Model, id.Dims, c.Index, d.ContentHash, c.Start, c.End,
				d.Title, c.Text, d.Host, d.Language, d.PublishedAt, pgvector.NewVector(d.Vectors[i])})
		}
	}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"chunks"}, chunkColumns, pgx.CopyFromRows(rows)); err != nil {
		return fmt.Errorf("copy %d chunks: %w", n, err)
	}
	return nil
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
