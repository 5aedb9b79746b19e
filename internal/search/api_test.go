package search_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/newscrawl/newscrawl/internal/embed"
	"github.com/newscrawl/newscrawl/internal/search"
)

// addExtraction writes an extraction row, creating the contract table when
// the extractor's migration is not in this tree yet.
func addExtraction(t *testing.T, pool *pgxpool.Pool, docID string) {
	t.Helper()
	ctx := context.Background()
	_, err := pool.Exec(ctx, `CREATE TABLE IF NOT EXISTS extractions (
		doc_id text NOT NULL, text_hash text NOT NULL, provider text NOT NULL, model text NOT NULL,
		prompt_version int NOT NULL, schema_version int NOT NULL, data jsonb NOT NULL, topics text[], people text[], organizations text[],
		locations text[], created_at timestamptz NOT NULL DEFAULT now())`)
	if err != nil {
		t.Fatal(err)
	}
	for i, people := range []string{"Old Name", "Christine Lagarde"} { // the second is the latest
		_, err = pool.Exec(ctx, `INSERT INTO extractions (doc_id, text_hash, provider, model, prompt_version, schema_version,
			data, topics, people, organizations, locations, created_at)
			VALUES ($1, 'h', 'heuristic', $8, 1, 1, $2, $3, $4, $5, $6, now() - make_interval(mins => $7::int))`,
			docID, `{"summary": "ECB holds"}`, []string{"economy"}, []string{people}, []string{"European Central Bank"},
			[]string{"Frankfurt"}, 10-i, people)
		if err != nil {
			t.Fatal(err)
		}
	}
}

func TestAPI_Search(t *testing.T) {
	t.Parallel()
	pool, e := setup(t, corpus...)
	addExtraction(t, pool, "ecb-rates")
	srv := httptest.NewServer(search.NewHandler(search.New(pool, e, search.Config{}, nil), search.APIConfig{}))
	t.Cleanup(srv.Close)
	tests := []struct {
		name       string
		path       string
		wantStatus int
		wantBody   string // substring
		wantFirst  string // first result's doc_id
		wantCount  int    // -1: don't check
	}{
		{name: "hybrid", path: "/api/search?q=central+bank+interest+rates&k=3", wantStatus: 200, wantFirst: "ecb-rates", wantCount: 3, wantBody: `"people":["Christine Lagarde"]`},
		{name: "lexical with filter", path: "/api/search?q=earthquake&mode=lexical&host=news.example", wantStatus: 200, wantFirst: "earthquake", wantCount: 1},
		{name: "date filter", path: "/api/search?q=rates&since=2024-03-01&until=2024-03-07&mode=vector", wantStatus: 200, wantFirst: "ecb-rates", wantCount: -1},
		{name: "missing q", path: "/api/search", wantStatus: 400, wantBody: "query is empty"},
		{name: "k not a number", path: "/api/search?q=x&k=ten", wantStatus: 400, wantBody: "k must be an integer"},
		{name: "k zero", path: "/api/search?q=x&k=0", wantStatus: 400, wantBody: "k must be between 1 and 100"},
		{name: "k too big", path: "/api/search?q=x&k=1000", wantStatus: 400, wantBody: "k must be between 1 and 100"},
		{name: "bad mode", path: "/api/search?q=x&mode=semantic", wantStatus: 400, wantBody: "mode must be"},
		{name: "bad date", path: "/api/search?q=x&since=yesterday", wantStatus: 400, wantBody: "is not YYYY-MM-DD"},
		{name: "since after until", path: "/api/search?q=x&since=2024-05-01&until=2024-01-01", wantStatus: 400, wantBody: "must be before"},
		{name: "query too long", path: "/api/search?q=" + strings.Repeat("a", 501), wantStatus: 400, wantBody: "limit is 500"},
		{name: "bad lang", path: "/api/search?q=x&lang=e_n", wantStatus: 400, wantBody: "not a language code"},
		{name: "wrong method", path: "POST /api/search?q=x", wantStatus: 405},
		{name: "document", path: "/api/documents/ecb-rates", wantStatus: 200, wantBody: `"organizations": ["European Central Bank"]`},
		{name: "document without extraction", path: "/api/documents/opec-oil", wantStatus: 200, wantBody: `"extraction":null`},
		{name: "unknown document", path: "/api/documents/nope", wantStatus: 404, wantBody: "not found"},
		{name: "bad document id", path: "/api/documents/a%20b", wantStatus: 400, wantBody: "doc_id must be"},
		{name: "healthz", path: "/healthz", wantStatus: 200, wantBody: "ok"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			method, path := "GET", tc.path
			if m, p, ok := strings.Cut(tc.path, " "); ok {
				method, path = m, p
			}
			req, _ := http.NewRequest(method, srv.URL+path, nil)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var body strings.Builder
			var raw json.RawMessage
			_ = json.NewDecoder(resp.Body).Decode(&raw)
			body.Write(raw)
			if resp.StatusCode != tc.wantStatus {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tc.wantStatus, body.String())
			}
			compact := strings.ReplaceAll(body.String(), `": `, `":`)
			if tc.wantBody != "" && !strings.Contains(compact, strings.ReplaceAll(tc.wantBody, `": `, `":`)) {
				t.Fatalf("body %s lacks %s", body.String(), tc.wantBody)
			}
			if tc.wantFirst != "" {
				var sr search.SearchResponse
				if err := json.Unmarshal(raw, &sr); err != nil {
					t.Fatal(err)
				}
				if len(sr.Results) == 0 || sr.Results[0].DocID != tc.wantFirst || (tc.wantCount >= 0 && sr.Count != tc.wantCount) {
					t.Fatalf("results %+v, want %s first and %d results", sr.Results, tc.wantFirst, tc.wantCount)
				}
			}
		})
	}
}

// failingEmbedder claims the local model's identity but cannot embed.
type failingEmbedder struct {
	id  embed.Identity
	err error
}

func (f failingEmbedder) Identity() embed.Identity { return f.id }
func (f failingEmbedder) Embed(context.Context, []string, embed.Kind) ([][]float32, error) {
	return nil, f.err
}

// A query embedder that fails (rate limited, a server error) does not fail
// the search: full text answers, and the response says so.
func TestAPI_QueryEmbeddingFailures(t *testing.T) {
	t.Parallel()
	pool, e := setup(t, corpus[:2]...)
	tests := []struct {
		name string
		err  error
	}{
		{name: "rate limited", err: &embed.RateLimitError{RetryAfter: 1500 * time.Millisecond, Err: errors.New("429")}},
		{name: "server error", err: &embed.StatusError{Code: 500, Body: "boom"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := search.New(pool, failingEmbedder{id: e.Identity(), err: tc.err}, search.Config{}, nil)
			srv := httptest.NewServer(search.NewHandler(s, search.APIConfig{}))
			defer srv.Close()
			resp, err := http.Get(srv.URL + "/api/search?q=oil")
			if err != nil {
				t.Fatal(err)
			}
			var sr search.SearchResponse
			err = json.NewDecoder(resp.Body).Decode(&sr)
			resp.Body.Close()
			if err != nil || resp.StatusCode != 200 || sr.Mode != search.Lexical || sr.Count == 0 || !strings.Contains(sr.Note, "full text") {
				t.Fatalf("status %d, %+v (%v); want 200 from full text with a note", resp.StatusCode, sr, err)
			}
		})
	}
}

// A document's JSON names each hash by what it is — the cleaned row's
// body_hash and text_hash, the extraction's text_hash, the chunks'
// body_hash — and keeps, for clients from before the rename, each row's
// hash under its old key content_hash with the value it had then.
func TestAPI_DocumentHashes(t *testing.T) {
	t.Parallel()
	pool, e := setup(t, corpus[0])
	a := corpus[0]
	addExtraction(t, pool, a.DocID)
	srv := httptest.NewServer(search.NewHandler(search.New(pool, e, search.Config{}, nil), search.APIConfig{}))
	t.Cleanup(srv.Close)
	resp, err := http.Get(srv.URL + "/api/documents/" + a.DocID)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var d struct {
		Document   map[string]any
		Extraction map[string]any
		Chunks     []map[string]any
	}
	if err := json.NewDecoder(resp.Body).Decode(&d); err != nil || resp.StatusCode != 200 {
		t.Fatalf("status %d, decode: %v", resp.StatusCode, err)
	}
	check := func(what string, obj map[string]any, key, want string) {
		t.Helper()
		if obj == nil || obj[key] != want {
			t.Errorf("%s[%q] = %v, want %s", what, key, obj[key], want)
		}
	}
	check("document", d.Document, "body_hash", a.BodyHash())
	check("document", d.Document, "text_hash", a.TextHash())
	check("document", d.Document, "content_hash", a.BodyHash())
	check("extraction", d.Extraction, "text_hash", "h")
	check("extraction", d.Extraction, "content_hash", "h")
	if len(d.Chunks) != 1 {
		t.Fatalf("chunks %v, want one model", d.Chunks)
	}
	check("chunks[0]", d.Chunks[0], "body_hash", a.BodyHash())
	check("chunks[0]", d.Chunks[0], "content_hash", a.BodyHash())
}
