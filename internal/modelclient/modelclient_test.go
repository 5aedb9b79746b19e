package modelclient_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/newscrawl/newscrawl/internal/modelclient"
)

// The base URL is used as given: /v1 is neither added nor dropped, trailing
// slashes are, and the key goes out as a bearer token only when set.
func TestNew_URLsAndKey(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		path     string // appended to the server's URL to make BaseURL
		key      string
		wantPath string
		wantAuth string
	}{
		{name: "with /v1", path: "/v1", wantPath: "/v1/embeddings"},
		{name: "with /v1/", path: "/v1/", wantPath: "/v1/embeddings"},
		{name: "without /v1", path: "", wantPath: "/embeddings"},
		{name: "a proxy's prefix", path: "/ollama/v1//", key: "sk-1", wantPath: "/ollama/v1/embeddings", wantAuth: "Bearer sk-1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var gotPath, gotAuth string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				gotPath, gotAuth = r.URL.Path, r.Header.Get("Authorization")
				w.Write([]byte(`{"data":[{"index":0,"embedding":[1]}]}`))
			}))
			t.Cleanup(srv.Close)
			c := modelclient.New(modelclient.Config{BaseURL: srv.URL + tc.path, APIKey: tc.key})
			if _, err := c.CreateEmbeddings(context.Background(), openai.EmbeddingRequest{Input: []string{"x"}, Model: "m"}); err != nil {
				t.Fatal(err)
			}
			if gotPath != tc.wantPath || gotAuth != tc.wantAuth {
				t.Fatalf("path %q auth %q, want %q and %q", gotPath, gotAuth, tc.wantPath, tc.wantAuth)
			}
		})
	}
}

// A recorded call keeps the status, the headers and the start of an error
// body, and go-openai still reads the whole error body.
func TestRecord_ErrorAnswers(t *testing.T) {
	t.Parallel()
	long := `{"error":{"message":"` + strings.Repeat("x", 2*modelclient.MaxSnippet) + `"}}`
	tests := []struct {
		name        string
		status      int
		header      map[string]string
		body        string
		wantSnippet string
		wantMessage string
		wantWait    time.Duration
	}{
		{name: "429 with Retry-After", status: 429, header: map[string]string{"Retry-After": "7"},
			body: ` {"error":{"message":"slow down"}}` + "\n", wantSnippet: `{"error":{"message":"slow down"}}`, wantMessage: "slow down", wantWait: 7 * time.Second},
		{name: "429 with retry-after-ms", status: 429, header: map[string]string{"Retry-After-Ms": "250"},
			body: `{"error":{"message":"slow"}}`, wantSnippet: `{"error":{"message":"slow"}}`, wantMessage: "slow", wantWait: 250 * time.Millisecond},
		{name: "404 not JSON", status: 404, body: "404 page not found", wantSnippet: "404 page not found", wantMessage: "404 page not found", wantWait: time.Minute},
		{name: "a long body is cut in the snippet only", status: 500, body: long, wantSnippet: long[:modelclient.MaxSnippet],
			wantMessage: strings.Repeat("x", 2*modelclient.MaxSnippet), wantWait: time.Minute},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				for k, v := range tc.header {
					w.Header().Set(k, v)
				}
				w.WriteHeader(tc.status)
				w.Write([]byte(tc.body))
			}))
			t.Cleanup(srv.Close)
			c := modelclient.New(modelclient.Config{BaseURL: srv.URL + "/v1"})
			ctx, rec := modelclient.Record(context.Background(), true)
			_, err := c.CreateEmbeddings(ctx, openai.EmbeddingRequest{Input: []string{"x"}, Model: "m"})
			if err == nil {
				t.Fatal("want an error")
			}
			if got := modelclient.Status(err, rec); got != tc.status || rec.Status != tc.status {
				t.Fatalf("status %d (recorded %d), want %d", got, rec.Status, tc.status)
			}
			if rec.Snippet != tc.wantSnippet || rec.Body != nil {
				t.Fatalf("snippet %q, body %q; want %q and no body", rec.Snippet, rec.Body, tc.wantSnippet)
			}
			if got := modelclient.Message(err); !strings.HasPrefix(got, tc.wantMessage[:min(len(tc.wantMessage), 400)]) {
				t.Fatalf("message %q, want %q", got, tc.wantMessage)
			}
			if got := rec.RetryAfter(time.Now(), time.Minute, time.Hour); got != tc.wantWait {
				t.Fatalf("retry after %s, want %s", got, tc.wantWait)
			}
		})
	}
}

// keepBody keeps a 2xx answer's bytes even when go-openai cannot read them;
// MaxBody cuts a longer answer.
func TestRecord_KeepsTheBody(t *testing.T) {
	t.Parallel()
	const answer = `{"data":[{"index":0,"embedding":[1,2]}]}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(answer)) }))
	t.Cleanup(srv.Close)

	c := modelclient.New(modelclient.Config{BaseURL: srv.URL})
	ctx, rec := modelclient.Record(context.Background(), true)
	// Asked for base64, answered floats: go-openai fails, the bytes are there.
	_, err := c.CreateEmbeddings(ctx, openai.EmbeddingRequest{Input: []string{"x"}, Model: "m", EncodingFormat: openai.EmbeddingEncodingFormatBase64})
	if err == nil || rec.Status != 200 || string(rec.Body) != answer || modelclient.Status(err, rec) != 200 {
		t.Fatalf("err %v, status %d, body %q", err, rec.Status, rec.Body)
	}

	ctx, rec = modelclient.Record(context.Background(), false)
	res, err := c.CreateEmbeddings(ctx, openai.EmbeddingRequest{Input: []string{"x"}, Model: "m"})
	if err != nil || len(res.Data) != 1 || rec.Body != nil || rec.Status != 200 {
		t.Fatalf("without keepBody: err %v, %d vectors, body %q", err, len(res.Data), rec.Body)
	}

	cut := modelclient.New(modelclient.Config{BaseURL: srv.URL, MaxBody: 10})
	ctx, rec = modelclient.Record(context.Background(), true)
	if _, err := cut.CreateEmbeddings(ctx, openai.EmbeddingRequest{Input: []string{"x"}, Model: "m"}); err == nil || string(rec.Body) != answer[:10] {
		t.Fatalf("MaxBody 10: err %v, body %q", err, rec.Body)
	}
}

// No response at all: status 0, and the transport's error comes through.
func TestStatus_NoResponse(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	c := modelclient.New(modelclient.Config{BaseURL: url})
	ctx, rec := modelclient.Record(context.Background(), true)
	_, err := c.CreateEmbeddings(ctx, openai.EmbeddingRequest{Input: []string{"x"}, Model: "m"})
	var apiErr *openai.APIError
	if err == nil || errors.As(err, &apiErr) || modelclient.Status(err, rec) != 0 || modelclient.Status(err, nil) != 0 {
		t.Fatalf("err %v, status %d", err, modelclient.Status(err, rec))
	}
	var none *modelclient.Response
	if got := none.RetryAfter(time.Now(), 3*time.Second, time.Minute); got != 3*time.Second {
		t.Fatalf("nil response asks for %s, want the default", got)
	}
}
