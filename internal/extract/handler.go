package extract

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/newscrawl/newscrawl/internal/extract/provider"
	"github.com/newscrawl/newscrawl/internal/pipeline"
	"github.com/newscrawl/newscrawl/pkg/streamkit"
)

// Error types this stage writes to dead letters (the provider adds its own).
const (
	ErrTypeMissingInput = "missing_input" // no cleaned row for the document
	ErrTypeStaleInput   = "stale_input"   // the cleaned row holds another version of the text
)

// A Handler is the extractor stage's streamkit handler.
type Handler struct {
	cfg  Config
	pool *pgxpool.Pool
	p    provider.Provider
	log  *slog.Logger
}

// NewHandler returns the stage handler over pool with provider p.
func NewHandler(pool *pgxpool.Pool, p provider.Provider, cfg Config) *Handler {
	cfg.setDefaults()
	return &Handler{cfg: cfg, pool: pool, p: p, log: cfg.Logger.With("provider", p.Name(), "model", p.Model())}
}

// Handle extracts one document. A missing cleaned row or a content hash
// that matches no version of it is permanent; provider errors come
// classified; when ctx ends (handler timeout, shutdown) its error is
// returned and nothing is stored.
func (h *Handler) Handle(ctx context.Context, m *streamkit.Message) (streamkit.Result, error) {
	docID, err := m.Require(pipeline.FieldDocID)
	if err != nil {
		return streamkit.Result{}, err
	}
	hash, err := m.Require(pipeline.FieldContentHash)
	if err != nil {
		return streamkit.Result{}, err
	}
	c, err := loadCleaned(ctx, h.pool, docID)
	if errors.Is(err, errNoRow) {
		return streamkit.Result{}, streamkit.Permanent(ErrTypeMissingInput, fmt.Errorf("extract %s: no cleaned row for the document", docID))
	}
	if err != nil {
		return streamkit.Result{}, streamkit.Retryable("database", err)
	}
	if hash != c.TextHash && hash != c.ContentHash && hash != pipeline.ContentHash([]byte(c.Text)) {
		return streamkit.Result{}, streamkit.Permanent(ErrTypeStaleInput, fmt.Errorf(
			"extract %s: message content_hash %s matches neither text_hash %s nor content_hash %s of the cleaned row (superseded by a newer version?)",
			docID, hash, c.TextHash, c.ContentHash))
	}
	url := m.Get(pipeline.FieldURL)
	if url == "" {
		url = c.URL
	}
	res := streamkit.Result{DocID: docID, Emit: []streamkit.Emit{{Stage: pipeline.Embed, Fields: map[string]string{
		pipeline.FieldDocID: docID, pipeline.FieldContentHash: hash, pipeline.FieldURL: url,
	}}}}
	if !h.wanted(c) {
		h.log.Info("not extracting a duplicate or non-article", "doc_id", docID, "duplicate_of", c.DuplicateOf, "is_article", c.IsArticle)
		return res, nil
	}

	text, cut := provider.CutAtSentence(c.Text, h.cfg.MaxInputChars)
	art := provider.Article{
		DocID: docID, URL: url, Title: c.Title, Text: text, Description: c.Description, SiteName: c.SiteName,
		Language: c.Language, Authors: c.Authors, PublishedAt: c.PublishedAt, Tags: c.Tags, Truncated: cut,
	}
	start := time.Now()
	out, err := h.p.Extract(ctx, art)
	latency := time.Since(start)
	if err != nil {
		return streamkit.Result{}, err
	}
	dropped := newGrounder(c.Title, c.Description, c.Text, c.SiteName, joinAuthors(c.Authors)).ground(&out.Data)
	if dropped > 0 {
		h.log.Info("dropped names or quotes the article does not contain", "doc_id", docID, "dropped", dropped)
	}
	r := row{
		DocID: docID, ContentHash: hash, Provider: h.p.Name(), Model: h.p.Model(), Mode: out.Mode,
		PromptVersion: h.p.PromptVersion(), Data: out.Data, InputChars: len(text),
		InputTruncated: cut || out.Truncated, Repaired: out.Repaired, Dropped: dropped, Requests: out.Requests,
		Latency: latency, InputTokens: out.InputTokens, OutputTokens: out.OutputTokens,
	}
	res.Commit = r.insert
	return res, nil
}

// wanted reports whether a cleaned row should be extracted.
func (h *Handler) wanted(c cleanedRow) bool {
	return h.cfg.ExtractSkipped || (c.DuplicateOf == nil || *c.DuplicateOf == "") && c.IsArticle
}

func joinAuthors(a []string) string {
	out := ""
	for _, s := range a {
		out += s + "\n"
	}
	return out
}
