package embed_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"

	"github.com/newscrawl/newscrawl/internal/embed"
	"github.com/newscrawl/newscrawl/internal/embed/chunk"
	"github.com/newscrawl/newscrawl/internal/embed/embedtest"
	"github.com/newscrawl/newscrawl/internal/embed/local"
	"github.com/newscrawl/newscrawl/internal/embed/openai"
	"github.com/newscrawl/newscrawl/internal/pipeline"
	"github.com/newscrawl/newscrawl/internal/testenv"
	"github.com/newscrawl/newscrawl/pkg/streamkit"
)

var chunkCfg = chunk.Config{TargetTokens: 40, OverlapTokens: 8}

func newStage(t *testing.T, pool *pgxpool.Pool, e embed.Embedder) *embed.Stage {
	t.Helper()
	st, err := embed.NewStage(pool, embed.Config{Embedder: e, Chunk: chunkCfg, Batch: 4})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func longText(topic string, sentences int) string {
	var b strings.Builder
	for i := range sentences {
		fmt.Fprintf(&b, "Sentence %d of the report on %s gives more detail about what happened. ", i, topic)
		if i%4 == 3 {
			b.WriteString("\n\n")
		}
	}
	return b.String()
}

// chunkRows returns body_hash -> row count for a doc and model.
func chunkRows(t *testing.T, pool *pgxpool.Pool, docID string, id embed.Identity) map[string]int {
	t.Helper()
	rows, err := pool.Query(context.Background(), `SELECT body_hash, count(*) FROM chunks
		WHERE doc_id = $1 AND model = $2 AND dims = $3 GROUP BY 1`, docID, id.Model, id.Dims)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var h string
		var n int
		if err := rows.Scan(&h, &n); err != nil {
			t.Fatal(err)
		}
		out[h] = n
	}
	return out
}

func TestStage_ReplacesChunksOnContentChange(t *testing.T) {
	t.Parallel()
	pool := testenv.Postgres(t)
	e := local.New(local.Config{})
	st := newStage(t, pool, e)
	tests := []struct {
		name    string
		before  string
		after   string
		wantNil bool // the document ends with no chunks
	}{
		{name: "long to short", before: longText("floods", 30), after: "One short paragraph now."},
		{name: "short to long", before: "Short.", after: longText("storms", 25)},
		{name: "text to empty", before: longText("fires", 10), after: "", wantNil: true},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := embedtest.Article{DocID: fmt.Sprintf("doc%d", i), Title: "Report", Text: tc.before, Host: "example.com", Language: "en"}
			embedtest.Insert(t, pool, a)
			embedtest.Embed(t, pool, st, a)
			if got := chunkRows(t, pool, a.DocID, e.Identity()); got[a.BodyHash()] != len(chunk.Split(chunkCfg, a.Title, a.Text)) {
				t.Fatalf("before: rows %v", got)
			}
			a.Text = tc.after
			embedtest.Insert(t, pool, a)
			embedtest.Embed(t, pool, st, a)
			got := chunkRows(t, pool, a.DocID, e.Identity())
			want := len(chunk.Split(chunkCfg, a.Title, a.Text))
			if (tc.wantNil && len(got) != 0) || (!tc.wantNil && (len(got) != 1 || got[a.BodyHash()] != want)) {
				t.Fatalf("after: rows by hash %v, want only %d of %s", got, want, a.BodyHash())
			}
		})
	}
}

func TestStage_SkipsUnchangedDocument(t *testing.T) {
	t.Parallel()
	pool := testenv.Postgres(t)
	st := newStage(t, pool, local.New(local.Config{}))
	a := embedtest.Article{DocID: "same", Title: "T", Text: longText("rates", 8), Host: "h"}
	embedtest.Insert(t, pool, a)
	embedtest.Embed(t, pool, st, a)
	res, err := st.Handle(context.Background(), &streamkit.Message{Fields: map[string]string{"doc_id": "same", "text_hash": a.TextHash()}})
	if err != nil || res.Commit != nil || res.DocID != "same" {
		t.Fatalf("second handle: commit %v err %v; want nothing to commit", res.Commit != nil, err)
	}
}

func TestStage_ModelSwitchCoexists(t *testing.T) {
	t.Parallel()
	pool := testenv.Postgres(t)
	small, big := local.New(local.Config{Dims: 64}), local.New(local.Config{})
	for _, e := range []embed.Embedder{small, big} {
		if err := embed.EnsureModel(context.Background(), pool, e.Identity(), true, embed.PrecisionAuto); err != nil {
			t.Fatal(err)
		}
	}
	a := embedtest.Article{DocID: "d", Title: "T", Text: longText("trade", 12), Host: "h"}
	embedtest.Insert(t, pool, a)
	embedtest.Embed(t, pool, newStage(t, pool, big), a)
	old := a.BodyHash()
	a.Text = longText("tariffs", 6)
	embedtest.Insert(t, pool, a)
	embedtest.Embed(t, pool, newStage(t, pool, small), a)

	if got := chunkRows(t, pool, "d", big.Identity()); len(got) != 1 || got[old] == 0 {
		t.Fatalf("384-d rows %v: want the old content's rows kept", got)
	}
	if got := chunkRows(t, pool, "d", small.Identity()); len(got) != 1 || got[a.BodyHash()] == 0 {
		t.Fatalf("64-d rows %v: want the new content's rows", got)
	}
	var models int
	if err := pool.QueryRow(context.Background(), `SELECT count(*) FROM embed_models`).Scan(&models); err != nil || models != 2 {
		t.Fatalf("embed_models rows %d (%v), want 2", models, err)
	}
	var idx int
	if err := pool.QueryRow(context.Background(), `SELECT count(*) FROM pg_indexes WHERE indexname = $1`,
		embed.IndexName(small.Identity())).Scan(&idx); err != nil || idx != 1 {
		t.Fatalf("HNSW index for the 64-d model: %d (%v)", idx, err)
	}
}

// env runs the stage under a real streamkit.Consumer.
type env struct{ *testenv.Env }

func newEnv(t *testing.T) *env { return &env{testenv.New(t)} }

func (e *env) keys() streamkit.Keys { return e.Keys(pipeline.Embed) }

func (e *env) publish(docIDs ...string) {
	e.T.Helper()
	for _, d := range docIDs {
		err := e.RDB.XAdd(context.Background(), &redis.XAddArgs{Stream: e.keys().Stream(),
			Values: map[string]any{"doc_id": d, "text_hash": "h-" + d, "url": "https://x/" + d}}).Err()
		if err != nil {
			e.T.Fatal(err)
		}
	}
}

func (e *env) run(st *embed.Stage, version string) {
	e.T.Helper()
	e.Run(streamkit.Config{
		Stage: pipeline.Embed, Group: pipeline.EmbedderGroup, Version: version, Key: embed.Key,
		Visibility: 2 * time.Second, Block: 100 * time.Millisecond, RetryBase: time.Minute,
		PromoteInterval: 50 * time.Millisecond, Concurrency: 2, BatchSize: 10, JanitorInterval: -1,
	}, st)
}

func (e *env) eventually(what string, cond func() bool) {
	e.T.Helper()
	e.Eventually(what, 15*time.Second, cond)
}

func (e *env) count(sql string, args ...any) int {
	var n int
	if err := e.Pool.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		e.T.Fatal(err)
	}
	return n
}

// dlqTypes returns the error types in the DLQ.
func (e *env) dlqTypes() []string {
	msgs, err := e.RDB.XRange(context.Background(), e.keys().DLQ(), "-", "+").Result()
	if err != nil {
		e.T.Fatal(err)
	}
	var out []string
	for _, m := range msgs {
		out = append(out, fmt.Sprint(m.Values[streamkit.DLQFieldErrorType]))
	}
	return out
}

func TestStage_ThroughConsumer(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	emb := local.New(local.Config{})
	var docs []string
	for i := range 6 {
		a := embedtest.Article{DocID: fmt.Sprintf("doc%d", i), Title: "Title", Text: longText("topic", 5+i), Host: "news.example"}
		embedtest.Insert(t, e.Pool, a)
		docs = append(docs, a.DocID)
	}
	e.publish(append(docs, "missing-doc")...)
	e.run(newStage(t, e.Pool, emb), emb.Identity().Version())

	e.eventually("6 ledger rows and an empty PEL", func() bool {
		p, _ := e.RDB.XPending(context.Background(), e.keys().Stream(), pipeline.EmbedderGroup).Result()
		return e.count(`SELECT count(*) FROM stage_results WHERE stage = 'embed'`) == 6 && p != nil && p.Count == 0
	})
	if n := e.count(`SELECT count(DISTINCT doc_id) FROM chunks`); n != 6 {
		t.Fatalf("%d documents have chunks, want 6", n)
	}
	var key string
	if err := e.Pool.QueryRow(context.Background(), `SELECT key FROM stage_results WHERE doc_id = 'doc0'`).Scan(&key); err != nil ||
		!strings.HasSuffix(key, ":"+emb.Identity().Version()) {
		t.Fatalf("ledger key %q (%v): want the model@dims version suffix", key, err)
	}
	if got := e.dlqTypes(); len(got) != 1 || got[0] != embed.ErrTypeMissingInput {
		t.Fatalf("DLQ error types %v, want [missing_input]", got)
	}
}

// modelServer answers /v1/embeddings with a scripted status or vector length.
type modelServer struct {
	mu     sync.Mutex
	status int
	dims   int
	inputs []int // inputs per request, in order
}

func (s *modelServer) requests() []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]int(nil), s.inputs...)
}

func (s *modelServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct{ Input []string }
	_ = json.NewDecoder(r.Body).Decode(&req)
	s.mu.Lock()
	s.inputs = append(s.inputs, len(req.Input))
	status, dims := s.status, s.dims
	s.mu.Unlock()
	if status != 0 {
		w.Header().Set("Retry-After", "30")
		w.WriteHeader(status)
		return
	}
	var data []map[string]any
	for i := range req.Input {
		v := make([]float32, dims)
		v[i%dims] = 1
		data = append(data, map[string]any{"index": i, "embedding": v})
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"data": data})
}

func TestStage_ProviderFailures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		server    *modelServer
		wantDLQ   []string
		wantRetry int64
		wantRows  int
	}{
		{name: "batched success", server: &modelServer{dims: 16}, wantRows: 1},
		{name: "429 waits in the retry set", server: &modelServer{status: 429}, wantRetry: 1},
		{name: "500 is retried", server: &modelServer{status: 500}, wantRetry: 1},
		{name: "dimension mismatch is dead-lettered", server: &modelServer{dims: 12}, wantDLQ: []string{embed.ErrTypeDimensionMismatch}},
		{name: "400 is dead-lettered", server: &modelServer{status: 400}, wantDLQ: []string{embed.ErrTypeRejected}},
		// Without a probe registered (TestStage_RefusedModelPauses has one) a
		// misnamed model is retried, never dead-lettered.
		{name: "404 (a misnamed model) is retried", server: &modelServer{status: 404}, wantRetry: 1},
		{name: "401 is retried", server: &modelServer{status: 401}, wantRetry: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			srv := httptest.NewServer(tc.server)
			t.Cleanup(srv.Close)
			emb, err := openai.New(openai.Config{BaseURL: srv.URL + "/v1", Model: "fake", Dims: 16})
			if err != nil {
				t.Fatal(err)
			}
			embedtest.Insert(t, e.Pool, embedtest.Article{DocID: "d", Title: "T", Text: longText("x", 20), Host: "h"})
			e.publish("d")
			e.run(newStage(t, e.Pool, emb), emb.Identity().Version())
			e.eventually("the entry to leave the PEL", func() bool {
				p, _ := e.RDB.XPending(context.Background(), e.keys().Stream(), pipeline.EmbedderGroup).Result()
				return p != nil && p.Count == 0 && len(tc.server.requests()) > 0
			})
			if got := e.dlqTypes(); fmt.Sprint(got) != fmt.Sprint(tc.wantDLQ) {
				t.Fatalf("DLQ %v, want %v", got, tc.wantDLQ)
			}
			if n, _ := e.RDB.ZCard(context.Background(), e.keys().Retry()).Result(); n != tc.wantRetry {
				t.Fatalf("retry set has %d, want %d", n, tc.wantRetry)
			}
			if n := e.count(`SELECT count(*) FROM stage_results`); n != tc.wantRows {
				t.Fatalf("%d ledger rows, want %d", n, tc.wantRows)
			}
			if tc.wantRows > 0 {
				// newStage embeds 4 inputs per request: the chunks go in full batches.
				n := e.count(`SELECT count(*) FROM chunks WHERE model = 'fake' AND dims = 16`)
				var want []int
				for left := n; left > 0; left -= 4 {
					want = append(want, min(left, 4))
				}
				if got := tc.server.requests(); n < 5 || fmt.Sprint(got) != fmt.Sprint(want) {
					t.Fatalf("%d chunks stored in requests of %v inputs, want %v (batches of 4, more than one)", n, got, want)
				}
			}
		})
	}
}

func TestStage_SkipsDuplicatesAndNonArticles(t *testing.T) {
	t.Parallel()
	pool := testenv.Postgres(t)
	e := local.New(local.Config{})
	tests := []struct {
		name           string
		update         string
		includeSkipped bool
		wantChunks     bool
	}{
		{name: "article", update: ``, wantChunks: true},
		{name: "non-article", update: `UPDATE cleaned SET is_article = false WHERE doc_id = $1`},
		{name: "duplicate", update: `UPDATE cleaned SET duplicate_of = 'first' WHERE doc_id = $1`},
		{name: "duplicate included", update: `UPDATE cleaned SET duplicate_of = 'first' WHERE doc_id = $1`, includeSkipped: true, wantChunks: true},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := embedtest.Article{DocID: fmt.Sprintf("s%d", i), Title: "T", Text: longText("x", 6), Host: "h"}
			embedtest.Insert(t, pool, a)
			embedtest.Embed(t, pool, newStage(t, pool, e), a) // chunks before the cleaner's verdict
			if tc.update != "" {
				if _, err := pool.Exec(context.Background(), tc.update, a.DocID); err != nil {
					t.Fatal(err)
				}
				// The verdict came with new content: the message is processed again.
				if _, err := pool.Exec(context.Background(), `UPDATE cleaned SET body_hash = 'v2' WHERE doc_id = $1`, a.DocID); err != nil {
					t.Fatal(err)
				}
			}
			st, err := embed.NewStage(pool, embed.Config{Embedder: e, Chunk: chunkCfg, IncludeSkipped: tc.includeSkipped})
			if err != nil {
				t.Fatal(err)
			}
			embedtest.Embed(t, pool, st, a)
			if got := len(chunkRows(t, pool, a.DocID, e.Identity())) > 0; got != tc.wantChunks {
				t.Fatalf("has chunks %v, want %v", got, tc.wantChunks)
			}
		})
	}
}

// Two embedders handling the same new document both skip the DELETE: the
// one that commits second must fail on the primary key and leave the
// first one's chunks, and its retry (which now finds them) replaces them.
func TestStage_RacingNewDocumentFailsThenReplaces(t *testing.T) {
	t.Parallel()
	pool := testenv.Postgres(t)
	e := local.New(local.Config{})
	st := newStage(t, pool, e)
	ctx := context.Background()
	a := embedtest.Article{DocID: "race", Title: "Race", Text: longText("tides", 12), Host: "h", Language: "en"}
	embedtest.Insert(t, pool, a)
	msg := &streamkit.Message{ID: "0-1", Stage: pipeline.Embed, Fields: map[string]string{
		pipeline.FieldDocID: a.DocID, pipeline.FieldTextHash: a.TextHash(), pipeline.FieldURL: a.URL()}}
	commit := func(res streamkit.Result) error {
		tx, err := pool.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback(ctx)
		if err := res.Commit(ctx, tx); err != nil {
			return err
		}
		return tx.Commit(ctx)
	}
	first, err := st.Handle(ctx, msg)
	if err != nil {
		t.Fatal(err)
	}
	second, err := st.Handle(ctx, msg)
	if err != nil {
		t.Fatal(err)
	}
	if err := commit(first); err != nil {
		t.Fatalf("first commit: %v", err)
	}
	if err := commit(second); err == nil || !strings.Contains(err.Error(), "chunks_pkey") {
		t.Fatalf("second commit of a document both saw as new: err %v, want a primary key violation", err)
	}
	want := len(chunk.Split(chunkCfg, a.Title, a.Text))
	if got := chunkRows(t, pool, a.DocID, e.Identity()); got[a.BodyHash()] != want || len(got) != 1 {
		t.Fatalf("after the failed commit: rows by hash %v, want %d", got, want)
	}
	a.Text = longText("currents", 5)
	embedtest.Insert(t, pool, a)
	embedtest.Embed(t, pool, st, a)
	if got := chunkRows(t, pool, a.DocID, e.Identity()); len(got) != 1 || got[a.BodyHash()] != len(chunk.Split(chunkCfg, a.Title, a.Text)) {
		t.Fatalf("after the retry: rows by hash %v", got)
	}
}

// A document longer than MaxChunks gets its first MaxChunks chunks, not a
// commit of thousands.
func TestStage_ChunksPerDocumentAreBounded(t *testing.T) {
	t.Parallel()
	pool := testenv.Postgres(t)
	e := local.New(local.Config{})
	st, err := embed.NewStage(pool, embed.Config{Embedder: e, Chunk: chunkCfg, MaxChunks: 5})
	if err != nil {
		t.Fatal(err)
	}
	a := embedtest.Article{DocID: "huge", Host: "news.example", Title: "A very long report", Text: longText("the harbour", 400)}
	embedtest.Insert(t, pool, a)
	embedtest.Embed(t, pool, st, a)
	if got := chunkRows(t, pool, "huge", e.Identity()); got[a.BodyHash()] != 5 {
		t.Fatalf("chunks stored: %v, want 5 (the limit)", got)
	}
}

// countingEmbedder counts the inputs it embeds.
type countingEmbedder struct {
	embed.Embedder
	mu     sync.Mutex
	inputs int
}

func (c *countingEmbedder) Embed(ctx context.Context, inputs []string, kind embed.Kind) ([][]float32, error) {
	c.mu.Lock()
	c.inputs += len(inputs)
	c.mu.Unlock()
	return c.Embedder.Embed(ctx, inputs, kind)
}

func (c *countingEmbedder) embedded() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.inputs
}

// publishFields sends one embed message as given.
func (e *env) publishFields(fields map[string]any) string {
	e.T.Helper()
	id, err := e.RDB.XAdd(context.Background(), &redis.XAddArgs{Stream: e.keys().Stream(), Values: fields}).Result()
	if err != nil {
		e.T.Fatal(err)
	}
	return id
}

// settledAfter waits until the group has read id and nothing is pending.
func (e *env) settledAfter(id string) {
	e.T.Helper()
	e.eventually("the group to have handled "+id, func() bool {
		groups, err := e.RDB.XInfoGroups(context.Background(), e.keys().Stream()).Result()
		if err != nil || len(groups) != 1 {
			return false
		}
		return groups[0].LastDeliveredID == id && groups[0].Pending == 0
	})
}

// ledgerKeys lists the embed stage's ledger keys.
func (e *env) ledgerKeys() []string {
	e.T.Helper()
	rows, err := e.Pool.Query(context.Background(), `SELECT key FROM stage_results WHERE stage = 'embed' ORDER BY key`)
	if err != nil {
		e.T.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			e.T.Fatal(err)
		}
		out = append(out, k)
	}
	return out
}

// An embed message sent before the hash fields were renamed carries the
// text hash as content_hash. It is embedded under the key a text_hash
// message has, so the new message for the same text is answered from the
// ledger without embedding again.
func TestStage_OldFormatMessageKeepsItsKey(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	emb := &countingEmbedder{Embedder: local.New(local.Config{})}
	a := embedtest.Article{DocID: "doc", Title: "Report", Text: longText("floods", 12), Host: "news.example"}
	embedtest.Insert(t, e.Pool, a)
	e.run(newStage(t, e.Pool, emb), emb.Identity().Version())

	e.settledAfter(e.publishFields(map[string]any{"doc_id": a.DocID, "content_hash": a.TextHash(), "url": a.URL()}))
	chunks := len(chunk.Split(chunkCfg, a.Title, a.Text))
	if got := chunkRows(t, e.Pool, a.DocID, emb.Identity()); got[a.BodyHash()] != chunks || emb.embedded() != chunks {
		t.Fatalf("after the old-format message: rows %v, %d inputs embedded; want %d of each", got, emb.embedded(), chunks)
	}
	e.settledAfter(e.publishFields(map[string]any{"doc_id": a.DocID, "text_hash": a.TextHash(), "url": a.URL()}))

	want := pipeline.LedgerKey(pipeline.Embed, a.DocID, a.TextHash(), emb.Identity().Version())
	if got := e.ledgerKeys(); len(got) != 1 || got[0] != want {
		t.Fatalf("ledger keys %v, want only %s", got, want)
	}
	if emb.embedded() != chunks {
		t.Fatalf("%d inputs embedded, want %d: the new-format message embedded again", emb.embedded(), chunks)
	}
	if got := e.dlqTypes(); len(got) != 0 {
		t.Fatalf("dead letters %v, want none", got)
	}
}

// A server that does not serve the configured model (404) pauses the stage
// with a probe registered, as the embedder binary registers one: the entry
// stays pending, no attempt spent, nothing dead-lettered; once the server
// serves the model, the probe passes and the document is embedded.
func TestStage_RefusedModelPausesUntilFixed(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	server := &modelServer{status: 404, dims: 16}
	srv := httptest.NewServer(server)
	t.Cleanup(srv.Close)
	emb, err := openai.New(openai.Config{BaseURL: srv.URL + "/v1", Model: "fake", Dims: 16})
	if err != nil {
		t.Fatal(err)
	}
	deps := streamkit.StandardDependencies(e.RDB, e.Pool, nil)
	t.Cleanup(deps.Close)
	deps.Add(embed.Dependency, embed.Probe(emb), nil)
	embedtest.Insert(t, e.Pool, embedtest.Article{DocID: "d", Title: "T", Text: longText("x", 20), Host: "h"})
	e.publish("d")
	e.Run(streamkit.Config{
		Stage: pipeline.Embed, Group: pipeline.EmbedderGroup, Version: emb.Identity().Version(), Key: embed.Key,
		Visibility: 2 * time.Second, Block: 100 * time.Millisecond, RetryBase: 50 * time.Millisecond,
		PromoteInterval: 50 * time.Millisecond, Concurrency: 2, BatchSize: 10, JanitorInterval: -1, Dependencies: deps,
	}, newStage(t, e.Pool, emb))

	e.eventually("the stage to pause on the embedding server", func() bool {
		err := deps.Err()
		return err != nil && strings.Contains(err.Error(), "EMBED_MODEL")
	})
	time.Sleep(500 * time.Millisecond) // long enough for a retry at 50 ms to have happened
	if got := e.dlqTypes(); len(got) != 0 {
		t.Fatalf("dead-lettered %v while the model was missing", got)
	}
	if n, _ := e.RDB.ZCard(context.Background(), e.keys().Retry()).Result(); n != 0 {
		t.Fatalf("%d retries scheduled while paused: an attempt was spent", n)
	}
	if p, _ := e.RDB.XPending(context.Background(), e.keys().Stream(), pipeline.EmbedderGroup).Result(); p == nil || p.Count != 1 {
		t.Fatalf("pending %+v, want the entry held while paused", p)
	}

	server.mu.Lock()
	server.status = 0 // the operator pulled the model
	server.mu.Unlock()
	e.eventually("the document embedded after the probe passed", func() bool {
		return e.count(`SELECT count(*) FROM chunks WHERE doc_id = 'd'`) > 0
	})
	if n := e.count(`SELECT count(*) FROM stage_results`); n != 1 {
		t.Fatalf("%d ledger rows, want 1", n)
	}
}
