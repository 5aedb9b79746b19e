// Package ask answers questions from the archive: it retrieves the
// question's sources through the hybrid search (one passage per article,
// copies collapsed, a time phrase read as a date filter), abstains when
// none is close enough, and answers with a chat model or, without one,
// with the sources' own sentences. Every sentence shown cites numbered
// sources the server lists, and is checked against them first.
package ask

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/newscrawl/newscrawl/internal/search"
)

// Defaults of Config.
const (
	DefaultK            = 5    // sources listed
	DefaultMinRelevance = 0.65 // share of the question's weighted words the best source must hold
	candidates          = 20   // documents retrieved before collapsing and ranking
	maxSentences        = 3    // in an extractive answer
)

// Modes of an answer.
const (
	ModeModel      = "model"
	ModeExtractive = "extractive"
)

// Config is what an Asker needs. Searcher is required.
type Config struct {
	Searcher *search.Searcher
	// Model answers from the sources; nil answers extractively.
	Model Model
	// Now is today for time phrases ("last week"); nil is time.Now.
	Now func() time.Time
	// MinRelevance is the weighted share of the question's words the best
	// source must hold to be answered from (DefaultMinRelevance).
	MinRelevance float64
	Metrics      *Metrics // nil: not counted
	Log          *slog.Logger
}

// An Asker answers questions. It is safe for concurrent use.
type Asker struct {
	cfg Config
}

// New returns an Asker over cfg.
func New(cfg Config) (*Asker, error) {
	if cfg.Searcher == nil {
		return nil, errors.New("ask: a searcher is required")
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.MinRelevance <= 0 {
		cfg.MinRelevance = DefaultMinRelevance
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	return &Asker{cfg: cfg}, nil
}

// HasModel reports whether answers come from a chat model when it answers.
func (a *Asker) HasModel() bool { return a.cfg.Model != nil }

// A Request is one question and its filters.
type Request struct {
	Question string     `json:"question"`
	Since    *time.Time `json:"since,omitempty"` // override the question's own time phrase
	Until    *time.Time `json:"until,omitempty"`
	Host     string     `json:"host,omitempty"`
	Lang     string     `json:"lang,omitempty"`
	K        int        `json:"k,omitempty"`      // sources listed, DefaultK
	Strict   bool       `json:"strict,omitempty"` // drop unsupported sentences
}

// An Answer is what ask shows: the sentences, each citing numbered sources,
// and the sources themselves.
type Answer struct {
	Question  string     `json:"question"`
	Mode      string     `json:"mode"` // model or extractive
	Abstained bool       `json:"abstained"`
	Sentences []Sentence `json:"sentences"`
	Sources   []Source   `json:"sources"`
	Supported int        `json:"supported"` // sentences backed by what they cite
	Total     int        `json:"total"`     // sentences shown
	Note      string     `json:"note,omitempty"`
	When      *Span      `json:"when,omitempty"` // the dates the answer was drawn from
	Model     string     `json:"model,omitempty"`
	TookMS    float64    `json:"took_ms"`
}

// A Sentence of an answer and the sources it cites.
type Sentence struct {
	Text      string `json:"text"`
	Citations []int  `json:"citations"`
	Supported bool   `json:"supported"`
}

// A Source is one numbered article of the answer.
type Source struct {
	N           int        `json:"n"`
	DocID       string     `json:"doc_id"`
	URL         string     `json:"url"`
	Title       string     `json:"title"`
	Host        string     `json:"host"`
	PublishedAt *time.Time `json:"published_at"`
	// Relevance is the weighted share of the question's words the source
	// holds.
	Relevance float64 `json:"relevance"`

	passage string // the best chunk, instructions taken out
}

// Ask answers r. Errors: a *search.InvalidError for a bad question or
// filter, a *search.ModelError when nothing is embedded yet, otherwise a
// database error. A model that fails never fails the question: the answer
// falls back to extractive and Note says why.
func (a *Asker) Ask(ctx context.Context, r Request) (Answer, error) {
	start := time.Now()
	ans, err := a.ask(ctx, r)
	ans.TookMS = float64(time.Since(start).Microseconds()) / 1000
	if err == nil {
		a.cfg.Metrics.observe(ans, time.Since(start))
	}
	return ans, err
}

func (a *Asker) ask(ctx context.Context, r Request) (Answer, error) {
	if r.K == 0 {
		r.K = DefaultK
	}
	if r.K < 1 || r.K > 20 {
		return Answer{}, &search.InvalidError{Msg: fmt.Sprintf("k must be between 1 and 20, got %d", r.K)}
	}
	q := search.Query{Text: r.Question, Host: r.Host, Lang: r.Lang, K: candidates}
	if err := q.Normalize(); err != nil { // the question's own checks: length, UTF-8, control characters
		return Answer{}, err
	}
	ans := Answer{Question: q.Text, Mode: ModeExtractive, Sentences: []Sentence{}, Sources: []Source{}}
	rest, span := spanOf(q.Text, a.cfg.Now().UTC())
	if r.Since != nil {
		span.Since = r.Since
	}
	if r.Until != nil {
		span.Until = r.Until
	}
	if span.Since != nil || span.Until != nil {
		ans.When = &span
	}
	words := contentWords(rest)
	if len(words) == 0 {
		ans.Abstained = true
		ans.Note = "the question names nothing to look for: ask about a person, place, event or subject"
		return ans, nil
	}
	q.Text, q.Since, q.Until, q.Undated = rest, span.Since, span.Until, true
	if err := q.Normalize(); err != nil {
		return Answer{}, err
	}
	found, err := a.cfg.Searcher.Answer(ctx, q)
	if err != nil {
		return Answer{}, err
	}
	weights, err := a.weights(ctx, words, q.Lang)
	if err != nil {
		return Answer{}, err
	}
	found.Results = dated(found.Results, span)
	held := make([]map[string]bool, len(found.Results))
	titles := make([]map[string]bool, len(found.Results))
	for i, res := range found.Results {
		passage, _ := quarantine(res.Passage)
		found.Results[i].Passage = passage
		held[i], titles[i] = stems(res.Title+"\n"+passage), stems(res.Title)
	}
	phrasing(words, weights, held)
	topic := topical(words, titles)
	ans.Sources = rank(found.Results, held, question{words, weights, topic, namePairs(rest)}, r.K)
	if len(ans.Sources) == 0 || ans.Sources[0].Relevance < a.cfg.MinRelevance {
		ans.Abstained = true
		ans.Note = "the archive holds nothing close enough to answer this"
		if len(ans.Sources) > 0 {
			ans.Note += "; the nearest articles are listed"
		}
		return ans, nil
	}
	if a.cfg.Model != nil {
		if ok := a.modelAnswer(ctx, &ans, r.Strict); ok {
			return ans, nil
		}
	}
	a.extractive(&ans, words, weights)
	return ans, nil
}

// weights are the words' inverse document frequencies over the chunks:
// a rare word ("bridge") says more about what is asked than a common one.
func (a *Asker) weights(ctx context.Context, words []token, lang string) ([]float64, error) {
	terms := make([]string, len(words))
	for i, w := range words {
		terms[i] = w.stem
	}
	total, counts, err := a.cfg.Searcher.Frequencies(ctx, searchable(terms), lang)
	if err != nil {
		return nil, err
	}
	out := make([]float64, len(words))
	for i := range words {
		out[i] = math.Log(float64(total+1) / float64(counts[i]+1))
		if out[i] < 0.1 {
			out[i] = 0.1
		}
	}
	return out, nil
}

// searchable keeps only letters and digits of each stem: what to_tsquery
// reads as a plain word.
func searchable(terms []string) []string {
	out := make([]string, len(terms))
	for i, t := range terms {
		out[i] = strings.Join(wordPattern.FindAllString(strings.NewReplacer("'", " ", "’", " ", ".", "", ",", "").Replace(t), -1), "")
		if out[i] == "" {
			out[i] = "x"
		}
	}
	return out
}

// phrasing lowers the weight of question words that no retrieved article
// holds: the words a question is put in ("conclude", "go ahead") rather
// than what it is about, which a rare word's weight would otherwise let
// decide. A word of the topic that the archive lacks still counts, at the
// weight of a common word.
func phrasing(words []token, weights []float64, held []map[string]bool) {
	for i, w := range words {
		if !holdsAny(held, w) {
			weights[i] = min(weights[i], 1)
		}
	}
}

// topical reports which words name what a story is about: those in the
// title of some retrieved article ("editor", "footbridge", a town), not
// the verbs a question or a story is told with ("stop work", "vote").
func topical(words []token, titles []map[string]bool) []bool {
	topic := make([]bool, len(words))
	for i, w := range words {
		topic[i] = holdsAny(titles, w)
	}
	return topic
}

func holdsAny(sets []map[string]bool, w token) bool {
	return slices.ContainsFunc(sets, func(h map[string]bool) bool { return h[w.stem] || (!w.number && prefixed(h, w.stem)) })
}

// dated drops the results outside the span whose date is the day they
// were first seen (the search kept every undated page).
func dated(results []search.Result, span Span) []search.Result {
	return slices.DeleteFunc(results, func(r search.Result) bool { return r.PublishedAt == nil && !span.holds(r.FirstSeen) })
}

// rank turns search results into the answer's numbered sources: copies of
// one story collapsed onto the original, each scored by the weighted share
// of the question's words its title and passage hold (relevance), best
// first, k at most. A source that lacks a name the question gives (a town, a person)
// is about something else, whatever else it shares: its relevance counts
// only what it holds of the rest, halved.
func rank(results []search.Result, held []map[string]bool, q question, k int) []Source {
	type scored struct {
		src   Source
		score float64
	}
	// Copies of one story on several sites (the same title) collapse onto
	// the one first seen, at the best rank of any of them.
	keyOf := func(r search.Result) string { return strings.ToLower(strings.Join(strings.Fields(r.Title), " ")) }
	original := map[string]int{}
	for i, res := range results {
		key := keyOf(res)
		if j, ok := original[key]; !ok || key != "" && earlier(res.FirstSeen, results[j].FirstSeen) {
			original[key] = i
		}
	}
	var out []scored
	done := map[string]bool{}
	for rankOf, res := range results {
		key := keyOf(res)
		i := rankOf
		if key != "" {
			if done[key] {
				continue
			}
			done[key], i = true, original[key]
			res = results[i]
		}
		rel := relevance(held[i], q.words, q.weights, q.topic)
		if !holdsNames(held[i], q) {
			rel /= 2
		}
		src := Source{DocID: res.DocID, URL: res.URL, Title: res.Title, Host: res.Host, PublishedAt: res.PublishedAt,
			Relevance: math.Round(rel*1000) / 1000, passage: res.Passage}
		// The fused rank breaks ties and lifts what the vectors found
		// beyond shared words.
		out = append(out, scored{src, 0.8*rel + 0.2*(1-float64(rankOf)/float64(len(results)))})
	}
	sort.SliceStable(out, func(x, y int) bool { return out[x].score > out[y].score })
	ranked := make([]Source, 0, min(k, len(out)))
	for _, s := range out[:min(k, len(out))] {
		s.src.N = len(ranked) + 1
		ranked = append(ranked, s.src)
	}
	return ranked
}

func earlier(a, b *time.Time) bool { return a != nil && (b == nil || a.Before(*b)) }

// A question is what a source is judged by: its words, their weights,
// which are of its topic, and its names of two words.
type question struct {
	words   []token
	weights []float64
	topic   []bool
	pairs   []string
}

// holdsNames reports whether have holds every name of the question, and
// every name of two words as two adjacent words.
func holdsNames(have map[string]bool, q question) bool {
	for _, w := range q.words {
		if w.name && !have[w.stem] {
			return false
		}
	}
	for _, p := range q.pairs {
		if !have[p] {
			return false
		}
	}
	return true
}

// holds reports whether t is within the span; an unknown time is not.
func (s Span) holds(t *time.Time) bool {
	if s.Since == nil && s.Until == nil {
		return true
	}
	if t == nil {
		return false
	}
	return (s.Since == nil || !t.Before(*s.Since)) && (s.Until == nil || t.Before(*s.Until))
}

// coverage is the weighted share of words found in have.
func coverage(have map[string]bool, words []token, weights []float64) float64 {
	var got, all float64
	for i, w := range words {
		all += weights[i]
		if have[w.stem] || (!w.number && prefixed(have, w.stem)) {
			got += weights[i]
		}
	}
	if all == 0 {
		return 0
	}
	return got / all
}

// relevance is how much of the question a source holds: the weighted
// share of its words, times the plain share of its topic words (see
// topical). The weights let a rare name count for
// more than a common word; the plain share keeps a source that holds the
// name but not the thing asked about ("the trust's editor", when it named
// a finance director) from passing on the name alone.
func relevance(have map[string]bool, words []token, weights []float64, topic []bool) float64 {
	n, got := 0, 0
	for i, w := range words {
		if !topic[i] {
			continue
		}
		n++
		if have[w.stem] || (!w.number && prefixed(have, w.stem)) {
			got++
		}
	}
	rel := coverage(have, words, weights)
	if n > 0 {
		rel *= float64(got) / float64(n)
	}
	return rel
}
