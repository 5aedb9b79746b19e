package extract_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newscrawl/newscrawl/internal/extract"
	"github.com/newscrawl/newscrawl/internal/extract/heuristic"
	"github.com/newscrawl/newscrawl/internal/extract/llm"
	"github.com/newscrawl/newscrawl/internal/extract/provider"
	"github.com/newscrawl/newscrawl/internal/pipeline"
	"github.com/newscrawl/newscrawl/internal/testenv"
	"github.com/newscrawl/newscrawl/pkg/streamkit"
)

// env is one test's Redis prefix and Postgres schema.
type env struct{ *testenv.Env }

func newEnv(t *testing.T) *env { return &env{testenv.New(t)} }

func (e *env) keys(stage string) streamkit.Keys { return e.Keys(stage) }

// article is a cleaned row to insert.
type article struct {
	docID, title, text string
	duplicateOf        string
	notArticle         bool
}

const defaultText = `PARIS — The city council approved a plan on Monday to plant 10,000 trees along the Seine by 2030. Mayor Anne Hidalgo said the project would cool neighbourhoods during heatwaves. "Paris must adapt now," Hidalgo told reporters.
Opposition councillors from Les Républicains criticised the cost, estimated at 40 million euros. The work starts in the spring.`

// insertCleaned stores a cleaned row and returns the text hash the
// cleaner would publish.
func (e *env) insertCleaned(a article) string {
	e.T.Helper()
	if a.text == "" {
		a.text = defaultText
	}
	if a.title == "" {
		a.title = "Paris to plant 10,000 trees along the Seine"
	}
	hash := pipeline.TextHash(a.text)
	var dup *string
	if a.duplicateOf != "" {
		dup = &a.duplicateOf
	}
	pub := time.Date(2024, 3, 4, 18, 0, 0, 0, time.UTC)
	_, err := e.Pool.Exec(context.Background(), `
		INSERT INTO cleaned (doc_id, body_hash, text_hash, url, title, text, language, authors, published_at, is_article, duplicate_of, site_name)
		VALUES ($1, 'rawhash-'||$1, $2, 'https://news.example/'||$1, $3, $4, 'en', '{"Claire Martin"}', $5, $6, $7, 'Example News')`,
		a.docID, hash, a.title, a.text, pub, !a.notArticle, dup)
	if err != nil {
		e.T.Fatal(err)
	}
	return hash
}

func (e *env) publish(docID, hash string) {
	e.T.Helper()
	e.publishAs(pipeline.FieldTextHash, docID, hash)
}

// publishAs sends an extract message with the text hash in field: the
// cleaner's text_hash, or content_hash as cleaners sent it before the
// rename.
func (e *env) publishAs(field, docID, hash string) {
	e.T.Helper()
	err := e.RDB.XAdd(context.Background(), &redis.XAddArgs{Stream: e.keys(pipeline.Extract).Stream(), Values: map[string]any{
		pipeline.FieldDocID: docID, field: hash, pipeline.FieldURL: "https://news.example/" + docID,
	}}).Err()
	if err != nil {
		e.T.Fatal(err)
	}
}

// consumerOpts tunes the test consumer.
type consumerOpts struct {
	visibility     time.Duration
	handlerTimeout time.Duration
	maxAttempts    int
	concurrency    int
	name           string
	fallback       bool                    // the heuristic extraction as the fallback, as cmd/extractor sets it
	deps           *streamkit.Dependencies // the stage's dependencies (a model breaker); nil: Redis and PostgreSQL only
}

// start runs an extractor consumer with provider p until the test ends.
func (e *env) start(p provider.Provider, o consumerOpts) {
	e.T.Helper()
	e.startStoppable(p, o)
}

// startStoppable is start returning a stop function that cancels the
// consumer and waits for it to return.
func (e *env) startStoppable(p provider.Provider, o consumerOpts) (stop func()) {
	e.T.Helper()
	if o.visibility == 0 {
		o.visibility = time.Second
	}
	if o.maxAttempts == 0 {
		o.maxAttempts = 3
	}
	if o.concurrency == 0 {
		o.concurrency = 2
	}
	cfg := extract.Config{MaxAttempts: o.maxAttempts}
	if o.fallback {
		cfg.Fallback = heuristic.New(heuristic.Config{})
	}
	h := extract.NewHandler(e.Pool, p, cfg)
	return e.Run(streamkit.Config{
		Stage: pipeline.Extract, Group: pipeline.ExtractorGroup, Consumer: o.name,
		Visibility: o.visibility, Block: 100 * time.Millisecond, RetryBase: 50 * time.Millisecond,
		RetryMax: 200 * time.Millisecond, PromoteInterval: 20 * time.Millisecond, GracePeriod: 5 * time.Second,
		MaxAttempts: o.maxAttempts, Concurrency: o.concurrency, BatchSize: 10, JanitorInterval: -1,
		HandlerTimeout: o.handlerTimeout, Dependencies: o.deps, StatusInterval: 100 * time.Millisecond,
		Version: extract.Version(p), Key: extract.Key, Downstream: pipeline.Embed,
	}, h)
}

// openai returns an llm provider against the fake server.
func openai(t *testing.T, f *fakeLLM, mut func(*llm.Config)) *llm.Provider {
	t.Helper()
	cfg := llm.Config{BaseURL: f.URL(), Model: "test-model", Timeout: 5 * time.Second, Limiter: llm.NewLimiter(0, 0, 0)}
	if mut != nil {
		mut(&cfg)
	}
	p, err := llm.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func (e *env) eventually(what string, timeout time.Duration, cond func() bool) {
	e.T.Helper()
	e.Eventually(what, timeout, cond)
}

func (e *env) count(query string, args ...any) int {
	e.T.Helper()
	var n int
	if err := e.Pool.QueryRow(context.Background(), query, args...).Scan(&n); err != nil {
		e.T.Fatalf("%s: %v", query, err)
	}
	return n
}

func (e *env) ledger() int {
	return e.count(`SELECT count(*) FROM stage_results WHERE stage = $1`, pipeline.Extract)
}

func (e *env) dlq() []streamkit.DeadLetter {
	e.T.Helper()
	a := &streamkit.Admin{RDB: e.RDB, Prefix: e.Prefix}
	d, err := a.DLQList(context.Background(), pipeline.Extract, streamkit.DLQFilter{})
	if err != nil {
		e.T.Fatal(err)
	}
	return d
}

// settled waits until nothing is pending or scheduled for retry.
func (e *env) settled() {
	e.T.Helper()
	ctx := context.Background()
	e.eventually("PEL and retry set empty", 10*time.Second, func() bool {
		p, err := e.RDB.XPending(ctx, e.keys(pipeline.Extract).Stream(), pipeline.ExtractorGroup).Result()
		if err != nil {
			return false
		}
		n, err := e.RDB.ZCard(ctx, e.keys(pipeline.Extract).Retry()).Result()
		return err == nil && p.Count == 0 && n == 0
	})
}

// embedEntries lists the messages forwarded to the embedder.
func (e *env) embedEntries() []map[string]any {
	e.T.Helper()
	msgs, err := e.RDB.XRange(context.Background(), e.keys(pipeline.Embed).Stream(), "-", "+").Result()
	if err != nil {
		e.T.Fatal(err)
	}
	out := make([]map[string]any, len(msgs))
	for i, m := range msgs {
		out[i] = m.Values
	}
	return out
}

// storedRow is what a test reads back from extractions.
type storedRow struct {
	Provider, Model, Mode string
	Data                  map[string]any
	Repaired, Truncated   bool
	InputTokens, Requests int
	Dropped               int
	People                []string
	Sentiment             *string
}

func (e *env) row(docID string) storedRow {
	e.T.Helper()
	var r storedRow
	var raw []byte
	err := e.Pool.QueryRow(context.Background(), `
		SELECT provider, model, mode, data, repaired, input_truncated, input_tokens, requests, dropped, people, sentiment
		FROM latest_extractions WHERE doc_id = $1`, docID).Scan(
		&r.Provider, &r.Model, &r.Mode, &raw, &r.Repaired, &r.Truncated, &r.InputTokens, &r.Requests, &r.Dropped, &r.People, &r.Sentiment)
	if err != nil {
		e.T.Fatalf("read extraction of %s: %v", docID, err)
	}
	if err := json.Unmarshal(raw, &r.Data); err != nil {
		e.T.Fatal(err)
	}
	return r
}

// validJSON is a schema-valid answer grounded in defaultText.
func validJSON(mut ...func(map[string]any)) string {
	m := map[string]any{
		"title": "Paris to plant 10,000 trees along the Seine", "summary": "Paris approved a plan to plant 10,000 trees. The mayor said it would cool the city.",
		"language": "en", "published_at": "2024-03-04T18:00:00Z", "authors": []string{"Claire Martin"},
		"people": []string{"Anne Hidalgo"}, "organizations": []string{"Les Républicains"}, "locations": []string{"Paris", "Seine"},
		"topics": []string{"environment", "politics_government"}, "keywords": []string{"trees", "heatwaves"}, "sentiment": "neutral",
		"quotes": []any{map[string]any{"speaker": "Anne Hidalgo", "text": "Paris must adapt now,"}},
	}
	for _, f := range mut {
		f(m)
	}
	b, _ := json.Marshal(m)
	return string(b)
}

func docs(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("doc%d", i)
	}
	return out
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
