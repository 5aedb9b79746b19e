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

	openai "github.com/sashabaranov/go-openai"

	"github.com/newscrawl/newscrawl/internal/extract/provider"
	"github.com/newscrawl/newscrawl/internal/extract/schema"
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
	oc := openai.DefaultConfig(cfg.APIKey)
	oc.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	oc.HTTPClient = recordingDoer{c: cfg.HTTPClient}
	return &Provider{
		cfg: cfg, client: openai.NewClientWithConfig(oc), modes: map[string]string{},
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
	data, perr := schema.Parse(answer)
	if perr == nil {
		return provider.Output{Data: data, Mode: mode}, nil
	}
	p.log.Info("answer rejected; asking for a repair", "doc_id", a.DocID, "reason", perr)
	answer, mode, err = p.complete(ctx, repairMessages(msgs, answer, perr), total)
	if err != nil {
		return provider.Output{}, err
	}
	data, perr2 := schema.Parse(answer)
	if perr2 != nil {
		return provider.Output{}, streamkit.Retryable(ErrTypeSchemaInvalid,
			fmt.Errorf("extract %s: answer still invalid after one repair: %w (first answer: %v)", a.DocID, perr2, perr))
	}
	return provider.Output{Data: data, Mode: mode, Repaired: true}, nil
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
			status := statusOf(err)
			if status == 0 {
				status = rec.status
			}
			if isClientError(status) && i+1 < len(modeLadder) && ctx.Err() == nil {
				if firstReject == nil {
					firstReject = err
				}
				p.log.Info("model server rejected the request; trying the next output mode", "mode", mode, "status", status, "message", serverMessage(err))
				continue
			}
			cerr := p.classify(ctx, err, rec)
			if firstReject != nil && streamkit.IsPermanent(cerr) {
				cerr = streamkit.Permanent(ErrTypeRejected, fmt.Errorf("%w (with %s: %s)", cerr, modeLadder[0], serverMessage(firstReject)))
			}
			return "", mode, cerr
		}
		if firstReject != nil || mode != p.Mode() {
			p.remember(mode)
		}
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

// call sends one request through the limiter with the per-request timeout.
func (p *Provider) call(ctx context.Context, req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, *recorder, error) {
	if err := p.cfg.Limiter.Wait(ctx, estimateTokens(req.Messages)+p.cfg.MaxTokens); err != nil {
		return openai.ChatCompletionResponse{}, &recorder{}, err
	}
	cctx, cancel := context.WithTimeout(ctx, p.cfg.Timeout)
	defer cancel()
	cctx, rec := withRecorder(cctx)
	resp, err := p.client.CreateChatCompletion(cctx, req)
	return resp, rec, err
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
