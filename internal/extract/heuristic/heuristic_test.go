package heuristic_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/newscrawl/newscrawl/internal/extract/heuristic"
	"github.com/newscrawl/newscrawl/internal/extract/provider"
	"github.com/newscrawl/newscrawl/internal/extract/schema"
)

const stormArticle = `BREST, France — A powerful storm swept across western France on Tuesday, cutting power to more than 200,000 homes and forcing the evacuation of coastal villages. Winds of up to 150 km/h were recorded in Brittany, the national weather service Météo-France said.
Prime Minister Gabriel Attal visited a flooded neighbourhood in Brest on Wednesday. "We will rebuild, and the state will stand with every family affected by this disaster," Attal said.
Electricity operator Enedis said 3,000 technicians had been deployed. The Red Cross opened emergency shelters in Quimper and Morlaix.
Climate scientist Valérie Masson-Delmotte told reporters that storms of this strength were becoming more frequent. "The warming ocean gives these storms more energy," Masson-Delmotte said.
Insurers including AXA expect damage claims to exceed 500 million euros, according to the French Insurance Federation.`

const marketArticle = `Shares of Nvidia Corp rose 4% on Thursday after the chipmaker reported record quarterly revenue, beating analysts' forecasts for a fifth straight quarter.
Chief Executive Jensen Huang said demand for its artificial intelligence chips remained strong. "Demand for our data centre products continues to exceed supply," Huang told investors on a call.
The company's revenue grew to $26 billion, up 262% from a year earlier. Analysts at Morgan Stanley raised their price target, citing growth in cloud spending by Microsoft and Amazon.
The Nasdaq Composite index gained 1.2% as technology stocks led the market higher in New York.`

func TestProvider_ExtractsFromRealLookingArticles(t *testing.T) {
	t.Parallel()
	pub := time.Date(2024, 3, 5, 9, 30, 0, 0, time.FixedZone("CET", 3600))
	cases := []struct {
		name          string
		article       provider.Article
		wantPeople    []string
		wantOrgs      []string
		wantPlaces    []string
		wantTopics    []string
		wantSentiment string
		wantSpeaker   string
		wantKeyword   string
		wantSummary   string // prefix
	}{
		{
			name: "storm",
			article: provider.Article{Title: "Storm Ciarán batters Brittany, 200,000 homes without power", Text: stormArticle,
				Language: "en", Authors: []string{"Claire Dupont"}, PublishedAt: &pub},
			wantPeople:    []string{"Gabriel Attal", "Valérie Masson-Delmotte"},
			wantOrgs:      []string{"Red Cross", "AXA"},
			wantPlaces:    []string{"Brest", "France"},
			wantTopics:    []string{"weather", "disaster_accident_emergency"},
			wantSentiment: "negative",
			wantSpeaker:   "Gabriel Attal",
			wantKeyword:   "storm",
			wantSummary:   "BREST, France — A powerful storm swept across western France on Tuesday",
		},
		{
			name:          "market",
			article:       provider.Article{Title: "Nvidia shares rise after record revenue", Text: marketArticle, Language: "en-US"},
			wantPeople:    []string{"Jensen Huang"},
			wantOrgs:      []string{"Nvidia Corp"},
			wantPlaces:    []string{"New York"},
			wantTopics:    []string{"economy_business_finance"},
			wantSentiment: "positive",
			wantSpeaker:   "Jensen Huang",
			wantKeyword:   "revenue",
			wantSummary:   "Shares of Nvidia Corp rose 4% on Thursday",
		},
	}
	p := heuristic.New(heuristic.Config{})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, err := p.Extract(context.Background(), tc.article)
			if err != nil {
				t.Fatal(err)
			}
			e := out.Data
			t.Logf("%+v", e)
			for _, w := range tc.wantPeople {
				if !slices.Contains(e.People, w) {
					t.Errorf("people %q lack %q", e.People, w)
				}
			}
			for _, w := range tc.wantOrgs {
				if !slices.Contains(e.Organizations, w) {
					t.Errorf("organizations %q lack %q", e.Organizations, w)
				}
			}
			for _, w := range tc.wantPlaces {
				if !slices.Contains(e.Locations, w) {
					t.Errorf("locations %q lack %q", e.Locations, w)
				}
			}
			for _, w := range tc.wantTopics {
				if !slices.Contains(e.Topics, w) {
					t.Errorf("topics %q lack %q", e.Topics, w)
				}
			}
			if slices.Contains(e.People, "Enedis") || slices.Contains(e.Locations, "Morgan Stanley") {
				t.Errorf("misclassified: people %q, locations %q", e.People, e.Locations)
			}
			if e.Sentiment == nil || *e.Sentiment != tc.wantSentiment {
				t.Errorf("sentiment = %v, want %s", e.Sentiment, tc.wantSentiment)
			}
			if !slices.Contains(e.Keywords, tc.wantKeyword) {
				t.Errorf("keywords %q lack %q", e.Keywords, tc.wantKeyword)
			}
			if e.Summary == nil || !strings.HasPrefix(*e.Summary, tc.wantSummary) {
				t.Errorf("summary = %v, want lead sentences starting %q", e.Summary, tc.wantSummary)
			}
			if n := len(provider.Sentences(*e.Summary)); n < 2 || n > 3 {
				t.Errorf("summary has %d sentences, want 2-3", n)
			}
			found := false
			for _, q := range e.Quotes {
				found = found || q.Speaker != nil && *q.Speaker == tc.wantSpeaker
			}
			if !found {
				t.Errorf("no quote attributed to %s in %+v", tc.wantSpeaker, e.Quotes)
			}
			if e.Language == nil || *e.Language != "en" {
				t.Errorf("language = %v, want en from the cleaner", e.Language)
			}
			if out.Mode != heuristic.Name || p.Name() != "heuristic" {
				t.Errorf("mode %q / name %q, want heuristic", out.Mode, p.Name())
			}
			// Whatever the heuristic produces must satisfy the same schema as a model.
			if _, err := schema.Validate(mustJSON(t, e)); err != nil {
				t.Errorf("heuristic output does not validate: %v", err)
			}
		})
	}
}

func TestProvider_UsesCleanerMetadataAndInventsNothing(t *testing.T) {
	t.Parallel()
	pub := time.Date(2024, 3, 5, 9, 30, 0, 0, time.FixedZone("CET", 3600))
	p := heuristic.New(heuristic.Config{})
	out, err := p.Extract(context.Background(), provider.Article{Title: "Le conseil municipal adopte le budget", Language: "fr",
		Authors: []string{"Marie Curie"}, PublishedAt: &pub,
		Text: "Le conseil municipal a adopté mardi soir le budget pour l'année prochaine. Les débats ont duré plus de quatre heures."})
	if err != nil {
		t.Fatal(err)
	}
	e := out.Data
	if e.PublishedAt == nil || *e.PublishedAt != "2024-03-05T08:30:00Z" {
		t.Errorf("published_at = %v, want the cleaner's date in UTC", e.PublishedAt)
	}
	if len(e.Authors) != 1 || e.Authors[0] != "Marie Curie" {
		t.Errorf("authors = %q, want the cleaner's byline", e.Authors)
	}
	if e.Sentiment != nil || len(e.Topics) != 0 {
		t.Errorf("non-English text: sentiment %v and topics %q should be left empty, not guessed", e.Sentiment, e.Topics)
	}
	if len(e.People)+len(e.Organizations)+len(e.Locations)+len(e.Quotes) != 0 {
		t.Errorf("invented entities/quotes: %+v", e)
	}

	empty, err := p.Extract(context.Background(), provider.Article{})
	if err != nil {
		t.Fatal(err)
	}
	if empty.Data.Title != nil || empty.Data.Summary != nil || empty.Data.PublishedAt != nil || empty.Data.Language != nil {
		t.Errorf("empty article gave non-null fields: %+v", empty.Data)
	}
}
