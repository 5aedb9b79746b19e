package openai_test

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/newscrawl/newscrawl/internal/embed"
	"github.com/newscrawl/newscrawl/internal/embed/openai"
)

// fakeServer is an OpenAI-compatible /v1/embeddings endpoint whose answers
// the test controls. Vectors encode the input's length so order is checkable.
type fakeServer struct {
	mu       sync.Mutex
	requests []map[string]any
	dims     int    // length of returned vectors
	encoding string // "" honours the request's encoding_format; "float" ignores it
	status   int    // non-zero: answer with this status
	header   map[string]string
	body     string // raw body override
	reverse  bool   // return data in reverse index order
}

func (f *fakeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/embeddings" || r.Method != http.MethodPost {
		http.NotFound(w, r)
		return
	}
	var req map[string]any
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, "bad json", 400)
		return
	}
	f.mu.Lock()
	f.requests = append(f.requests, req)
	status, body, header, dims, enc, reverse := f.status, f.body, f.header, f.dims, f.encoding, f.reverse
	f.mu.Unlock()
	for k, v := range header {
		w.Header().Set(k, v)
	}
	if status != 0 {
		w.WriteHeader(status)
		w.Write([]byte(`{"error":{"message":"nope"}}`))
		return
	}
	if body != "" {
		w.Write([]byte(body))
		return
	}
	if enc == "" {
		enc, _ = req["encoding_format"].(string)
	}
	inputs := req["input"].([]any)
	type item struct {
		Object    string `json:"object"`
		Index     int    `json:"index"`
		Embedding any    `json:"embedding"`
	}
	var data []item
	for i, in := range inputs {
		v := make([]float32, dims)
		v[0] = float32(len(in.(string)))
		var e any = v
		if enc == "base64" {
			b := make([]byte, 4*dims)
			for j, x := range v {
				binary.LittleEndian.PutUint32(b[4*j:], math.Float32bits(x))
			}
			e = base64.StdEncoding.EncodeToString(b)
		}
		data = append(data, item{"embedding", i, e})
	}
	if reverse {
		for i, j := 0, len(data)-1; i < j; i, j = i+1, j-1 {
			data[i], data[j] = data[j], data[i]
		}
	}
	json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": req["model"]})
}

func newEmbedder(t *testing.T, f *fakeServer, cfg openai.Config) *openai.Embedder {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	cfg.BaseURL = srv.URL + "/v1"
	if cfg.Model == "" {
		cfg.Model = "test-embed"
	}
	e, err := openai.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestEmbedder_Encodings(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name          string
		encoding      string // requested
		serverIgnores bool   // server answers floats whatever was asked
		reverse       bool
	}{
		{name: "float", encoding: openai.EncodingFloat},
		{name: "base64", encoding: openai.EncodingBase64},
		{name: "base64 asked, floats answered", encoding: openai.EncodingBase64, serverIgnores: true},
		{name: "out-of-order data", encoding: openai.EncodingFloat, reverse: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := &fakeServer{dims: 8, reverse: tc.reverse}
			if tc.serverIgnores {
				f.encoding = "float"
			}
			e := newEmbedder(t, f, openai.Config{Dims: 8, Encoding: tc.encoding, SendDimensions: true,
				QueryPrefix: "search_query: ", DocumentPrefix: "search_document: "})
			inputs := []string{"a", "bbb", "cc"}
			vecs, err := e.Embed(context.Background(), inputs, embed.Document)
			if err != nil {
				t.Fatal(err)
			}
			for i, in := range inputs {
				if want := float32(len("search_document: " + in)); vecs[i][0] != want || len(vecs[i]) != 8 {
					t.Fatalf("vector %d: first value %v (len %d), want %v (len 8)", i, vecs[i][0], len(vecs[i]), want)
				}
			}
			req := f.requests[0]
			if req["encoding_format"] != tc.encoding || req["dimensions"] != float64(8) || len(req["input"].([]any)) != 3 {
				t.Fatalf("request %v: want one batched request with encoding %s and dimensions 8", req, tc.encoding)
			}
			if _, err := e.Embed(context.Background(), []string{"q"}, embed.Query); err != nil {
				t.Fatal(err)
			}
			if got := f.requests[1]["input"].([]any)[0]; got != "search_query: q" {
				t.Fatalf("query input %q, want the query prefix", got)
			}
		})
	}
}

func TestEmbedder_Errors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name           string
		server         *fakeServer
		wantRetryAfter time.Duration // > 0: a *RateLimitError with this delay
		wantDims       bool          // a *DimensionError
		wantStatus     int           // a *StatusError with this code
		wantPermanent  bool
	}{
		{name: "429 with Retry-After seconds", server: &fakeServer{status: 429, header: map[string]string{"Retry-After": "7"}}, wantRetryAfter: 7 * time.Second},
		{name: "429 without Retry-After", server: &fakeServer{status: 429}, wantRetryAfter: openai.DefaultRetryAfter},
		{name: "dimension mismatch", server: &fakeServer{dims: 5}, wantDims: true},
		{name: "500", server: &fakeServer{status: 500}, wantStatus: 500},
		{name: "400 rejected input", server: &fakeServer{status: 400}, wantStatus: 400, wantPermanent: true},
		{name: "malformed JSON", server: &fakeServer{body: `{"data": [`}},
		{name: "too few vectors", server: &fakeServer{body: `{"data": [{"index":0,"embedding":[1,2,3,4]}]}`}},
		{name: "NaN in base64", server: &fakeServer{body: `{"data": [{"index":0,"embedding":"AADAfwAAwH8AAMB/AADAfw=="},{"index":1,"embedding":[1,2,3,4]}]}`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEmbedder(t, tc.server, openai.Config{Dims: 4})
			_, err := e.Embed(context.Background(), []string{"x", "y"}, embed.Document)
			if err == nil {
				t.Fatal("want an error")
			}
			var rl *embed.RateLimitError
			if got := errors.As(err, &rl); got != (tc.wantRetryAfter > 0) || (got && rl.RetryAfter != tc.wantRetryAfter) {
				t.Fatalf("err %v: rate limit %v, want retry after %s", err, got, tc.wantRetryAfter)
			}
			var de *embed.DimensionError
			if got := errors.As(err, &de); got != tc.wantDims {
				t.Fatalf("err %v: dimension error %v, want %v", err, got, tc.wantDims)
			}
			var se *embed.StatusError
			if tc.wantStatus != 0 && tc.wantRetryAfter == 0 {
				if !errors.As(err, &se) || se.Code != tc.wantStatus || se.Permanent() != tc.wantPermanent {
					t.Fatalf("err %v: want status %d permanent %v", err, tc.wantStatus, tc.wantPermanent)
				}
			}
		})
	}
}

func TestEmbedder_Timeout(t *testing.T) {
	t.Parallel()
	block := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-block }))
	t.Cleanup(func() { close(block); srv.Close() })
	e, err := openai.New(openai.Config{BaseURL: srv.URL, Model: "m", Dims: 4, Timeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := e.Embed(context.Background(), []string{"x"}, embed.Document); err == nil {
		t.Fatal("want a timeout error")
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("took %s, the timeout is 100ms", d)
	}
}

func TestNew_IdentityIncludesPrefixes(t *testing.T) {
	t.Parallel()
	plain, _ := openai.New(openai.Config{BaseURL: "http://x", Model: "nomic-embed-text", Dims: 768})
	prefixed, _ := openai.New(openai.Config{BaseURL: "http://x", Model: "nomic-embed-text", Dims: 768, QueryPrefix: "search_query: "})
	if plain.Identity().Version() != "nomic-embed-text@768" || prefixed.Identity().Model == plain.Identity().Model {
		t.Fatalf("identities %v and %v", plain.Identity(), prefixed.Identity())
	}
	if _, err := openai.New(openai.Config{BaseURL: "http://x", Model: "m"}); err == nil {
		t.Fatal("want an error without dimensions")
	}
}
