package web_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"

	"github.com/newscrawl/newscrawl/internal/ask"
	"github.com/newscrawl/newscrawl/internal/embed"
	"github.com/newscrawl/newscrawl/internal/embed/chunk"
	"github.com/newscrawl/newscrawl/internal/embed/embedtest"
	"github.com/newscrawl/newscrawl/internal/embed/local"
	"github.com/newscrawl/newscrawl/internal/pipeline"
	"github.com/newscrawl/newscrawl/internal/search"
	"github.com/newscrawl/newscrawl/internal/testenv"
	"github.com/newscrawl/newscrawl/internal/web"
	"github.com/newscrawl/newscrawl/pkg/streamkit"
	"github.com/newscrawl/newscrawl/pkg/streamkit/streamkittest"
)

const token = "s3cret-token"

var day = func(s string) time.Time { t, _ := time.Parse(time.DateOnly, s); return t }

var articles = []embedtest.Article{
	{DocID: "bridge", Host: "courier.example", Language: "en", Published: day("2026-11-24"),
		Title: "Harbour bridge reopens after two years of repairs",
		Text:  "The swing bridge over the old harbour reopened to traffic on Monday after a two-year repair of its girders and deck.\n\nThe council said the work cost 18 million euros."},
	{DocID: "comet", Host: "courier.example", Language: "en", Published: day("2026-11-25"),
		Title: "A bright comet will be visible this week",
		Text:  "A comet discovered in March has brightened faster than astronomers expected and should be visible low in the western sky after sunset."},
	{DocID: "strike", Host: "gazette.example", Language: "en", Published: day("2026-11-20"),
		Title: "Train drivers strike over pay",
		Text:  "Train drivers walked out on Tuesday in a dispute over pay, cancelling most regional services; the union said talks had failed."},
}

// env is a Server over a small embedded corpus and a prefix of its own.
type env struct {
	pool  *pgxpool.Pool
	rdb   *redis.Client
	admin *streamkit.Admin
	srv   *httptest.Server
}

func newEnv(t *testing.T, cfg web.Config) *env {
	t.Helper()
	pool := testenv.Postgres(t)
	rdb, prefix := streamkittest.Redis(t)
	e := local.New(local.Config{})
	st, err := embed.NewStage(pool, embed.Config{Embedder: e, Chunk: chunk.Config{TargetTokens: 60, OverlapTokens: 10}})
	if err != nil {
		t.Fatal(err)
	}
	embedtest.Insert(t, pool, articles...)
	embedtest.Embed(t, pool, st, articles...)
	for _, a := range []struct{ doc, topic, person, org string }{
		{"bridge", "transport", "Mara Lindqvist", "Harbour Council"},
		{"strike", "labour", "Ana Costa", "Drivers Union"},
	} {
		if _, err := pool.Exec(context.Background(), `INSERT INTO extractions (doc_id, text_hash, provider, model, prompt_version, schema_version,
			data, topics, people, organizations, locations) VALUES ($1, 'h', 'openai', 'qwen2.5:7b', 1, 1, $2, $3, $4, $5, '{}')`,
			a.doc, `{"summary": "Summary of `+a.doc+`.", "sentiment": "neutral", "quotes": [{"text": "We are glad", "speaker": "`+a.person+`"}]}`,
			[]string{a.topic}, []string{a.person}, []string{a.org}); err != nil {
			t.Fatal(err)
		}
	}
	admin := &streamkit.Admin{RDB: rdb, Prefix: prefix}
	cfg.Searcher = search.New(pool, e, search.Config{}, nil)
	if cfg.Asker == nil {
		cfg.Asker, err = ask.New(ask.Config{Searcher: cfg.Searcher, Now: func() time.Time { return day("2026-11-27") }})
		if err != nil {
			t.Fatal(err)
		}
	}
	cfg.Admin = admin
	cfg.Stages = pipeline.Stages()
	if !cfg.Loopback && !cfg.ReadOnly && cfg.Token == "" {
		cfg.Loopback = true
	}
	s, err := web.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	return &env{pool: pool, rdb: rdb, admin: admin, srv: srv}
}

// deadLetter writes a dead letter of stage clean, as streamkit does.
func (e *env) deadLetter(t *testing.T, docID string) string {
	t.Helper()
	id, err := e.rdb.XAdd(context.Background(), &redis.XAddArgs{Stream: streamkit.KeysFor(e.admin.Prefix, pipeline.Clean).DLQ(), Values: map[string]any{
		"doc_id": docID, streamkit.DLQFieldOriginal: `["doc_id"]`, streamkit.DLQFieldStage: pipeline.Clean,
		streamkit.DLQFieldErrorType: "bad_input", streamkit.DLQFieldError: "malformed HTML for " + docID, streamkit.DLQFieldAttempts: "1",
	}}).Result()
	if err != nil {
		t.Fatal(err)
	}
	return id
}

type answer struct {
	code int
	body string
	hdr  http.Header
}

func do(t *testing.T, req *http.Request) answer {
	t.Helper()
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return answer{res.StatusCode, string(b), res.Header}
}

func get(t *testing.T, u string, hdr ...string) answer {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, u, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	return do(t, req)
}

func post(t *testing.T, u string, form url.Values, hdr ...string) answer {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, u, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	return do(t, req)
}

func TestSearchPage(t *testing.T) {
	t.Parallel()
	e := newEnv(t, web.Config{})
	a := get(t, e.srv.URL+"/?q=bridge+reopened")
	if a.code != 200 || !strings.Contains(a.body, "Harbour bridge reopens") || !strings.Contains(a.body, "<mark>bridge</mark>") {
		t.Fatalf("search page: %d, want the bridge article with the term marked:\n%s", a.code, a.body)
	}
	if first := strings.Index(a.body, `href="/documents/`); first < 0 || !strings.HasPrefix(a.body[first:], `href="/documents/bridge"`) {
		t.Errorf("the bridge article is not the first result")
	}
	// facets from the extractions, and a facet filter that keeps only its documents
	if !strings.Contains(a.body, "Topics") || !strings.Contains(a.body, "topic=transport") {
		t.Errorf("no topic facet on the page")
	}
	f := get(t, e.srv.URL+"/?q=the&topic=labour")
	if f.code != 200 || !strings.Contains(f.body, "Train drivers strike") || strings.Contains(f.body, "Harbour bridge") {
		t.Errorf("topic=labour: want the strike article alone, got %d", f.code)
	}
	none := get(t, e.srv.URL+"/?q=bridge&host=nowhere.example")
	if !strings.Contains(none.body, "with these filters") {
		t.Errorf("no results with a filter should say the filters are too narrow")
	}
	for _, bad := range []string{"/?q=a%00b", "/?q=a&host=a%00b", "/api/search?q=a&host=a%00b", "/api/search?q=" + strings.Repeat("x", 3000), "/api/search?q=a&q=b"} {
		if a := get(t, e.srv.URL+bad); a.code != http.StatusBadRequest {
			t.Errorf("GET %.60s: %d, want 400", bad, a.code)
		}
	}
	for _, h := range []string{"Content-Security-Policy", "X-Content-Type-Options", "X-Frame-Options"} {
		if a.hdr.Get(h) == "" {
			t.Errorf("no %s header", h)
		}
	}
	if strings.Contains(a.body, "<script>") || strings.Contains(a.body, "style=") {
		t.Errorf("inline script or style would be refused by the CSP")
	}
}

func TestNothingEmbeddedSaysSo(t *testing.T) {
	t.Parallel()
	pool := testenv.Postgres(t)
	rdb, prefix := streamkittest.Redis(t)
	s, err := web.New(web.Config{Searcher: search.New(pool, local.New(local.Config{}), search.Config{}, nil),
		Admin: &streamkit.Admin{RDB: rdb, Prefix: prefix}, Stages: pipeline.Stages(), Loopback: true})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	if a := get(t, srv.URL+"/?q=anything"); a.code != 200 || !strings.Contains(a.body, "nothing is embedded yet") {
		t.Fatalf("%d: want the nothing-embedded explanation:\n%s", a.code, a.body)
	}
}

func TestDocumentPage(t *testing.T) {
	t.Parallel()
	e := newEnv(t, web.Config{})
	a := get(t, e.srv.URL+"/documents/bridge")
	for _, want := range []string{"Harbour bridge reopens", "Summary of bridge.", "Mara Lindqvist", "Harbour Council", "qwen2.5:7b", "We are glad", "courier.example"} {
		if !strings.Contains(a.body, want) {
			t.Errorf("document page lacks %q", want)
		}
	}
	if a := get(t, e.srv.URL+"/documents/nope"); a.code != 404 {
		t.Errorf("unknown document: %d, want 404", a.code)
	}
}

func TestAccess(t *testing.T) {
	t.Parallel()
	if _, err := web.New(web.Config{Searcher: &search.Searcher{}, Admin: &streamkit.Admin{}}); err == nil ||
		!strings.Contains(err.Error(), "SERVE_TOKEN") {
		t.Fatalf("off loopback without a token or read-only mode: err %v, want a refusal naming SERVE_TOKEN", err)
	}

	t.Run("loopback without a token", func(t *testing.T) {
		e := newEnv(t, web.Config{Loopback: true})
		id := e.deadLetter(t, "doc-1")
		if a := get(t, e.srv.URL+"/pipeline"); a.code != 200 || strings.Contains(a.body, "Replay</button>") {
			t.Errorf("pipeline page: %d; it must show no replay button without a token", a.code)
		}
		if a := post(t, e.srv.URL+"/pipeline/dlq", url.Values{"stage": {"clean"}, "action": {"replay"}, "id": {id}}); a.code != http.StatusForbidden {
			t.Errorf("replay without a token configured: %d, want 403", a.code)
		}
	})

	t.Run("public read-only", func(t *testing.T) {
		e := newEnv(t, web.Config{ReadOnly: true, Token: token})
		if a := get(t, e.srv.URL+"/api/search?q=bridge"); a.code != 200 {
			t.Errorf("search: %d, want 200", a.code)
		}
		if a := get(t, e.srv.URL+"/api/stats"); a.code != http.StatusUnauthorized {
			t.Errorf("stats without the token: %d, want 401", a.code)
		}
		if a := get(t, e.srv.URL+"/pipeline"); a.code != http.StatusSeeOther || !strings.HasPrefix(a.hdr.Get("Location"), "/login") {
			t.Errorf("pipeline page without the token: %d %s, want a redirect to /login", a.code, a.hdr.Get("Location"))
		}
		if a := get(t, e.srv.URL+"/api/stats", "Authorization", "Bearer "+token); a.code != 200 {
			t.Errorf("stats with the token: %d, want 200", a.code)
		}
		if a := get(t, e.srv.URL+"/api/stats", "Authorization", "Bearer wrong"); a.code != http.StatusUnauthorized {
			t.Errorf("stats with a wrong token: %d, want 401", a.code)
		}
	})

	t.Run("token guards everything", func(t *testing.T) {
		e := newEnv(t, web.Config{Token: token})
		if a := get(t, e.srv.URL+"/api/search?q=bridge"); a.code != http.StatusUnauthorized {
			t.Errorf("search without the token: %d, want 401", a.code)
		}
		if a := get(t, e.srv.URL+"/healthz"); a.code != 200 {
			t.Errorf("/healthz: %d, want 200 without a token", a.code)
		}
		// login sets a session cookie that then opens the pages
		a := post(t, e.srv.URL+"/login", url.Values{"token": {token}, "next": {"/pipeline"}})
		if a.code != http.StatusSeeOther || a.hdr.Get("Location") != "/pipeline" {
			t.Fatalf("login: %d %s", a.code, a.hdr.Get("Location"))
		}
		cookie := strings.Split(a.hdr.Get("Set-Cookie"), ";")[0]
		if b := get(t, e.srv.URL+"/pipeline", "Cookie", cookie); b.code != 200 {
			t.Errorf("pipeline with the session: %d, want 200", b.code)
		}
		if b := post(t, e.srv.URL+"/login", url.Values{"token": {"wrong"}}); b.code != http.StatusUnauthorized {
			t.Errorf("login with a wrong token: %d, want 401", b.code)
		}
		if b := post(t, e.srv.URL+"/login", url.Values{"token": {token}, "next": {"//evil.example/"}}); b.hdr.Get("Location") != "/" {
			t.Errorf("login next=//evil.example/ redirects to %q, want /", b.hdr.Get("Location"))
		}
	})
}

func TestReplayNeedsTheTokenAndTheSameOrigin(t *testing.T) {
	t.Parallel()
	e := newEnv(t, web.Config{Loopback: true, Token: token})
	id := e.deadLetter(t, "doc-1")
	other := e.deadLetter(t, "doc-2")
	form := url.Values{"stage": {"clean"}, "action": {"replay"}, "id": {id}}
	if a := post(t, e.srv.URL+"/pipeline/dlq", form); a.code != http.StatusUnauthorized {
		t.Errorf("replay without the token: %d, want 401", a.code)
	}
	if a := post(t, e.srv.URL+"/pipeline/dlq", form, "Authorization", "Bearer "+token, "Sec-Fetch-Site", "cross-site"); a.code != http.StatusForbidden {
		t.Errorf("cross-site replay: %d, want 403", a.code)
	}
	if a := post(t, e.srv.URL+"/pipeline/dlq", form, "Authorization", "Bearer "+token, "Origin", "https://evil.example"); a.code != http.StatusForbidden {
		t.Errorf("replay from another origin: %d, want 403", a.code)
	}
	n, _ := e.rdb.XLen(context.Background(), streamkit.KeysFor(e.admin.Prefix, pipeline.Clean).DLQ()).Result()
	if n != 2 {
		t.Fatalf("refused replays changed the DLQ: %d entries, want 2", n)
	}
	a := post(t, e.srv.URL+"/pipeline/dlq", form, "Authorization", "Bearer "+token, "Sec-Fetch-Site", "same-origin")
	if a.code != http.StatusSeeOther {
		t.Fatalf("replay with the token: %d %s", a.code, a.body)
	}
	left, err := e.admin.DLQList(context.Background(), pipeline.Clean, streamkit.DLQFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(left) != 1 || left[0].ID != other {
		t.Fatalf("after replaying %s the DLQ holds %v, want only %s", id, left, other)
	}
	msgs, _ := e.rdb.XRange(context.Background(), streamkit.KeysFor(e.admin.Prefix, pipeline.Clean).Stream(), "-", "+").Result()
	if len(msgs) != 1 || msgs[0].Values["doc_id"] != "doc-1" {
		t.Fatalf("the replayed entry is not back on the stream: %v", msgs)
	}
}

func TestStatsAndDLQAPI(t *testing.T) {
	t.Parallel()
	e := newEnv(t, web.Config{Loopback: true})
	e.deadLetter(t, "doc-1")
	var st web.StatsResponse
	a := get(t, e.srv.URL+"/api/stats")
	if err := json.Unmarshal([]byte(a.body), &st); err != nil || len(st.Stages) != len(pipeline.Stages()) {
		t.Fatalf("stats: %d %v %s", a.code, err, a.body)
	}
	if st.Stages[1].Stage != pipeline.Clean || st.Stages[1].DLQ != 1 {
		t.Errorf("clean stage: %+v, want 1 dead letter", st.Stages[1])
	}
	d := get(t, e.srv.URL+"/api/dlq?stage=clean")
	if d.code != 200 || !strings.Contains(d.body, "malformed HTML for doc-1") {
		t.Errorf("dlq: %d %s", d.code, d.body)
	}
	if d := get(t, e.srv.URL+"/api/dlq?stage=nope"); d.code != 400 {
		t.Errorf("unknown stage: %d, want 400", d.code)
	}
	if o := get(t, e.srv.URL+"/api/openapi.json"); o.code != 200 || !json.Valid([]byte(o.body)) {
		t.Errorf("openapi.json: %d, valid JSON %v", o.code, json.Valid([]byte(o.body)))
	}
	if m := get(t, e.srv.URL+"/metrics"); !strings.Contains(m.body, "newscrawl_serve_rejected_total") {
		t.Errorf("/metrics lacks serve's own metrics")
	}
}

func TestRateLimitPerClient(t *testing.T) {
	t.Parallel()
	e := newEnv(t, web.Config{Loopback: true, RatePerSec: 0.001, RateBurst: 2, RateLoopback: true})
	codes := []int{}
	for range 4 {
		codes = append(codes, get(t, e.srv.URL+"/api/search?q=bridge").code)
	}
	if codes[0] != 200 || codes[1] != 200 || codes[2] != http.StatusTooManyRequests || codes[3] != http.StatusTooManyRequests {
		t.Fatalf("codes %v, want 200 200 429 429", codes)
	}
}

func TestDocumentsAPIPages(t *testing.T) {
	t.Parallel()
	e := newEnv(t, web.Config{Loopback: true})
	page := func(q string) web.DocumentsResponse {
		t.Helper()
		a := get(t, e.srv.URL+"/api/documents?"+q)
		var r web.DocumentsResponse
		if err := json.Unmarshal([]byte(a.body), &r); err != nil || a.code != 200 {
			t.Fatalf("GET /api/documents?%s: %d %s", q, a.code, a.body)
		}
		return r
	}
	first := page("limit=2")
	if len(first.Documents) != 2 || first.Documents[0].DocID != "comet" || first.Documents[1].DocID != "bridge" || first.Next == "" {
		t.Fatalf("first page %+v, want comet then bridge (newest first) and a next cursor", first)
	}
	if first.Documents[1].Summary != "Summary of bridge." || first.Documents[1].ExtractedBy != "openai/qwen2.5:7b" {
		t.Errorf("bridge's extraction is missing from the listing: %+v", first.Documents[1])
	}
	second := page("limit=2&after=" + first.Next)
	if len(second.Documents) != 1 || second.Documents[0].DocID != "strike" || second.Next != "" {
		t.Fatalf("second page %+v, want strike alone and no next", second)
	}
	if r := page("host=gazette.example"); len(r.Documents) != 1 || r.Documents[0].DocID != "strike" {
		t.Errorf("host filter: %+v", r.Documents)
	}
	for _, bad := range []string{"after=nonsense", "limit=0", "limit=9999", "since=yesterday", "host=a%00b"} {
		if a := get(t, e.srv.URL+"/api/documents?"+bad); a.code != 400 {
			t.Errorf("GET /api/documents?%s: %d, want 400", bad, a.code)
		}
	}
}

// Parameters that are not valid UTF-8 or hold a NUL are refused with 400 on
// every route, the API's in JSON; the same query in valid UTF-8 answers.
func TestInvalidParametersRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t, web.Config{Loopback: true})
	tests := []struct {
		path     string
		wantCode int
		wantJSON bool
	}{
		{"/api/search?q=bridge", http.StatusOK, true},
		{"/api/search?q=%FF%FEbridge", http.StatusBadRequest, true},
		{"/api/search?q=bri%00dge", http.StatusBadRequest, true},
		{"/api/search?q=bridge&host=%C3%28", http.StatusBadRequest, true},
		{"/api/search?q=bridge&%FF=1", http.StatusBadRequest, true},
		{"/api/documents?host=%E2%82", http.StatusBadRequest, true},
		{"/?q=%FFbridge", http.StatusBadRequest, false},
		{"/?q=bridge", http.StatusOK, false},
	}
	for _, tc := range tests {
		a := get(t, e.srv.URL+tc.path)
		if a.code != tc.wantCode {
			t.Errorf("GET %s: %d, want %d (%s)", tc.path, a.code, tc.wantCode, a.body)
			continue
		}
		if tc.wantCode == http.StatusBadRequest && tc.wantJSON != strings.HasPrefix(a.hdr.Get("Content-Type"), "application/json") {
			t.Errorf("GET %s: content type %q", tc.path, a.hdr.Get("Content-Type"))
		}
	}
}

func TestAsk_APIAndPage(t *testing.T) {
	t.Parallel()
	e := newEnv(t, web.Config{Loopback: true})
	ask := func(body string) answer {
		req, _ := http.NewRequest(http.MethodPost, e.srv.URL+"/api/ask", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		return do(t, req)
	}
	res := ask(`{"question": "How much did the harbour bridge repairs cost?", "since": "2026-11-01"}`)
	var got struct {
		Mode      string `json:"mode"`
		Abstained bool   `json:"abstained"`
		Sentences []struct {
			Text      string `json:"text"`
			Citations []int  `json:"citations"`
			Supported bool   `json:"supported"`
		} `json:"sentences"`
		Sources []struct {
			N     int    `json:"n"`
			DocID string `json:"doc_id"`
			URL   string `json:"url"`
		} `json:"sources"`
		Supported, Total int
	}
	if err := json.Unmarshal([]byte(res.body), &got); err != nil || res.code != http.StatusOK {
		t.Fatalf("POST /api/ask: %d %s", res.code, res.body)
	}
	if got.Mode != "extractive" || got.Abstained || len(got.Sentences) == 0 || got.Sources[0].DocID != "bridge" ||
		got.Supported != got.Total || !strings.Contains(res.body, "18 million euros") {
		t.Fatalf("answer: %s", res.body)
	}
	for _, tc := range []struct{ body, want string }{
		{`{"question": ""}`, "empty"},
		{`{"question": "bridge", "k": 99}`, "k must be"},
		{`{"question": "bridge", "since": "last tuesday"}`, "not YYYY-MM-DD"},
		{`{"question": "bridge", "model": "gpt"}`, "unknown field"},
		{`not json`, "JSON object"},
	} {
		if r := ask(tc.body); r.code != http.StatusBadRequest || !strings.Contains(r.body, tc.want) {
			t.Errorf("POST %s: %d %s, want 400 saying %q", tc.body, r.code, r.body, tc.want)
		}
	}
	page := get(t, e.srv.URL+"/ask?q="+url.QueryEscape("How much did the harbour bridge repairs cost?"))
	if page.code != http.StatusOK || !strings.Contains(page.body, "18 million euros") || !strings.Contains(page.body, `href="/documents/bridge"`) ||
		!strings.Contains(page.body, `href="#source-1"`) {
		t.Fatalf("the Ask page: %d\n%s", page.code, page.body)
	}
	if page := get(t, e.srv.URL+"/ask?q="+url.QueryEscape("Who won the chess championship?")); !strings.Contains(page.body, "The archive holds nothing") {
		t.Fatalf("the Ask page on nothing: %s", page.body)
	}
}

func TestAsk_RateLimitedPerClient(t *testing.T) {
	t.Parallel()
	e := newEnv(t, web.Config{Loopback: true, RateLoopback: true, AskRatePerSec: 0.1, AskRateBurst: 2})
	var codes []int
	for range 3 {
		codes = append(codes, get(t, e.srv.URL+"/ask?q=bridge").code)
	}
	if codes[0] != http.StatusOK || codes[1] != http.StatusOK || codes[2] != http.StatusTooManyRequests {
		t.Fatalf("codes %v, want 200 200 429", codes)
	}
	if r := get(t, e.srv.URL+"/ask?q=bridge"); r.hdr.Get("Retry-After") != "10" {
		t.Fatalf("Retry-After %q, want 10 (one question per 10 s)", r.hdr.Get("Retry-After"))
	}
	if r := get(t, e.srv.URL+"/?q=bridge"); r.code != http.StatusOK {
		t.Fatalf("search shares the ask limit: %d", r.code)
	}
}
