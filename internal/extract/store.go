package extract

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/newscrawl/newscrawl/internal/extract/schema"
)

// cleanedRow is the part of the cleaner's row the extractor reads.
type cleanedRow struct {
	ContentHash, TextHash         string
	URL, Title, Text, Description string
	SiteName, Language            string
	Authors, Tags                 []string
	PublishedAt                   *time.Time
	IsArticle                     bool
	DuplicateOf                   *string
}

var errNoRow = errors.New("no cleaned row")

// loadCleaned reads one document's cleaned row; errNoRow when it is absent.
func loadCleaned(ctx context.Context, pool *pgxpool.Pool, docID string) (cleanedRow, error) {
	var r cleanedRow
	err := pool.QueryRow(ctx, `
		SELECT content_hash, text_hash, url, title, text, description, site_name, language,
		       authors, tags, published_at, is_article, duplicate_of
		FROM cleaned WHERE doc_id = $1`, docID).Scan(
		&r.ContentHash, &r.TextHash, &r.URL, &r.Title, &r.Text, &r.Description, &r.SiteName, &r.Language,
		&r.Authors, &r.Tags, &r.PublishedAt, &r.IsArticle, &r.DuplicateOf)
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
	DocID, ContentHash       string
	Provider, Model, Mode    string
	PromptVersion            int
	Data                     schema.Extraction
	InputChars               int
	InputTruncated, Repaired bool
	Dropped, Requests        int
	Latency                  time.Duration
	InputTokens              int
	OutputTokens             int
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
		INSERT INTO extractions (doc_id, content_hash, provider, model, prompt_version, schema_version, mode, data,
			title, language, published_at, sentiment, topics, people, organizations, locations,
			input_chars, input_truncated, repaired, dropped, requests, latency_ms, input_tokens, output_tokens)
		VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18,$19,$20,$21,$22,$23,$24)
		ON CONFLICT (doc_id, content_hash, provider, model, prompt_version, schema_version) DO UPDATE SET
			mode = EXCLUDED.mode, data = EXCLUDED.data, title = EXCLUDED.title, language = EXCLUDED.language,
			published_at = EXCLUDED.published_at, sentiment = EXCLUDED.sentiment, topics = EXCLUDED.topics,
			people = EXCLUDED.people, organizations = EXCLUDED.organizations, locations = EXCLUDED.locations,
			input_chars = EXCLUDED.input_chars, input_truncated = EXCLUDED.input_truncated,
			repaired = EXCLUDED.repaired, dropped = EXCLUDED.dropped, requests = EXCLUDED.requests,
			latency_ms = EXCLUDED.latency_ms, input_tokens = EXCLUDED.input_tokens,
			output_tokens = EXCLUDED.output_tokens, created_at = now()`,
		r.DocID, r.ContentHash, r.Provider, r.Model, r.PromptVersion, schema.Version, r.Mode, data,
		r.Data.Title, r.Data.Language, published, r.Data.Sentiment, nonNil(r.Data.Topics), nonNil(r.Data.People),
		nonNil(r.Data.Organizations), nonNil(r.Data.Locations), r.InputChars, r.InputTruncated, r.Repaired,
		r.Dropped, r.Requests, latencyMS(r.Latency), r.InputTokens, r.OutputTokens)
	if err != nil {
		return fmt.Errorf("store extraction of %s: %w", r.DocID, err)
	}
	return nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
