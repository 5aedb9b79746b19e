package extract

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/newscrawl/newscrawl/internal/extract/provider"
	"github.com/newscrawl/newscrawl/internal/forget"
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
	cfg     Config
	pool    *pgxpool.Pool
	p       provider.Provider
	log     *slog.Logger
	metrics *stageMetrics
}

// NewHandler returns the stage handler over pool with provider p.
func NewHandler(pool *pgxpool.Pool, p provider.Provider, cfg Config) *Handler {
	cfg.setDefaults()
	log := cfg.Logger.With("provider", p.Name(), "model", p.Model())
	return &Handler{cfg: cfg, pool: pool, p: p, log: log, metrics: cfg.Metrics.forStage(log)}
}

// Handle extracts one document. A missing cleaned row or a text hash
// that is not the row's is permanent; provider errors come
// classified; when ctx ends (handler timeout, shutdown) its error is
// returned and nothing is stored.
func (h *Handler) Handle(ctx context.Context, m *streamkit.Message) (streamkit.Result, error) {
	docID, err := m.Require(pipeline.FieldDocID)
	if err != nil {
		return streamkit.Result{}, err
	}
	hash, err := pipeline.MessageHash(m, pipeline.FieldTextHash)
	if err != nil {
		return streamkit.Result{}, err
	}
	c, err := loadCleaned(ctx, h.pool, docID)
	if errors.Is(err, errNoRow) {
		switch gone, ferr := forget.Was(ctx, h.pool, docID); {
		case ferr != nil:
			return streamkit.Result{}, streamkit.Retryable("database", ferr)
		case gone: // forgotten while in flight: nothing to do
			return streamkit.Result{}, nil
		}
		return streamkit.Result{}, streamkit.Permanent(ErrTypeMissingInput, fmt.Errorf("extract %s: no cleaned row for the document", docID))
	}
	if err != nil {
		return streamkit.Result{}, streamkit.Retryable("database", err)
	}
	if hash != c.TextHash {
		return streamkit.Result{}, streamkit.Permanent(ErrTypeStaleInput, fmt.Errorf(
			"extract %s: message text_hash %s is not the cleaned row's %s (superseded by a newer version?)",
			docID, hash, c.TextHash))
	}
	url := m.Get(pipeline.FieldURL)
	if url == "" {
		url = c.URL
	}
	res := streamkit.Result{DocID: docID, Emit: []streamkit.Emit{{Stage: pipeline.Embed, Fields: map[string]string{
		pipeline.FieldDocID: docID, pipeline.FieldTextHash: hash, pipeline.FieldURL: url,
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
	// An answer accepted before (the commit then failed, or the message was
	// redelivered) is used again: the model is never paid twice for one key.
	out, kept, err := loadAnswer(ctx, h.pool, m.Key)
	if err != nil {
		return streamkit.Result{}, err
	}
	start := time.Now()
	p, fallback := h.p, ""
	if !kept {
		out, err = h.p.Extract(ctx, art)
		if err != nil {
			if !h.fallsBack(ctx, m, err) {
				return streamkit.Result{}, err
			}
			h.log.Warn("the model failed for the document; storing the heuristic extraction as its fallback",
				"doc_id", docID, "attempt", m.Attempt+1, "err", err)
			p, fallback = h.cfg.Fallback, err.Error()
			if out, err = p.Extract(ctx, art); err != nil {
				return streamkit.Result{}, err
			}
		} else if err := keepAnswer(ctx, h.pool, m.Key, out); err != nil {
			return streamkit.Result{}, err
		}
	}
	latency := time.Since(start)
	h.metrics.observe(out, fallback != "", kept, latency)
	dropped := newGrounder(c.Title, c.Description, c.Text, c.SiteName, joinAuthors(c.Authors)).ground(&out.Data)
	if dropped > 0 {
		h.log.Info("dropped names or quotes the article does not contain", "doc_id", docID, "dropped", dropped)
	}
	if len(out.Invalid) > 0 {
		h.log.Info("partial extraction: optional fields left empty", "doc_id", docID, "invalid", invalidText(out.Invalid))
	}
	r := row{
		DocID: docID, TextHash: hash, Provider: p.Name(), Model: p.Model(), Mode: out.Mode,
		PromptVersion: p.PromptVersion(), Data: out.Data, InputChars: len(text),
		InputTruncated: cut || out.Truncated, Repaired: out.Repaired, Dropped: dropped, Requests: out.Requests,
		Latency: latency, InputTokens: out.InputTokens, OutputTokens: out.OutputTokens,
		Invalid: invalidText(out.Invalid),
	}
	if fallback != "" {
		r.FallbackFor, r.FallbackReason = h.p.Name()+"/"+h.p.Model(), fallback
	}
	key := m.Key
	res.Commit = func(ctx context.Context, tx pgx.Tx) error {
		if err := r.insert(ctx, tx); err != nil {
			return err
		}
		return forgetAnswer(ctx, tx, key)
	}
	return res, nil
}

// fallsBack decides whether a model failure ends in the fallback
// extraction now: when the failure will not go away by retrying (a
// rejected request, an answer still unusable after its repair), or when
// this was the last attempt. A paused dependency, a rate limit and a
// cancelled handler are not failures of the document and never fall back.
func (h *Handler) fallsBack(ctx context.Context, m *streamkit.Message, err error) bool {
	if h.cfg.Fallback == nil || ctx.Err() != nil || streamkit.IsUnavailable(err) || streamkit.IsDeferral(err) {
		return false
	}
	return streamkit.IsPermanent(err) || m.Attempt+1 >= h.cfg.MaxAttempts
}

// wanted reports whether a cleaned row should be extracted.
func (h *Handler) wanted(c cleanedRow) bool {
	return h.cfg.ExtractSkipped || c.Searchable
}

func joinAuthors(a []string) string {
	out := ""
	for _, s := range a {
		out += s + "\n"
	}
	return out
}
