// Package provider picks the embedder named by the settings: the OpenAI-
// compatible client when a base URL is set (or asked for), the local
// hashing embedder otherwise.
package provider

import (
	"fmt"
	"time"

	"github.com/newscrawl/newscrawl/internal/config"
	"github.com/newscrawl/newscrawl/internal/embed"
	"github.com/newscrawl/newscrawl/internal/embed/local"
	"github.com/newscrawl/newscrawl/internal/embed/openai"
)

// Provider names accepted in Config.Provider (EMBED_PROVIDER).
const (
	Auto   = "auto"
	OpenAI = "openai"
	Local  = "local"
)

// Config is the embedding settings shared by the embedder and the query side.
type Config struct {
	Provider       string        // Auto (default), OpenAI or Local
	BaseURL        string        // EMBED_BASE_URL, else OPENAI_BASE_URL
	APIKey         string        // EMBED_API_KEY (with EMBED_BASE_URL), else OPENAI_API_KEY
	Model          string        // EMBED_MODEL
	Dims           int           // EMBED_DIMENSIONS; 0 = local.DefaultDims for local, required for openai
	SendDimensions bool          // EMBED_SEND_DIMENSIONS
	Encoding       string        // EMBED_ENCODING
	QueryPrefix    string        // EMBED_QUERY_PREFIX
	DocumentPrefix string        // EMBED_DOCUMENT_PREFIX
	Timeout        time.Duration // EMBED_TIMEOUT
}

// New returns the configured embedder, or an error naming the setting that
// is missing or inconsistent.
func New(cfg Config) (embed.Embedder, error) {
	p := cfg.Provider
	if p == "" || p == Auto {
		p = Local
		if cfg.BaseURL != "" {
			p = OpenAI
		}
	}
	switch p {
	case Local:
		if cfg.Model != "" && cfg.Model != local.ModelName {
			return nil, fmt.Errorf("EMBED_MODEL=%q needs a model server (set OPENAI_BASE_URL); the local embedder is %s", cfg.Model, local.ModelName)
		}
		return local.New(local.Config{Dims: cfg.Dims}), nil
	case OpenAI:
		return openai.New(openai.Config{BaseURL: cfg.BaseURL, APIKey: cfg.APIKey, Model: cfg.Model, Dims: cfg.Dims,
			SendDimensions: cfg.SendDimensions, Encoding: cfg.Encoding, QueryPrefix: cfg.QueryPrefix,
			DocumentPrefix: cfg.DocumentPrefix, Timeout: cfg.Timeout})
	default:
		return nil, fmt.Errorf("EMBED_PROVIDER=%q: want auto, openai or local", cfg.Provider)
	}
}

// Bind binds the embedding settings (EMBED_PROVIDER, OPENAI_*, EMBED_MODEL,
// EMBED_DIMENSIONS, …) onto s, in one place for the embedder and the query
// side, so both build the same embedder from the same environment. The
// returned function, called after s.Parse, builds it. server is the
// OpenAI-compatible server's settings, bound once per flag set.
func Bind(s *config.Set, server config.OpenAI) func() (embed.Embedder, error) {
	kind := s.String("EMBED_PROVIDER", Auto, "auto (openai when OPENAI_BASE_URL is set, else local), openai or local")
	baseURL := s.String("EMBED_BASE_URL", "", "OpenAI-compatible server of the embedding model, when it is not OPENAI_BASE_URL's (vLLM and llama-server serve one model each)")
	apiKey := s.Secret("EMBED_API_KEY", "API key of EMBED_BASE_URL (default OPENAI_API_KEY)")
	model := s.String("EMBED_MODEL", "", "embedding model as the server knows it (required with openai)")
	dims := s.Int("EMBED_DIMENSIONS", 0, "vector length (local: default 384; openai: required, the model's output size)")
	sendDims := s.Bool("EMBED_SEND_DIMENSIONS", false, "send dimensions in requests, for models that can shorten their vectors (vLLM rejects it for others)")
	encoding := s.String("EMBED_ENCODING", openai.EncodingFloat, "response encoding to ask for: float or base64")
	queryPrefix := s.String("EMBED_QUERY_PREFIX", "", `task prefix of queries, e.g. "search_query: " for nomic-embed-text`)
	docPrefix := s.String("EMBED_DOCUMENT_PREFIX", "", `task prefix of documents, e.g. "search_document: " (part of the model identity)`)
	timeout := s.Duration("EMBED_TIMEOUT", openai.DefaultTimeout, "timeout of one embeddings request")
	return func() (embed.Embedder, error) {
		base, key := *server.BaseURL, *server.APIKey
		if *baseURL != "" {
			base = *baseURL
			if *apiKey != "" {
				key = *apiKey
			}
		}
		return New(Config{Provider: *kind, BaseURL: base, APIKey: key, Model: *model,
			Dims: *dims, SendDimensions: *sendDims, Encoding: *encoding, QueryPrefix: *queryPrefix,
			DocumentPrefix: *docPrefix, Timeout: *timeout})
	}
}
