package extract

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/newscrawl/newscrawl/internal/extract/provider"
	"github.com/newscrawl/newscrawl/internal/extract/schema"
	"github.com/newscrawl/newscrawl/internal/store"
)

// cleanedRow is the part of the cleaner's row the extractor reads.
type cleanedRow struct {
	TextHash                      string
	URL, Title, Text, Description string
	SiteName, Language            string
	Authors, Tags                 []string
	PublishedAt                   *time.Time
	IsArticle                     bool
	DuplicateOf                   *string
	Searchable                    bool // an article, not a copy (cleaned.searchable)
}

var errNoRow = errors.New("no cleaned row")

// loadCleaned reads one document's cleaned row; errNoRow when it is absent.
func loadCleaned(ctx context.Context, pool *pgxpool.Pool, docID string) (cleanedRow, error) {
	var r cleanedRow
	err := pool.QueryRow(ctx, `
		SELECT text_hash, url, title, text, description, site_name, language,
		       authors, tags, published_at, is_article, duplicate_of, searchable
		FROM cleaned WHERE doc_id = $1`, docID).Scan(
		&r.TextHash, &r.URL, &r.Title, &r.Text, &r.Description, &r.SiteName, &r.Language,
		&r.Authors, &r.Tags, &r.PublishedAt, &r.IsArticle, &r.DuplicateOf, &r.Searchable)
	if errors.Is(err, pgx.ErrNoRows) {
		return r, errNoRow
	}
	if err != nil {
		return r, fmt.Errorf("read cleaned row of %s: %w", docID, err)
	}
	return r, nil
}

// A row is one extraction ready to store.
type row struct {
	DocID, TextHash          string // the text the extraction is of
	Provider, Model, Mode    string
	PromptVersion            int
	Data                     schema.Extraction
	InputChars               int
	InputTruncated, Repaired bool
	Dropped, Requests        int
	Latency                  time.Duration
	InputTokens              int
	OutputTokens             int
	Invalid                  []string // "field: why" of optional fields left empty
	FallbackFor              string   // provider/model that failed, when this is a fallback
	FallbackReason           string
}

// insert upserts the row: a re-run of the same key replaces its data.
func (r row) insert(ctx context.Context, tx pgx.Tx) error {
	data, err := json.Marshal(r.Data)
	if err != nil {
		return fmt.Errorf("encode extraction of %s: %w", r.DocID, err)
	}
	var published *time.Time
	if r.Data.PublishedAt != nil {
		if t, ok := schema.ParseDate(*r.Data.PublishedAt); ok {
			published = &t
		}
	}
	_, err = tx.Exec(ctx, `
		INSERT INTO extractions (doc_id, text_hash, provider, model, prompt_version, schema_version, mode, data,
			title, language, published_at, sentiment, topics, people, organizations, locations,
			input_chars, input_truncated, repaired, dropped, requests, latency_ms, input_tokens, output_tokens,
			invalid_fields, fallback_for, fallback_reason)
		VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18,$19,$20,$21,$22,$23,$24,$25,$26,$27)
		ON CONFLICT (doc_id, text_hash, provider, model, prompt_version, schema_version) DO UPDATE SET
			mode = EXCLUDED.mode, data = EXCLUDED.data, title = EXCLUDED.title, language = EXCLUDED.language,
			published_at = EXCLUDED.published_at, sentiment = EXCLUDED.sentiment, topics = EXCLUDED.topics,
			people = EXCLUDED.people, organizations = EXCLUDED.organizations, locations = EXCLUDED.locations,
			input_chars = EXCLUDED.input_chars, input_truncated = EXCLUDED.input_truncated,
			repaired = EXCLUDED.repaired, dropped = EXCLUDED.dropped, requests = EXCLUDED.requests,
			latency_ms = EXCLUDED.latency_ms, input_tokens = EXCLUDED.input_tokens,
			output_tokens = EXCLUDED.output_tokens, invalid_fields = EXCLUDED.invalid_fields,
			fallback_for = EXCLUDED.fallback_for, fallback_reason = EXCLUDED.fallback_reason, created_at = now()`,
		r.DocID, r.TextHash, r.Provider, r.Model, r.PromptVersion, schema.Version, r.Mode, data,
		r.Data.Title, r.Data.Language, published, r.Data.Sentiment, store.NonNil(r.Data.Topics), store.NonNil(r.Data.People),
		store.NonNil(r.Data.Organizations), store.NonNil(r.Data.Locations), r.InputChars, r.InputTruncated, r.Repaired,
		r.Dropped, r.Requests, latencyMS(r.Latency), r.InputTokens, r.OutputTokens,
		store.NonNil(r.Invalid), nullString(r.FallbackFor), nullString(r.FallbackReason))
	if err != nil {
		return fmt.Errorf("store extraction of %s: %w", r.DocID, err)
	}
	return nil
}

func nullString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// keepAnswer stores an accepted model answer under the message's key, in
// its own short transaction: if the ledger commit then fails, or the
// message comes back, loadAnswer finds it and the model is not paid again.
func keepAnswer(ctx context.Context, pool *pgxpool.Pool, key string, out provider.Output) error {
	raw, err := json.Marshal(out)
	if err != nil {
		return fmt.Errorf("encode the answer for %s: %w", key, err)
	}
	if _, err := pool.Exec(ctx, `INSERT INTO extract_answers (key, output) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING`, key, raw); err != nil {
		return fmt.Errorf("keep the model's answer for %s: %w", key, err)
	}
	return nil
}

// loadAnswer returns the answer kept for key, if any.
func loadAnswer(ctx context.Context, pool *pgxpool.Pool, key string) (provider.Output, bool, error) {
	var out provider.Output
	var raw []byte
	err := pool.QueryRow(ctx, `SELECT output FROM extract_answers WHERE key = $1`, key).Scan(&raw)
	if errors.Is(err, pgx.ErrNoRows) {
		return out, false, nil
	}
	if err != nil {
		return out, false, fmt.Errorf("read a kept answer for %s: %w", key, err)
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return out, false, nil // unreadable: ask the model again rather than fail
	}
	return out, true, nil
}

// forgetAnswer drops the kept answer inside the ledger transaction that
// stores its extraction.
func forgetAnswer(ctx context.Context, tx pgx.Tx, key string) error {
	if _, err := tx.Exec(ctx, `DELETE FROM extract_answers WHERE key = $1`, key); err != nil {
		return fmt.Errorf("drop the kept answer for %s: %w", key, err)
	}
	return nil
}
