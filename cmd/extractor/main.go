// Command extractor is the pipeline's third stage: it reads cleaned
// articles, extracts structured facts with an OpenAI-compatible model (or
// the heuristic provider when OPENAI_BASE_URL is unset), stores them in the
// extractions table and forwards each document to the embedder.
package main

import (
	"flag"
	"time"

	"github.com/newscrawl/newscrawl/internal/app"
	"github.com/newscrawl/newscrawl/internal/config"
	"github.com/newscrawl/newscrawl/internal/extract"
	"github.com/newscrawl/newscrawl/internal/extract/heuristic"
	"github.com/newscrawl/newscrawl/internal/extract/llm"
	"github.com/newscrawl/newscrawl/internal/pipeline"
	"github.com/newscrawl/newscrawl/pkg/streamkit"
)

// Defaults of the extractor binary.
const (
	defaultMetricsAddr = "127.0.0.1:9103"
	defaultConcurrency = 4
	defaultVisibility  = 60 * time.Second
)

func main() { app.Main("extractor", run) }

func run(args []string) error {
	s := config.NewSet(flag.NewFlagSet("extractor", flag.ContinueOnError))
	common := config.BindCommon(s, defaultMetricsAddr)
	stage := config.BindStage(s, "EXTRACT", defaultConcurrency, defaultVisibility)
	kind := s.String("EXTRACT_PROVIDER", extract.ProviderAuto, "auto (openai when OPENAI_BASE_URL is set, else heuristic), openai or heuristic")
	server := config.BindOpenAI(s)
	model := s.String("EXTRACT_MODEL", "", "model name as the server knows it (required with openai)")
	timeout := s.Duration("EXTRACT_TIMEOUT", llm.DefaultTimeout, "timeout of one model request")
	maxInput := s.Int("EXTRACT_MAX_INPUT_CHARS", extract.DefaultMaxInputChars, "article budget in characters, cut at a sentence boundary")
	maxTokens := s.Int("EXTRACT_MAX_TOKENS", llm.DefaultMaxTokens, "answer token budget (leave room for reasoning models)")
	rpm := s.Int("EXTRACT_RPM", 0, "model requests per minute for this process (0 = unlimited)")
	tpm := s.Int("EXTRACT_TPM", 0, "model tokens per minute for this process, prompt estimate + max tokens (0 = unlimited)")
	mode := s.String("EXTRACT_MODE", "", "first output mode: json_schema, json_object or text (default json_schema, stepping down on rejection)")
	noThink := s.Bool("EXTRACT_DISABLE_THINKING", false, "send chat_template_kwargs enable_thinking=false (vLLM/llama.cpp with Qwen3-style models)")
	skipped := s.Bool("EXTRACT_INCLUDE_DUPLICATES", false, "also extract duplicates and non-articles")
	if err := s.Parse(args); err != nil {
		return err
	}

	log := app.Logger(*common.LogLevel).With("binary", "extractor")
	p, err := extract.NewProvider(extract.ProviderConfig{Provider: *kind, LLM: llm.Config{
		BaseURL: *server.BaseURL, APIKey: *server.APIKey, Model: *model, Timeout: *timeout, MaxTokens: *maxTokens,
		Mode: *mode, DisableThinking: *noThink, Limiter: llm.NewLimiter(*rpm, *tpm, 0), Logger: log,
	}})
	if err != nil {
		return err
	}
	// The handler's deadline is the model's own budget — an answer and a
	// repair, and a retry with half the input after a cut answer — and not
	// a multiple of the visibility: leases are renewed while it runs, and
	// rate-limit waits do not count against it.
	if *stage.HandlerTimeout == 0 && p.Name() == llm.Name {
		*stage.HandlerTimeout = 3**timeout + 30*time.Second
	}
	log.Info("extraction provider", "provider", p.Name(), "model", p.Model(), "version", extract.Version(p))

	return app.Worker{
		Name: "extractor", Stage: pipeline.Extract, Group: pipeline.ExtractorGroup, Downstream: pipeline.Embed,
		Version: extract.Version(p), Key: extract.Key, Common: common, Settings: stage,
		ErrorTypes: []string{extract.ErrTypeMissingInput, extract.ErrTypeStaleInput, llm.ErrTypeUnavailable, llm.ErrTypeTimeout,
			llm.ErrTypeRejected, llm.ErrTypeBadResponse, llm.ErrTypeSchemaInvalid, llm.ErrTypeTruncated, llm.ErrTypeRateLimited},
	}.Run(func(d app.Deps) (streamkit.Handler, error) {
		cfg := extract.Config{MaxInputChars: *maxInput, ExtractSkipped: *skipped, MaxAttempts: *stage.MaxAttempts,
			Logger: d.Log, Metrics: extract.NewMetrics(d.Registry)}
		if lp, ok := p.(*llm.Provider); ok {
			// The model server is a dependency like Redis: while it is away,
			// misconfigured or without the model, the stage pauses, and
			// resumes once this probe succeeds.
			d.Dependencies.Add(llm.Dependency, lp.Probe, nil)
			cfg.Fallback = heuristic.New(heuristic.Config{})
		}
		return extract.NewHandler(d.DB, p, cfg), nil
	})
}
