// Package provider declares what an extraction provider is: the article it
// is given, the output it returns, and the interface the stage calls.
package provider

import (
	"context"
	"time"

	"github.com/newscrawl/newscrawl/internal/extract/schema"
)

// An Article is the cleaner's output for one document, the provider's input.
// Text is untrusted: it may contain instructions aimed at a model.
type Article struct {
	DocID       string
	URL         string
	Title       string
	Text        string // possibly cut to the input budget (see Truncated)
	Description string
	SiteName    string
	Language    string // ISO 639-1 from the cleaner, or ""
	Authors     []string
	PublishedAt *time.Time
	Tags        []string
	Truncated   bool // Text was cut to the input budget
}

// An Output is one validated extraction and how it was obtained.
type Output struct {
	Data         schema.Extraction
	Mode         string // json_schema, json_object, text or heuristic
	Repaired     bool   // a repair request was needed
	InputTokens  int    // from the server's usage, 0 when unknown
	OutputTokens int
	Requests     int  // model requests made
	Truncated    bool // the provider cut the input further (finish_reason length)
	// Invalid lists the optional fields of the answer that did not validate
	// and were left empty (a partial extraction).
	Invalid []schema.Invalid
}

// A Provider turns an article into a validated extraction. Errors are
// classified with streamkit (Permanent, Retryable, RetryAfter); a provider
// respects ctx and returns promptly when it is cancelled.
type Provider interface {
	// Name is the provider label stored with every row ("openai", "heuristic").
	Name() string
	// Model names the model (or the heuristic's revision).
	Model() string
	// PromptVersion changes whenever the prompt changes meaningfully.
	PromptVersion() int
	// Extract returns a schema-valid extraction of a.
	Extract(ctx context.Context, a Article) (Output, error)
}
