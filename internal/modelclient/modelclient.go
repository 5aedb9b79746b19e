// Package modelclient is the one client of OpenAI-compatible model servers
// (OpenAI, Ollama, vLLM, llama.cpp, LM Studio, LocalAI) that the extractor
// and the embedder share: github.com/sashabaranov/go-openai over an HTTP
// transport that records what each response was, because go-openai's error
// values carry the status but not the headers (Retry-After) — and nothing
// at all about a 2xx answer it could not read. Each provider classifies the
// failures for its own stage; this package only reads them.
package modelclient

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/newscrawl/newscrawl/internal/retryafter"
)

// MaxSnippet bounds Response.Snippet, the start of an error answer's body.
const MaxSnippet = 512

// Config describes the server. BaseURL is required.
type Config struct {
	// BaseURL is the API root, e.g. http://127.0.0.1:11434/v1: endpoint
	// paths ("/chat/completions", "/embeddings", "/models") are appended to
	// it as it is, less trailing slashes; nothing adds or drops a /v1.
	BaseURL    string
	APIKey     string       // sent as a bearer token when set
	HTTPClient *http.Client // default: a client without its own timeout
	// MaxBody, when positive, bounds how much of a response body is read;
	// a longer answer is cut there (and then fails to decode).
	MaxBody int64
}

// New returns the go-openai client of cfg's server. It does not contact it.
func New(cfg Config) *openai.Client {
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
	oc := openai.DefaultConfig(cfg.APIKey)
	oc.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	oc.HTTPClient = recordingDoer{c: hc, maxBody: cfg.MaxBody}
	return openai.NewClientWithConfig(oc)
}

// A Response is what the transport saw of one call's HTTP response; its
// zero value (Status 0) means no response arrived.
type Response struct {
	Status int
	Header http.Header
	// Snippet is the start of a non-2xx answer's body (MaxSnippet bytes at
	// most), spaces trimmed: the server's own words, for error messages.
	Snippet string
	// Body is a 2xx answer's whole body (within Config.MaxBody), kept only
	// when the call was recorded with keepBody.
	Body []byte

	keepBody bool
}

type responseKey struct{}

// Record returns a context under which a call's response is recorded into
// the returned Response. With keepBody a 2xx body is read in full before
// go-openai sees it and kept in Response.Body, so a caller can read an
// answer go-openai's types cannot (a server that ignored encoding_format).
func Record(ctx context.Context, keepBody bool) (context.Context, *Response) {
	r := &Response{keepBody: keepBody}
	return context.WithValue(ctx, responseKey{}, r), r
}

// RetryAfter is the wait the response's headers ask for (Retry-After,
// retry-after-ms), def when they ask for none readable, at most ceiling.
// A nil Response asks for def.
func (r *Response) RetryAfter(now time.Time, def, ceiling time.Duration) time.Duration {
	var h http.Header
	if r != nil {
		h = r.Header
	}
	return retryafter.Or(h, now, def, ceiling)
}

// Status returns the HTTP status of a failed call: go-openai's, or else the
// one r recorded (nil r: none), or 0 when no response arrived.
func Status(err error, r *Response) int {
	var apiErr *openai.APIError
	if errors.As(err, &apiErr) {
		return apiErr.HTTPStatusCode
	}
	var reqErr *openai.RequestError
	if errors.As(err, &reqErr) {
		return reqErr.HTTPStatusCode
	}
	if r != nil {
		return r.Status
	}
	return 0
}

// Message is the server's own error text in a go-openai error (its
// message, or the start of its body), or err's text when there is none.
func Message(err error) string {
	var apiErr *openai.APIError
	if errors.As(err, &apiErr) {
		return apiErr.Message
	}
	var reqErr *openai.RequestError
	if errors.As(err, &reqErr) {
		body := strings.TrimSpace(string(reqErr.Body))
		if len(body) > 500 {
			body = body[:500] + "…"
		}
		return body
	}
	return err.Error()
}

// A recordingDoer is go-openai's HTTP client: it bounds each response body
// and copies the response's status, headers and (when asked) body into the
// request's Response.
type recordingDoer struct {
	c       *http.Client
	maxBody int64
}

// Do sends req and records its response. A 2xx body kept for the caller is
// read here: an error reading it is Do's error.
func (d recordingDoer) Do(req *http.Request) (*http.Response, error) {
	resp, err := d.c.Do(req)
	if err != nil {
		return resp, err
	}
	if d.maxBody > 0 {
		resp.Body = readCloser{io.LimitReader(resp.Body, d.maxBody), resp.Body}
	}
	r, ok := req.Context().Value(responseKey{}).(*Response)
	if !ok {
		return resp, nil
	}
	r.Status = resp.StatusCode
	r.Header = resp.Header.Clone()
	if resp.StatusCode/100 != 2 {
		head, _ := io.ReadAll(io.LimitReader(resp.Body, MaxSnippet))
		r.Snippet = strings.TrimSpace(string(head))
		resp.Body = readCloser{io.MultiReader(bytes.NewReader(head), resp.Body), resp.Body}
		return resp, nil
	}
	if r.keepBody {
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("read the answer to %s: %w", req.URL, err)
		}
		r.Body = body
		resp.Body = io.NopCloser(bytes.NewReader(body))
	}
	return resp, nil
}

type readCloser struct {
	io.Reader
	io.Closer
}

// Unreachable reports a connection that could not be made at all (refused,
// no route, no such host), as opposed to one that broke mid-answer: the
// server is not there, and a stage pauses rather than spend an attempt.
func Unreachable(err error) bool {
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return true
	}
	var dns *net.DNSError
	return errors.As(err, &dns) || errors.Is(err, syscall.ECONNREFUSED)
}
