package embed

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pgvector/pgvector-go"
	pgxvec "github.com/pgvector/pgvector-go/pgx"

	"github.com/newscrawl/newscrawl/internal/embed/chunk"
)

// HNSW build parameters and the dimension from which indexes use halfvec
// by default (PrecisionAuto: half the index size, the same recall; float32
// vectors that large are also slow to scan).
const (
	HNSWM              = 16
	HNSWEfConstruction = 128
	HalfvecFromDims    = 512
	maxHNSWDims        = 4000 // halfvec's HNSW limit
	maxFullHNSWDims    = 2000 // vector's HNSW limit
)

// A DocChunks is one document's chunks and their vectors, ready to store.
type DocChunks struct {
	DocID       string
	BodyHash    string // cleaned.body_hash of the text the chunks were cut from
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
// statements (one round trip) however many documents and chunks. A
// document with no chunks ends up with none. On error nothing of tx should
// be committed.
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
		b.Queue(`INSERT INTO chunks (doc_id, model, dims, chunk_index, body_hash, char_start, char_end,
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
		r.hash = append(r.hash, d.BodyHash)
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

// IndexType is the SQL type an index of dims dimensions, half precision
// or not, and the queries that use it cast embeddings to.
func IndexType(dims int, half bool) string {
	if half {
		return fmt.Sprintf("halfvec(%d)", dims)
	}
	return fmt.Sprintf("vector(%d)", dims)
}
