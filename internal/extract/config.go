// Package extract is the extractor stage: for each cleaned article it asks
// a provider (an OpenAI-compatible model, or the heuristic one) for
// schema-valid structured data, keeps only what the article supports, stores
// it in the extractions table and forwards the document to the embedder.
package extract

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/newscrawl/newscrawl/internal/extract/heuristic"
	"github.com/newscrawl/newscrawl/internal/extract/llm"
	"github.com/newscrawl/newscrawl/internal/extract/provider"
	"github.com/newscrawl/newscrawl/internal/extract/schema"
	"github.com/newscrawl/newscrawl/internal/pipeline"
	"github.com/newscrawl/newscrawl/pkg/streamkit"
)

// Defaults of Config.
const (
	DefaultMaxInputChars = 16000 // ~4k tokens: with the ~1k-token prompt and a 2k answer, fits an 8k context
	DefaultProvider      = ProviderAuto
)

// Provider choices for Config.Provider.
const (
	ProviderAuto      = "auto" // openai when a base URL is set, else heuristic
	ProviderOpenAI    = "openai"
	ProviderHeuristic = "heuristic"
)

// Config describes the stage.
type Config struct {
	// MaxInputChars is the article budget sent to the provider; longer text
	// is cut at a sentence boundary and the cut recorded. ≤0 = DefaultMaxInputChars.
	MaxInputChars int
	// ExtractSkipped extracts duplicates and non-articles too; by default
	// they are forwarded to the embedder without an extraction.
	ExtractSkipped bool
	// Fallback extracts a document when the provider fails for it (the
	// heuristic provider); the row is labelled with the failure and the
	// document moves on. nil: failures go to streamkit's retries and DLQ.
	Fallback provider.Provider
	// MaxAttempts is the stage's attempt budget: a model failure on the
	// last attempt falls back instead of being dead-lettered.
	MaxAttempts int
	Logger      *slog.Logger
	Metrics     *Metrics // nil: unregistered
}

// ProviderConfig chooses and configures the provider.
type ProviderConfig struct {
	Provider string     // auto, openai or heuristic
	LLM      llm.Config // used by openai
}

// NewProvider builds the configured provider: with "auto", openai when
// LLM.BaseURL is set and heuristic otherwise.
func NewProvider(c ProviderConfig) (provider.Provider, error) {
	kind := c.Provider
	if kind == "" || kind == ProviderAuto {
		kind = ProviderHeuristic
		if c.LLM.BaseURL != "" {
			kind = ProviderOpenAI
		}
	}
	switch kind {
	case ProviderHeuristic:
		return heuristic.New(heuristic.Config{}), nil
	case ProviderOpenAI:
		if c.LLM.BaseURL == "" {
			return nil, fmt.Errorf("provider openai needs OPENAI_BASE_URL")
		}
		if c.LLM.Model == "" {
			return nil, fmt.Errorf("provider openai needs EXTRACT_MODEL")
		}
		return llm.New(c.LLM)
	}
	return nil, fmt.Errorf("unknown extract provider %q (auto, openai or heuristic)", c.Provider)
}

// Version is the provider's part of the idempotency key: provider, model,
// prompt and schema version, so changing any of them re-extracts on replay.
func Version(p provider.Provider) string {
	return fmt.Sprintf("%s/%s/p%d/s%d", p.Name(), p.Model(), p.PromptVersion(), schema.Version)
}

func (c *Config) setDefaults() {
	if c.MaxInputChars <= 0 {
		c.MaxInputChars = DefaultMaxInputChars
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.MaxAttempts <= 0 {
		c.MaxAttempts = streamkit.DefaultMaxAttempts
	}
	if c.Metrics == nil {
		c.Metrics = NewMetrics(nil)
	}
}

// latencyMS converts a duration for the latency_ms column.
func latencyMS(d time.Duration) int { return int(d.Milliseconds()) }

// FieldRerun, set by newsctl reextract --fallbacks, makes a message's key
// new: a document whose model extraction fell back is extracted again,
// although the ledger has its key done.
const FieldRerun = "rerun"

// textKey keys extract work on extract:doc_id:text_hash:version.
var textKey = pipeline.HashKey(pipeline.FieldTextHash)

// Key is the stage's streamkit.KeyFunc: extract:doc_id:text_hash:version,
// the text hash read from the message's text_hash or, in a message sent
// before the fields were renamed, from content_hash (the same value, so
// the same key); plus the message's rerun nonce when it has one.
func Key(stage, version string, m *streamkit.Message) (string, error) {
	k, err := textKey(stage, version, m)
	if err != nil {
		return "", err
	}
	if r := m.Get(FieldRerun); r != "" {
		k += ":rerun-" + r
	}
	return k, nil
}
