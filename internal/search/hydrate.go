package search

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
)

// hydrate turns hits into results: title, URL and date from cleaned (the
// chunk's copy when the cleaned row is gone), the snippet from the chunk,
// entities and topics from the latest extraction when there is one.
func (s *Searcher) hydrate(ctx context.Context, hits []hit) ([]Result, error) {
	if len(hits) == 0 {
		return []Result{}, nil
	}
	docs := make([]string, len(hits))
	chunks := make([]int32, len(hits))
	for i, h := range hits {
		docs[i], chunks[i] = h.docID, int32(h.chunk)
	}
	hasExt, err := s.hasExtractions(ctx)
	if err != nil {
		return nil, err
	}
	extSQL, extJoin := "NULL::jsonb", ""
	if hasExt {
		extSQL = "x.e"
		extJoin = `LEFT JOIN LATERAL (SELECT to_jsonb(e) AS e FROM extractions e WHERE e.doc_id = h.doc_id
			ORDER BY e.created_at DESC, (e.provider <> 'heuristic') DESC LIMIT 1) x ON true`
	}
	rows, err := s.pool.Query(ctx, `
		SELECT h.doc_id, coalesce(c.url, ''), coalesce(nullif(c.title, ''), ch.title), coalesce(c.host, ch.host),
		       coalesce(c.language, ch.language), coalesce(c.published_at, ch.published_at), c.first_seen_at, ch.text, `+extSQL+`
		FROM unnest($1::text[], $2::int[]) AS h(doc_id, chunk_index)
		JOIN chunks ch ON ch.model = $3 AND ch.dims = $4 AND ch.doc_id = h.doc_id AND ch.chunk_index = h.chunk_index
		LEFT JOIN cleaned c ON c.doc_id = h.doc_id `+extJoin, docs, chunks, s.id.Model, s.id.Dims)
	if err != nil {
		return nil, fmt.Errorf("load result documents: %w", err)
	}
	byDoc := map[string]*Result{}
	ext := map[string]extraction{}
	for rows.Next() {
		r := &Result{}
		var text string
		var raw []byte
		if err := rows.Scan(&r.DocID, &r.URL, &r.Title, &r.Host, &r.Language, &r.PublishedAt, &r.FirstSeen, &text, &raw); err != nil {
			rows.Close()
			return nil, fmt.Errorf("read result document: %w", err)
		}
		r.Snippet, r.Passage = snippet(text), text
		byDoc[r.DocID] = r
		var e extraction
		if len(raw) > 0 && json.Unmarshal(raw, &e) == nil {
			ext[r.DocID] = e
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("load result documents: %w", err)
	}
	out := make([]Result, 0, len(hits))
	for _, h := range hits {
		r, ok := byDoc[h.docID]
		if !ok {
			continue // re-embedded between the candidate query and now
		}
		r.Score, r.ChunkIndex = h.score, h.chunk
		e := ext[h.docID]
		r.Topics, r.People, r.Organizations, r.Locations = e.list("topics"), e.list("people"), e.list("organizations"), e.list("locations")
		out = append(out, *r)
	}
	return out, nil
}

// snippet shortens a chunk body to about snippetRunes characters at a word boundary.
func snippet(text string) string {
	text = strings.Join(strings.Fields(text), " ")
	if utf8.RuneCountInString(text) <= snippetRunes {
		return text
	}
	r := []rune(text)[:snippetRunes]
	cut := string(r)
	if i := strings.LastIndexByte(cut, ' '); i > len(cut)/2 {
		cut = cut[:i]
	}
	return cut + "…"
}

// An extraction is the latest extractions row of a document, as JSON.
type extraction map[string]any

// extractions returns the latest extraction of each doc, or none when the
// extractions table does not exist (the extractor has not run its migration).
func (s *Searcher) extractions(ctx context.Context, docs []string) (map[string]extraction, error) {
	out := map[string]extraction{}
	ok, err := s.hasExtractions(ctx)
	if err != nil || !ok {
		return out, err
	}
	rows, err := s.pool.Query(ctx, `SELECT DISTINCT ON (e.doc_id) e.doc_id, to_jsonb(e) || `+legacyHashKey("e.text_hash")+` FROM extractions e
		WHERE e.doc_id = ANY($1) ORDER BY e.doc_id, e.created_at DESC, (e.provider <> 'heuristic') DESC`, docs)
	if err != nil {
		return nil, fmt.Errorf("load extractions: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var doc string
		var raw []byte
		if err := rows.Scan(&doc, &raw); err != nil {
			return nil, fmt.Errorf("read extraction: %w", err)
		}
		var e extraction
		if err := json.Unmarshal(raw, &e); err == nil {
			out[doc] = e
		}
	}
	return out, rows.Err()
}

func (s *Searcher) hasExtractions(ctx context.Context) (bool, error) {
	if s.recent(&s.extSeen) {
		return true, nil
	}
	var ok bool
	if err := s.pool.QueryRow(ctx, `SELECT to_regclass('extractions') IS NOT NULL`).Scan(&ok); err != nil {
		return false, fmt.Errorf("look up the extractions table: %w", err)
	}
	if ok {
		s.markSeen(&s.extSeen)
	}
	return ok, nil
}

// list reads a list of names from the row's own column or, failing that,
// from its data document; items may be strings or objects with a name.
func (e extraction) list(field string) []string {
	if e == nil {
		return []string{}
	}
	v, ok := e[field].([]any)
	if !ok {
		if data, isMap := e["data"].(map[string]any); isMap {
			v, _ = data[field].([]any)
		}
	}
	out := []string{}
	seen := map[string]bool{}
	for _, item := range v {
		var name string
		switch it := item.(type) {
		case string:
			name = it
		case map[string]any:
			for _, k := range []string{"name", "text", "value", "label", "topic"} {
				if s, ok := it[k].(string); ok && s != "" {
					name = s
					break
				}
			}
		}
		if name = strings.TrimSpace(name); name != "" && !seen[name] {
			seen[name] = true
			out = append(out, name)
		}
	}
	return out
}

// A Document is a stored article with its latest extraction. Document and
// Extraction are the cleaned and extractions rows as they stand (with
// body_hash and text_hash), plus, for clients of the API from before the
// hashes were told apart, each row's hash under its old name
// "content_hash": the body hash in Document, the text hash in Extraction
// (deprecated: read body_hash and text_hash).
type Document struct {
	Document   map[string]any `json:"document"`
	Extraction map[string]any `json:"extraction"`
	Chunks     []ChunkCount   `json:"chunks"`
	// Copies are the documents whose text was found to duplicate this one
	// (wire copies, mirrors), first seen first.
	Copies []DocRef `json:"copies"`
	// Capture says where the page came from: a crawl or a web archive, and
	// where its WARC record lives (when it was archived or ingested).
	Capture Capture `json:"capture"`
}

// A Capture is a stored page's provenance.
type Capture struct {
	Origin    string     `json:"origin"` // crawl, archive
	FetchedAt *time.Time `json:"fetched_at"`
	WARCFile  string     `json:"warc_file,omitempty"` // the source ingested from, or the file the crawler wrote
	Offset    *int64     `json:"warc_offset,omitempty"`
	Length    *int64     `json:"warc_length,omitempty"`
	RecordID  string     `json:"warc_record_id,omitempty"`
	Date      *time.Time `json:"warc_date,omitempty"`
	Truncated string     `json:"warc_truncated,omitempty"`
	// RenderedAt: the page was rendered in headless Chromium then (the
	// renderer, for the body stored); RenderError: why its last render
	// failed, and the static page stands.
	RenderedAt  *time.Time `json:"rendered_at,omitempty"`
	RenderError string     `json:"render_error,omitempty"`
}

// A DocRef names a stored document.
type DocRef struct {
	DocID string `json:"doc_id"`
	URL   string `json:"url"`
	Title string `json:"title"`
	Host  string `json:"host"`
}

// maxCopies bounds the copies a document page lists.
const maxCopies = 50

// ChunkCount says how many chunks a document has for one model.
type ChunkCount struct {
	Model      string    `json:"model"`
	Dims       int       `json:"dims"`
	Count      int       `json:"count"`
	BodyHash   string    `json:"body_hash"` // the body hash of the page the chunks were cut from
	EmbeddedAt time.Time `json:"embedded_at"`
}

// MarshalJSON adds the body hash under its old key "content_hash", for
// clients of the API from before the hashes were told apart (deprecated:
// read body_hash).
func (c ChunkCount) MarshalJSON() ([]byte, error) {
	type plain ChunkCount
	return json.Marshal(struct {
		plain
		LegacyHash string `json:"content_hash"`
	}{plain(c), c.BodyHash})
}

// legacyHashKey is a jsonb object that gives a row's hash column its old
// name, content_hash, for clients of the API from before the rename.
func legacyHashKey(column string) string {
	return "jsonb_build_object('content_hash', " + column + ")"
}

// ErrNotFound is returned by Document for an unknown doc_id.
var ErrNotFound = errors.New("document not found")

// Document returns the cleaned article docID with its latest extraction
// (null when none) and its chunk counts per model; ErrNotFound if absent.
func (s *Searcher) Document(ctx context.Context, docID string) (*Document, error) {
	var raw []byte
	err := s.pool.QueryRow(ctx, `SELECT to_jsonb(c) || `+legacyHashKey("c.body_hash")+` FROM cleaned c WHERE c.doc_id = $1`, docID).Scan(&raw)
	if err != nil {
		if errors.Is(err, pgx.ErrNoRows) {
			return nil, ErrNotFound
		}
		return nil, fmt.Errorf("load document %s: %w", docID, err)
	}
	d := &Document{Chunks: []ChunkCount{}, Copies: []DocRef{}}
	if err := json.Unmarshal(raw, &d.Document); err != nil {
		return nil, fmt.Errorf("decode document %s: %w", docID, err)
	}
	ext, err := s.extractions(ctx, []string{docID})
	if err != nil {
		return nil, err
	}
	d.Extraction = ext[docID] // nil (JSON null) without an extraction
	rows, err := s.pool.Query(ctx, `SELECT model, dims, count(*), min(body_hash), max(embedded_at) FROM chunks
		WHERE doc_id = $1 GROUP BY model, dims ORDER BY model, dims`, docID)
	if err != nil {
		return nil, fmt.Errorf("count chunks of %s: %w", docID, err)
	}
	defer rows.Close()
	for rows.Next() {
		var c ChunkCount
		if err := rows.Scan(&c.Model, &c.Dims, &c.Count, &c.BodyHash, &c.EmbeddedAt); err != nil {
			return nil, fmt.Errorf("read chunk counts: %w", err)
		}
		d.Chunks = append(d.Chunks, c)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	c := &d.Capture
	if err := s.pool.QueryRow(ctx, `SELECT d.origin, d.fetched_at, d.warc_file, d.warc_offset, d.warc_length, d.warc_record_id, d.warc_date,
			d.warc_truncated, r.rendered_at, coalesce(r.error, '')
		FROM documents d LEFT JOIN rendered r ON r.doc_id = d.doc_id AND r.body_hash = d.body_hash WHERE d.doc_id = $1`, docID).
		Scan(&c.Origin, &c.FetchedAt, &c.WARCFile, &c.Offset, &c.Length, &c.RecordID, &c.Date, &c.Truncated, &c.RenderedAt, &c.RenderError); err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("load the capture of %s: %w", docID, err)
	}
	copies, err := s.pool.Query(ctx, `SELECT doc_id, url, title, host FROM cleaned WHERE duplicate_of = $1
		ORDER BY first_seen_at, doc_id LIMIT $2`, docID, maxCopies)
	if err != nil {
		return nil, fmt.Errorf("list copies of %s: %w", docID, err)
	}
	d.Copies, err = pgx.CollectRows(copies, pgx.RowToStructByPos[DocRef])
	if err != nil {
		return nil, fmt.Errorf("read copies of %s: %w", docID, err)
	}
	return d, nil
}
