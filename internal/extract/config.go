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
	Logger         *slog.Logger
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
}

// latencyMS converts a duration for the latency_ms column.
func latencyMS(d time.Duration) int { return int(d.Milliseconds()) }
