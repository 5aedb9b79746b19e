package openai_test

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/newscrawl/newscrawl/internal/embed"
	"github.com/newscrawl/newscrawl/internal/embed/openai"
)

// wire is a server that keeps what each request looked like on the wire and
// answers with a fixed status, headers and body.
type wire struct {
	status int
	header map[string]string
	body   string

	mu      sync.Mutex
	paths   []string
	headers []http.Header
	bodies  []map[string]any
}

func (s *wire) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var body map[string]any
	_ = json.Unmarshal(raw, &body)
	s.mu.Lock()
	s.paths = append(s.paths, r.URL.Path)
	s.headers = append(s.headers, r.Header.Clone())
	s.bodies = append(s.bodies, body)
	s.mu.Unlock()
	for k, v := range s.header {
		w.Header().Set(k, v)
	}
	if s.status != 0 {
		w.WriteHeader(s.status)
	}
	w.Write([]byte(s.body))
}

func start(t *testing.T, s *wire) string {
	t.Helper()
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return srv.URL
}

func floats(n int) string {
	b, _ := json.Marshal(make([]float32, n))
	return string(b)
}

// The request body carries exactly model, input (prefixed), encoding_format
// and, only with SendDimensions, dimensions: nothing a strict local server
// could reject (no "user", no empty fields).
func TestEmbedder_RequestOnTheWire(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		cfg      openai.Config
		wantBody map[string]any
		wantAuth string
	}{
		{name: "defaults", cfg: openai.Config{Dims: 4},
			wantBody: map[string]any{"model": "m", "input": []any{"x", "yy"}, "encoding_format": "float"}},
		{name: "dimensions sent", cfg: openai.Config{Dims: 4, SendDimensions: true, APIKey: "sk-test"},
			wantBody: map[string]any{"model": "m", "input": []any{"x", "yy"}, "encoding_format": "float", "dimensions": float64(4)},
			wantAuth: "Bearer sk-test"},
		{name: "base64 and a document prefix", cfg: openai.Config{Dims: 4, Encoding: openai.EncodingBase64, DocumentPrefix: "search_document: ", QueryPrefix: "q: "},
			wantBody: map[string]any{"model": "m", "input": []any{"search_document: x", "search_document: yy"}, "encoding_format": "base64"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b64 := base64.StdEncoding.EncodeToString(make([]byte, 16))
			s := &wire{body: `{"data":[{"index":0,"embedding":` + floats(4) + `},{"index":1,"embedding":"` + b64 + `"}]}`}
			cfg := tc.cfg
			cfg.BaseURL, cfg.Model = start(t, s)+"/v1", "m"
			e, err := openai.New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := e.Embed(context.Background(), []string{"x", "yy"}, embed.Document); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(s.bodies[0], tc.wantBody) {
				t.Fatalf("body %v, want %v", s.bodies[0], tc.wantBody)
			}
			h := s.headers[0]
			if h.Get("Authorization") != tc.wantAuth || h.Get("Content-Type") != "application/json" || s.paths[0] != "/v1/embeddings" {
				t.Fatalf("POST %s with Authorization %q, Content-Type %q", s.paths[0], h.Get("Authorization"), h.Get("Content-Type"))
			}
		})
	}
}

// "/embeddings" is appended to the base URL as it is: with or without /v1,
// trailing slashes dropped.
func TestEmbedder_BaseURLs(t *testing.T) {
	t.Parallel()
	for suffix, want := range map[string]string{"": "/embeddings", "/": "/embeddings", "/v1": "/v1/embeddings", "/v1/": "/v1/embeddings"} {
		s := &wire{body: `{"data":[{"index":0,"embedding":` + floats(2) + `}]}`}
		e, err := openai.New(openai.Config{BaseURL: start(t, s) + suffix, Model: "m", Dims: 2})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.Embed(context.Background(), []string{"x"}, embed.Query); err != nil || s.paths[0] != want {
			t.Fatalf("base URL …%q: POST %v (err %v), want %s", suffix, s.paths, err, want)
		}
	}
}

// Each answer that is not a usable 2xx keeps its error type: the stage's
// decisions (wait, pause, retry, dead-letter) hang on them. A 400, 413 or
// 422 is a rejected request, which the stage dead-letters; a 404 (a
// misnamed model or a base URL without /v1) and 401/403 are refusals the
// stage pauses on (StatusError.Refused); 5xx are retried.
func TestEmbedder_StatusAnswers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name           string
		server         *wire
		wantRetryAfter time.Duration // > 0: a *RateLimitError with this delay
		slack          time.Duration // how much less than wantRetryAfter will do
		wantStatus     int           // a *StatusError with this code (also under a RateLimitError)
		wantPermanent  bool
		wantBody       string // the StatusError's Body
	}{
		{name: "429 with an HTTP date", server: &wire{status: 429, header: map[string]string{"Retry-After": time.Now().Add(90 * time.Second).UTC().Format(http.TimeFormat)}},
			wantRetryAfter: 90 * time.Second, slack: 10 * time.Second, wantStatus: 429}, // whole seconds, read against a busy clock
		{name: "429 with retry-after-ms", server: &wire{status: 429, header: map[string]string{"Retry-After-Ms": "2500"}}, wantRetryAfter: 2500 * time.Millisecond, wantStatus: 429},
		{name: "429 asking for nothing waits a second", server: &wire{status: 429, header: map[string]string{"Retry-After": "0"}}, wantRetryAfter: time.Second, wantStatus: 429},
		{name: "429 asking for a day waits ten minutes", server: &wire{status: 429, header: map[string]string{"Retry-After": "86400"}}, wantRetryAfter: 10 * time.Minute, wantStatus: 429},
		{name: "404 model not found", server: &wire{status: 404, body: `{"error":{"message":"model \"m\" not found, try pulling it first"}}`},
			wantStatus: 404, wantBody: `{"error":{"message":"model \"m\" not found, try pulling it first"}}`},
		{name: "404 without /v1", server: &wire{status: 404, body: "404 page not found\n"}, wantStatus: 404, wantBody: "404 page not found"},
		{name: "401", server: &wire{status: 401, body: `{"error":{"message":"bad key"}}`}, wantStatus: 401, wantBody: `{"error":{"message":"bad key"}}`},
		{name: "403", server: &wire{status: 403}, wantStatus: 403},
		{name: "413", server: &wire{status: 413}, wantStatus: 413, wantPermanent: true},
		{name: "422", server: &wire{status: 422, body: "input too long"}, wantStatus: 422, wantPermanent: true, wantBody: "input too long"},
		{name: "503", server: &wire{status: 503, body: "loading model"}, wantStatus: 503, wantBody: "loading model"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e, err := openai.New(openai.Config{BaseURL: start(t, tc.server) + "/v1", Model: "m", Dims: 4})
			if err != nil {
				t.Fatal(err)
			}
			_, err = e.Embed(context.Background(), []string{"x"}, embed.Document)
			var rl *embed.RateLimitError
			isRL := errors.As(err, &rl)
			if isRL != (tc.wantRetryAfter > 0) {
				t.Fatalf("err %v: rate limit %v, want %v", err, isRL, tc.wantRetryAfter > 0)
			}
			if isRL && (rl.RetryAfter > tc.wantRetryAfter || rl.RetryAfter < tc.wantRetryAfter-tc.slack) {
				t.Fatalf("retry after %s, want %s", rl.RetryAfter, tc.wantRetryAfter)
			}
			var se *embed.StatusError
			if !errors.As(err, &se) || se.Code != tc.wantStatus || se.Permanent() != tc.wantPermanent || se.Body != tc.wantBody {
				t.Fatalf("err %v: want a StatusError %d (permanent %v) with body %q", err, tc.wantStatus, tc.wantPermanent, tc.wantBody)
			}
		})
	}
}

// A server that answers base64 to a request for floats is read too, and a
// vector of neither kind is an error that is not a status or a dimension.
func TestEmbedder_AnswerInTheOtherEncoding(t *testing.T) {
	t.Parallel()
	b := make([]byte, 12)
	for i, x := range []float32{1, 2, 3} {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	s := &wire{body: `{"data":[{"index":0,"embedding":"` + base64.StdEncoding.EncodeToString(b) + `"}]}`}
	e, err := openai.New(openai.Config{BaseURL: start(t, s), Model: "m", Dims: 3})
	if err != nil {
		t.Fatal(err)
	}
	vecs, err := e.Embed(context.Background(), []string{"x"}, embed.Document)
	if err != nil || !reflect.DeepEqual(vecs, [][]float32{{1, 2, 3}}) {
		t.Fatalf("vectors %v, err %v", vecs, err)
	}

	for name, body := range map[string]string{
		"an object":           `{"data":[{"index":0,"embedding":{"a":1}}]}`,
		"not base64":          `{"data":[{"index":0,"embedding":"%%%"}]}`,
		"odd base64 bytes":    `{"data":[{"index":0,"embedding":"AAAAAAA="}]}`,
		"a repeated index":    `{"data":[{"index":0,"embedding":[1,2,3]},{"index":0,"embedding":[1,2,3]}]}`,
		"an index past input": `{"data":[{"index":3,"embedding":[1,2,3]}]}`,
		"no data":             `{"object":"list"}`,
	} {
		s := &wire{body: body}
		e, _ := openai.New(openai.Config{BaseURL: start(t, s), Model: "m", Dims: 3})
		n := 1
		if name == "a repeated index" {
			n = 2
		}
		_, err := e.Embed(context.Background(), make([]string, n), embed.Document)
		var se *embed.StatusError
		var de *embed.DimensionError
		if err == nil || errors.As(err, &se) || errors.As(err, &de) {
			t.Errorf("%s: err %v, want a response error", name, err)
		}
	}
}

// A server that is not there: a plain transport error, which the stage retries.
func TestEmbedder_NoServer(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	e, _ := openai.New(openai.Config{BaseURL: url + "/v1", Model: "m", Dims: 3})
	_, err := e.Embed(context.Background(), []string{"x"}, embed.Document)
	var se *embed.StatusError
	var rl *embed.RateLimitError
	if err == nil || errors.As(err, &se) || errors.As(err, &rl) {
		t.Fatalf("err %v, want a transport error", err)
	}
}
