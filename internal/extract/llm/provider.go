package llm

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/newscrawl/newscrawl/internal/extract/provider"
	"github.com/newscrawl/newscrawl/internal/extract/schema"
	"github.com/newscrawl/newscrawl/internal/modelclient"
	"github.com/newscrawl/newscrawl/internal/sleep"
	"github.com/newscrawl/newscrawl/pkg/streamkit"
)

// A Provider extracts with one model of one OpenAI-compatible server. It is
// safe for concurrent use; the output mode that works is remembered per model.
type Provider struct {
	cfg    Config
	client *openai.Client
	log    *slog.Logger

	mu    sync.Mutex
	modes map[string]string // model → first mode the server accepts

	// modelMissing is set when the server answered 404 for the model, and
	// cleared by an answer: only then does Probe require /models to list it
	// (llama.cpp answers to any model name and lists only its own).
	modelMissing atomic.Bool
}

// errLength marks an answer cut by the token limit (finish_reason "length").
var errLength = errors.New("answer cut at the token limit (finish_reason length)")

// New returns a provider; it does not contact the server.
func New(cfg Config) (*Provider, error) {
	if cfg.BaseURL == "" || cfg.Model == "" {
		return nil, errors.New("llm: BaseURL and Model are required")
	}
	if cfg.Mode != "" && !slices.Contains(modeLadder, cfg.Mode) {
		return nil, fmt.Errorf("llm: mode %q is not one of %s", cfg.Mode, strings.Join(modeLadder, ", "))
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.MaxTokens <= 0 {
		cfg.MaxTokens = DefaultMaxTokens
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	client := modelclient.New(modelclient.Config{BaseURL: cfg.BaseURL, APIKey: cfg.APIKey, HTTPClient: cfg.HTTPClient})
	return &Provider{
		cfg: cfg, client: client, modes: map[string]string{},
		log: cfg.Logger.With("provider", Name, "model", cfg.Model),
	}, nil
}

// Name implements provider.Provider.
func (p *Provider) Name() string { return Name }

// Model implements provider.Provider.
func (p *Provider) Model() string { return p.cfg.Model }

// PromptVersion implements provider.Provider.
func (p *Provider) PromptVersion() int { return PromptVersion }

// Mode reports the output mode currently used for the model.
func (p *Provider) Mode() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if m, ok := p.modes[p.cfg.Model]; ok {
		return m
	}
	if p.cfg.Mode != "" {
		return p.cfg.Mode
	}
	return ModeJSONSchema
}

func (p *Provider) remember(mode string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.modes[p.cfg.Model] != mode {
		p.modes[p.cfg.Model] = mode
		p.log.Warn("model server rejected the richer output mode; using this one from now on", "mode", mode)
	}
}

// Extract asks the model for the article's extraction. An answer that does
// not validate gets one repair request; an answer cut by the token limit is
// retried once with half the input. Errors are classified for streamkit;
// when ctx ends, its cause is returned.
func (p *Provider) Extract(ctx context.Context, a provider.Article) (provider.Output, error) {
	var total provider.Output
	for shrink := 0; ; shrink++ {
		out, err := p.extractOnce(ctx, a, &total)
		if errors.Is(err, errLength) && shrink == 0 && len(a.Text) > 200 {
			a.Text, _ = provider.CutAtSentence(a.Text, len(a.Text)/2)
			a.Truncated = true
			total.Truncated = true
			p.log.Warn("answer hit the token limit; retrying with half the input", "doc_id", a.DocID, "chars", len(a.Text))
			continue
		}
		if errors.Is(err, errLength) {
			return total, streamkit.Retryable(ErrTypeTruncated, fmt.Errorf("extract %s: %w; raise EXTRACT_MAX_TOKENS or lower EXTRACT_MAX_INPUT_CHARS", a.DocID, err))
		}
		if err != nil {
			return total, err
		}
		out.InputTokens, out.OutputTokens, out.Requests = total.InputTokens, total.OutputTokens, total.Requests
		out.Truncated = total.Truncated
		return out, nil
	}
}

func (p *Provider) extractOnce(ctx context.Context, a provider.Article, total *provider.Output) (provider.Output, error) {
	msgs := messages(a)
	answer, mode, err := p.complete(ctx, msgs, total)
	if err != nil {
		return provider.Output{}, err
	}
	data, invalid, perr := schema.Accept(answer)
	if perr == nil {
		return provider.Output{Data: data, Mode: mode, Invalid: invalid}, nil
	}
	// Only an answer unusable as a whole (no JSON, no summary) is worth a
	// second paid request; a weak optional field is dropped instead.
	p.log.Info("answer unusable; asking for a repair", "doc_id", a.DocID, "reason", perr)
	answer, mode, err = p.complete(ctx, repairMessages(msgs, answer, perr), total)
	if err != nil {
		return provider.Output{}, err
	}
	data, invalid, perr2 := schema.Accept(answer)
	if perr2 != nil {
		return provider.Output{}, streamkit.Permanent(ErrTypeSchemaInvalid,
			fmt.Errorf("extract %s: answer still unusable after one repair: %w (first answer: %v)", a.DocID, perr2, perr))
	}
	return provider.Output{Data: data, Mode: mode, Repaired: true, Invalid: invalid}, nil
}

// complete sends msgs in the remembered mode, stepping down the mode ladder
// while the server rejects the mode with a 4xx, and returns the answer text.
func (p *Provider) complete(ctx context.Context, msgs []openai.ChatCompletionMessage, total *provider.Output) (string, string, error) {
	mode := p.Mode()
	var firstReject error
	for i := slices.Index(modeLadder, mode); ; i++ {
		mode = modeLadder[i]
		resp, rec, err := p.call(ctx, p.request(mode, msgs))
		total.Requests++
		if err != nil {
			status := modelclient.Status(err, rec)
			if isClientError(status) && i+1 < len(modeLadder) && ctx.Err() == nil {
				if firstReject == nil {
					firstReject = err
				}
				p.log.Info("model server rejected the request; trying the next output mode", "mode", mode, "status", status, "message", modelclient.Message(err))
				continue
			}
			cerr := p.classify(ctx, err, rec)
			if firstReject != nil && streamkit.IsPermanent(cerr) {
				cerr = streamkit.Permanent(ErrTypeRejected, fmt.Errorf("%w (with %s: %s)", cerr, modeLadder[0], modelclient.Message(firstReject)))
			}
			return "", mode, cerr
		}
		if firstReject != nil || mode != p.Mode() {
			p.remember(mode)
		}
		p.modelMissing.Store(false)
		total.InputTokens += resp.Usage.PromptTokens
		total.OutputTokens += resp.Usage.CompletionTokens
		if len(resp.Choices) == 0 {
			return "", mode, streamkit.Retryable(ErrTypeBadResponse, errors.New("model response has no choices"))
		}
		ch := resp.Choices[0]
		if ch.FinishReason == openai.FinishReasonLength {
			return "", mode, errLength
		}
		if ch.Message.Content == "" && ch.Message.ReasoningContent != "" {
			return "", mode, errLength // thinking used the whole budget
		}
		if ch.Message.Refusal != "" && ch.Message.Content == "" {
			return "", mode, streamkit.Retryable(ErrTypeSchemaInvalid, fmt.Errorf("model refused: %s", ch.Message.Refusal))
		}
		p.checkPromptTokens(msgs, resp.Usage.PromptTokens)
		return ch.Message.Content, mode, nil
	}
}

// maxRateLimited bounds how often one request is sent again after a 429
// before the message is deferred instead.
const maxRateLimited = 5

// call sends one request through the limiter with the per-request timeout.
// The limiter's wait and the pause after a 429 go through streamkit.Wait:
// they count neither against the handler's deadline nor its lease. A 429
// pauses the whole stage (the shared limiter) and the request is sent again
// after it, so an answer is never lost to a rate limit.
func (p *Provider) call(ctx context.Context, req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, *modelclient.Response, error) {
	for limited := 0; ; limited++ {
		tokens := estimateTokens(req.Messages) + p.cfg.MaxTokens
		if err := streamkit.Wait(ctx, func(ctx context.Context) error { return p.cfg.Limiter.Wait(ctx, tokens) }); err != nil {
			return openai.ChatCompletionResponse{}, &modelclient.Response{}, err
		}
		cctx, cancel := context.WithTimeout(ctx, p.cfg.Timeout)
		cctx, rec := modelclient.Record(cctx, false)
		resp, err := p.client.CreateChatCompletion(cctx, req)
		cancel()
		if err == nil || limited == maxRateLimited || ctx.Err() != nil || !rateLimited(err, rec) {
			return resp, rec, err
		}
		d := rec.RetryAfter(time.Now(), DefaultRateLimitDelay, MaxRateLimitDelay)
		p.cfg.Limiter.Pause(d)
		p.log.Info("model server rate-limited the stage; waiting", "retry_after", d.String())
		if p.cfg.Limiter == nil {
			if err := streamkit.Wait(ctx, func(ctx context.Context) error { return sleep.For(ctx, d) }); err != nil {
				return resp, rec, err
			}
		}
	}
}

func rateLimited(err error, rec *modelclient.Response) bool {
	return modelclient.Status(err, rec) == http.StatusTooManyRequests
}

// Probe checks that the server answers, and, after it said the model was
// not found, that it lists the model now: the check that lets a stage
// paused on a missing server or a misnamed model resume by itself.
func (p *Provider) Probe(ctx context.Context) error {
	list, err := p.client.ListModels(ctx)
	if err != nil {
		if status := modelclient.Status(err, nil); status == http.StatusNotFound || status == http.StatusMethodNotAllowed {
			return nil // no /models endpoint: answering at all is all a probe can tell
		}
		return fmt.Errorf("model server %s: %w", p.cfg.BaseURL, err)
	}
	if len(list.Models) == 0 || !p.modelMissing.Load() {
		return nil
	}
	ids := make([]string, 0, len(list.Models))
	for _, m := range list.Models {
		if m.ID == p.cfg.Model || strings.TrimSuffix(m.ID, ":latest") == p.cfg.Model {
			return nil
		}
		ids = append(ids, m.ID)
	}
	return fmt.Errorf("model server %s does not serve %q (it has: %s); set EXTRACT_MODEL to one of them", p.cfg.BaseURL, p.cfg.Model, strings.Join(ids[:min(len(ids), 10)], ", "))
}

// estimateTokens guesses a prompt's size at four bytes a token.
func estimateTokens(msgs []openai.ChatCompletionMessage) int {
	n := 0
	for _, m := range msgs {
		n += len(m.Content)/4 + 4
	}
	return n
}

// checkPromptTokens warns when the server counted far fewer prompt tokens
// than we sent: Ollama's /v1 endpoint silently truncates to its context size.
func (p *Provider) checkPromptTokens(msgs []openai.ChatCompletionMessage, counted int) {
	est := estimateTokens(msgs)
	if counted > 0 && est > 2000 && counted < est/3 {
		p.log.Warn("server counted far fewer prompt tokens than sent; it may truncate the prompt (Ollama: raise num_ctx in a Modelfile)",
			"estimated", est, "prompt_tokens", counted)
	}
}
