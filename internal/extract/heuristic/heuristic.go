// Package heuristic is the extraction provider used when no model server is
// configured: the cleaner's metadata for title, byline, date and language,
// and simple, honest heuristics for the rest (capitalised-phrase entity
// candidates, lead sentences as summary, frequency-scored keywords, lexicon
// topics and tone). Rows it writes are labelled provider "heuristic".
package heuristic

import (
	"context"
	"strings"
	"time"

	"github.com/newscrawl/newscrawl/internal/extract/provider"
	"github.com/newscrawl/newscrawl/internal/extract/schema"
)

// Identity of this provider in stored rows and idempotency keys. Bump
// Revision when the heuristics change enough to re-run them.
const (
	Name     = "heuristic"
	Revision = "heuristic-v1"
	Prompt   = 0 // the heuristic has no prompt
)

// Defaults of Config.
const (
	DefaultSummarySentences = 3
	DefaultSummaryChars     = 600
	DefaultKeywords         = 10
)

// Config tunes the heuristics; zero fields take the defaults.
type Config struct {
	SummarySentences int // lead sentences in the summary (at most)
	SummaryChars     int // summary length budget
	Keywords         int // keywords kept
}

// A Provider extracts without a model.
type Provider struct {
	cfg Config
}

// New returns a heuristic provider.
func New(cfg Config) *Provider {
	if cfg.SummarySentences <= 0 {
		cfg.SummarySentences = DefaultSummarySentences
	}
	if cfg.SummaryChars <= 0 {
		cfg.SummaryChars = DefaultSummaryChars
	}
	if cfg.Keywords <= 0 {
		cfg.Keywords = DefaultKeywords
	}
	return &Provider{cfg: cfg}
}

// Name implements provider.Provider.
func (p *Provider) Name() string { return Name }

// Model implements provider.Provider.
func (p *Provider) Model() string { return Revision }

// PromptVersion implements provider.Provider.
func (p *Provider) PromptVersion() int { return Prompt }

// Extract never fails on content; it returns ctx's error if cancelled.
func (p *Provider) Extract(ctx context.Context, a provider.Article) (provider.Output, error) {
	if err := ctx.Err(); err != nil {
		return provider.Output{}, err
	}
	sentences := provider.Sentences(a.Text)
	ents := findEntities(sentences)
	e := schema.Extraction{
		Title:         strPtr(a.Title),
		Summary:       strPtr(summarise(sentences, p.cfg.SummarySentences, p.cfg.SummaryChars)),
		Authors:       a.Authors,
		People:        ents.people,
		Organizations: ents.orgs,
		Locations:     ents.places,
		Quotes:        findQuotes(sentences, ents),
	}
	if e.Summary == nil {
		e.Summary = strPtr(a.Description)
	}
	if l := strings.ToLower(a.Language); len(l) >= 2 {
		e.Language = strPtr(l[:2])
	}
	if a.PublishedAt != nil && !a.PublishedAt.IsZero() {
		e.PublishedAt = strPtr(a.PublishedAt.UTC().Format(time.RFC3339))
	}
	words := tokens(a.Text)
	english := e.Language == nil || *e.Language == "en"
	e.Keywords = keywords(a.Title, words, ents, p.cfg.Keywords, english)
	if english {
		e.Topics = topics(append(tokens(a.Title+" "+strings.Join(a.Tags, " ")), words...))
		e.Sentiment = strPtr(sentiment(words))
	}
	if err := e.Normalise(); err != nil {
		// Only metadata can fail here (a malformed language code): drop it.
		e.Language = nil
		if err := e.Normalise(); err != nil {
			e.PublishedAt = nil
			_ = e.Normalise()
		}
	}
	return provider.Output{Data: e, Mode: Name}, nil
}

func strPtr(s string) *string {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	return &s
}

// summarise joins the first lead sentences worth reading: at most n, within
// maxChars, skipping fragments of fewer than five words (datelines, credits).
func summarise(sentences []string, n, maxChars int) string {
	var out []string
	size := 0
	for _, s := range sentences {
		if len(out) == n {
			break
		}
		if len(strings.Fields(s)) < 5 {
			continue
		}
		if len(out) > 0 && size+len(s) > maxChars {
			break
		}
		out = append(out, s)
		size += len(s) + 1
	}
	return strings.Join(out, " ")
}
