// Package llm is the extraction provider for any OpenAI-compatible chat
// completions server (OpenAI, Ollama, vLLM, llama.cpp, LM Studio, LocalAI),
// through github.com/sashabaranov/go-openai. It asks for structured output
// (json_schema, strict) and falls back to json_object, then to plain text
// with the schema in the prompt, when the server rejects a mode (remembered
// per model); it validates every answer, repairs once, and classifies
// failures for streamkit (429 → RetryAfter and a stage-wide pause, 5xx and
// timeouts → retryable, hopeless 4xx → permanent).
package llm

import (
	"log/slog"
	"net/http"
	"time"
)

// Name is the provider label stored with every row.
const Name = "openai"

// PromptVersion is stored with every row and is part of the idempotency
// key: bump it when the prompt changes meaningfully.
const PromptVersion = 1

// Defaults of Config.
const (
	DefaultTimeout        = 120 * time.Second
	DefaultMaxTokens      = 2048
	DefaultMaxWait        = 20 * time.Second
	DefaultRateLimitDelay = 10 * time.Second // a 429 without Retry-After
	MaxRateLimitDelay     = 10 * time.Minute // the longest pause a 429 may ask for
	// Temperature is near zero for near-deterministic output: go-openai
	// omits a zero temperature (omitempty), which servers read as their default (~0.7-1).
	Temperature float32 = 0.01
	// maxRepairEcho bounds how much of a rejected answer the repair request repeats.
	maxRepairEcho = 8000
)

// Output modes, tried in this order.
const (
	ModeJSONSchema = "json_schema" // response_format json_schema, strict
	ModeJSONObject = "json_object" // response_format json_object, schema in the prompt
	ModeText       = "text"        // no response_format, schema in the prompt
)

var modeLadder = []string{ModeJSONSchema, ModeJSONObject, ModeText}

// Config describes the model endpoint and its limits.
type Config struct {
	BaseURL   string        // e.g. http://127.0.0.1:11434/v1 (required)
	APIKey    string        // optional; local servers usually need none
	Model     string        // model name as the server knows it (required)
	Timeout   time.Duration // per request
	MaxTokens int           // answer budget; leave room for reasoning models' thinking
	// Mode forces the first output mode (json_schema, json_object or text);
	// "" starts with json_schema and steps down when the server rejects it.
	Mode string
	// DisableThinking sends chat_template_kwargs {"enable_thinking": false}
	// (vLLM, llama.cpp, SGLang with Qwen3-style templates). OpenAI rejects
	// unknown fields, so it is off by default.
	DisableThinking bool
	Limiter         *Limiter     // shared by every call of the stage; nil = unlimited
	HTTPClient      *http.Client // default: a client without its own timeout
	Logger          *slog.Logger
}
