package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/newscrawl/newscrawl/internal/ask"
	"github.com/newscrawl/newscrawl/internal/config"
	"github.com/newscrawl/newscrawl/internal/embed/provider"
	"github.com/newscrawl/newscrawl/internal/search"
	"github.com/newscrawl/newscrawl/internal/store"
)

// defaultAskTimeout bounds one CLI question, a model's answer included.
const defaultAskTimeout = 60 * time.Second

// askBinding is the settings ask reads, shared by `newsctl ask` and serve.
type askBinding struct {
	server    config.OpenAI
	baseURL   *string
	model     *string
	extractor *string
	now       *string
	timeout   *time.Duration
	maxTokens *int
	noThink   *bool
}

func bindAsk(s *config.Set, server config.OpenAI) askBinding {
	return askBinding{
		server:    server,
		baseURL:   s.String("ASK_BASE_URL", "", "the chat model's server when it is not OPENAI_BASE_URL's (the query is still embedded as EMBED_* say)"),
		model:     s.String("ASK_MODEL", "", "chat model that answers (default EXTRACT_MODEL; none = answer from the sources' sentences only)"),
		extractor: s.String("EXTRACT_MODEL", "", "the extractor's model, which answers when ASK_MODEL is unset"),
		now:       s.String("ASK_NOW", "", "today for time phrases such as \"last week\" (YYYY-MM-DD or RFC 3339; default now)"),
		timeout:   s.Duration("ASK_TIMEOUT", ask.DefaultModelTimeout, "the model's time to answer; then the answer is extractive"),
		maxTokens: s.Int("ASK_MAX_TOKENS", ask.DefaultMaxTokens, "the model's answer budget in tokens"),
		noThink:   s.Bool("ASK_DISABLE_THINKING", false, "send chat_template_kwargs enable_thinking=false (Qwen3-style templates)"),
	}
}

// asker builds the Asker: with a model when a server (ASK_BASE_URL or
// OPENAI_BASE_URL) and a model name are set, else extractive.
func (b askBinding) asker(s *search.Searcher, m *ask.Metrics, log *slog.Logger) (*ask.Asker, error) {
	cfg := ask.Config{Searcher: s, Metrics: m, Log: log}
	if *b.now != "" {
		t, err := search.ParseDate(*b.now, false)
		if err != nil {
			return nil, fmt.Errorf("ASK_NOW: %w", err)
		}
		cfg.Now = func() time.Time { return *t }
	}
	name := *b.model
	if name == "" {
		name = *b.extractor
	}
	base := *b.baseURL
	if base == "" {
		base = *b.server.BaseURL
	}
	if base != "" && name != "" && name != "none" {
		model, err := ask.NewModel(ask.ModelConfig{BaseURL: base, APIKey: *b.server.APIKey, Model: name,
			Timeout: *b.timeout, MaxTokens: *b.maxTokens, DisableThinking: *b.noThink})
		if err != nil {
			return nil, err
		}
		cfg.Model = model
	}
	return ask.New(cfg)
}

// runAsk implements `newsctl ask "question" [--since DATE] [--until DATE]
// [--host HOST] [--lang LANG] [--k 5] [--strict] [--json]`.
func runAsk(ctx context.Context, args []string) error {
	s, c := settings("ask")
	server := config.BindOpenAI(s)
	newEmbedder := provider.Bind(s, server)
	binding := bindAsk(s, server)
	searchConfig := bindSearch(s)
	fs := s.FlagSet()
	since := fs.String("since", "", "only articles published at or after DATE (YYYY-MM-DD or RFC 3339); overrides the question's own time phrase")
	until := fs.String("until", "", "only articles published before DATE; a bare date includes that day")
	host := fs.String("host", "", "only articles from HOST")
	lang := fs.String("lang", "", "only articles in language LANG (e.g. en)")
	k := fs.Int("k", ask.DefaultK, "sources to list (1-20)")
	strict := fs.Bool("strict", false, "drop sentences the sources do not support, instead of marking them")
	asJSON := fs.Bool("json", false, "print the answer as one JSON object")
	timeout := fs.Duration("timeout", defaultAskTimeout, "give up after this long")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), `usage: newsctl ask "question" [--since DATE] [--until DATE] [--host HOST] [--lang LANG] [--k 5] [--strict] [--json]`)
		fs.PrintDefaults()
	}
	words, err := parseInterleaved(s, args)
	if err != nil {
		return err
	}
	r := ask.Request{Question: strings.Join(words, " "), Host: *host, Lang: *lang, K: *k, Strict: *strict}
	if r.Since, err = search.ParseDate(*since, false); err != nil {
		return fmt.Errorf("--since: %w", err)
	}
	if r.Until, err = search.ParseDate(*until, true); err != nil {
		return fmt.Errorf("--until: %w", err)
	}
	emb, err := newEmbedder()
	if err != nil {
		return fmt.Errorf("query embedder: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	pool, err := store.Open(ctx, *c.DatabaseURL)
	if err != nil {
		return err
	}
	defer pool.Close()
	asker, err := binding.asker(search.New(pool, emb, searchConfig(), nil), nil, nil)
	if err != nil {
		return err
	}
	ans, err := asker.Ask(ctx, r)
	if err != nil {
		if strings.Contains(err.Error(), `relation "chunks" does not exist`) {
			return fmt.Errorf("%w (run `newsctl migrate` and the embedder first)", err)
		}
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(ans)
	}
	printAnswer(os.Stdout, ans)
	return nil
}

// printAnswer prints an answer for a terminal: the sentences with their
// citations, unsupported ones marked, then the numbered sources.
func printAnswer(w io.Writer, a ask.Answer) {
	switch {
	case a.Abstained:
		fmt.Fprintln(w, "The archive holds nothing that answers this.")
	default:
		for _, s := range a.Sentences {
			cites := make([]string, len(s.Citations))
			for i, n := range s.Citations {
				cites[i] = fmt.Sprintf("[%d]", n)
			}
			mark := ""
			if !s.Supported {
				mark = "  (not supported by its sources)"
			}
			fmt.Fprintf(w, "%s %s%s\n", s.Text, strings.Join(cites, ""), mark)
		}
	}
	if a.Note != "" {
		fmt.Fprintln(w, "\nnote: "+a.Note)
	}
	if a.When != nil {
		fmt.Fprintf(w, "dates: %s\n", spanText(*a.When))
	}
	if len(a.Sources) > 0 {
		label := "Sources"
		if a.Abstained {
			label = "Nearest articles"
		}
		fmt.Fprintf(w, "\n%s:\n", label)
	}
	for _, s := range a.Sources {
		date := "undated"
		if s.PublishedAt != nil {
			date = s.PublishedAt.Format(time.DateOnly)
		}
		fmt.Fprintf(w, "[%d] %s · %s · %s\n    %s  (doc_id %s)\n", s.N, s.Title, s.Host, date, s.URL, s.DocID)
	}
	how := "from the sources' own sentences"
	if a.Mode == ask.ModeModel {
		how = "by " + a.Model
	}
	if !a.Abstained {
		fmt.Fprintf(w, "\n%d of %d sentences supported by their sources; answered %s in %.0f ms.\n", a.Supported, a.Total, how, a.TookMS)
	}
}

func spanText(s ask.Span) string {
	f := func(t *time.Time, open string) string {
		if t == nil {
			return open
		}
		return t.Format(time.DateOnly)
	}
	out := f(s.Since, "the start") + " to " + f(s.Until, "now") + " (exclusive)"
	if s.Phrase != "" {
		out += fmt.Sprintf(", from %q", s.Phrase)
	}
	return out
}
