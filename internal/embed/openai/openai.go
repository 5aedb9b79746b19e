// Package openai embeds texts with any OpenAI-compatible /v1/embeddings
// endpoint (OpenAI, Ollama, vLLM, llama.cpp, LM Studio, LocalAI): many
// inputs per request, optional dimensions, float or base64 encodings, and
// a length check on every vector because several servers ignore both
// encoding_format and dimensions.
package openai

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"
	"time"

	"github.com/newscrawl/newscrawl/internal/embed"
	"github.com/newscrawl/newscrawl/internal/retryafter"
)

// Defaults for Config fields left zero.
const (
	DefaultTimeout    = 30 * time.Second
	DefaultRetryAfter = 5 * time.Second // a 429 without a usable Retry-After header
	maxRetryAfter     = 10 * time.Minute
	maxErrorBody      = 512
	maxResponseBody   = 256 << 20
)

// Encodings of the vectors in responses.
const (
	EncodingFloat  = "float"
	EncodingBase64 = "base64"
)

// Config describes the endpoint and the model. BaseURL, Model and Dims are
// required.
type Config struct {
	BaseURL        string        // e.g. http://127.0.0.1:11434/v1; "/embeddings" is appended
	APIKey         string        // sent as a bearer token when set
	Model          string        // the model's name on the server
	Dims           int           // expected vector length
	SendDimensions bool          // send "dimensions" (only for models that support shortening)
	Encoding       string        // EncodingFloat (default) or EncodingBase64
	QueryPrefix    string        // task prefix for queries (nomic: "search_query: ")
	DocumentPrefix string        // task prefix for documents (nomic: "search_document: ")
	Timeout        time.Duration // per request
	HTTPClient     *http.Client  // default: a client with Timeout
}

// An Embedder calls the embeddings endpoint. It is safe for concurrent use.
type Embedder struct {
	cfg Config
	id  embed.Identity
	hc  *http.Client
	url string
}

// New checks cfg and returns an embedder.
func New(cfg Config) (*Embedder, error) {
	if cfg.BaseURL == "" {
		return nil, errors.New("openai embedder: base URL is required (OPENAI_BASE_URL)")
	}
	if cfg.Model == "" {
		return nil, errors.New("openai embedder: model is required (EMBED_MODEL)")
	}
	if cfg.Dims <= 0 {
		return nil, errors.New("openai embedder: the model's dimension is required (EMBED_DIMENSIONS)")
	}
	switch cfg.Encoding {
	case "":
		cfg.Encoding = EncodingFloat
	case EncodingFloat, EncodingBase64:
	default:
		return nil, fmt.Errorf("openai embedder: encoding %q is not float or base64", cfg.Encoding)
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{Timeout: cfg.Timeout}
	}
	model := cfg.Model
	if cfg.QueryPrefix != "" || cfg.DocumentPrefix != "" {
		// Task prefixes change the vectors: they are part of the identity.
		sum := sha256.Sum256([]byte(cfg.QueryPrefix + "\x00" + cfg.DocumentPrefix))
		model += "+p" + hex.EncodeToString(sum[:4])
	}
	return &Embedder{cfg: cfg, hc: hc, url: strings.TrimRight(cfg.BaseURL, "/") + "/embeddings",
		id: embed.Identity{Provider: "openai", Model: model, Dims: cfg.Dims}}, nil
}

// Identity reports provider "openai", the model (with a prefix digest when
// task prefixes are set) and the configured dimension.
func (e *Embedder) Identity() embed.Identity { return e.id }

type request struct {
	Model          string   `json:"model"`
	Input          []string `json:"input"`
	EncodingFormat string   `json:"encoding_format,omitempty"`
	Dimensions     int      `json:"dimensions,omitempty"`
}

type response struct {
	Data []struct {
		Index     int             `json:"index"`
		Embedding json.RawMessage `json:"embedding"`
	} `json:"data"`
}

// Embed sends all inputs in one request (callers batch) and returns their
// vectors in input order. A 429 is a *embed.RateLimitError carrying the
// server's Retry-After; other non-2xx answers are *embed.StatusError; a
// vector of the wrong length is a *embed.DimensionError; transport errors
// and timeouts are returned wrapped.
func (e *Embedder) Embed(ctx context.Context, inputs []string, kind embed.Kind) ([][]float32, error) {
	if len(inputs) == 0 {
		return nil, nil
	}
	prefix := e.cfg.DocumentPrefix
	if kind == embed.Query {
		prefix = e.cfg.QueryPrefix
	}
	req := request{Model: e.cfg.Model, Input: make([]string, len(inputs)), EncodingFormat: e.cfg.Encoding}
	for i, in := range inputs {
		req.Input[i] = prefix + in
	}
	if e.cfg.SendDimensions {
		req.Dimensions = e.cfg.Dims
	}
	body, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("encode embeddings request: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, e.cfg.Timeout)
	defer cancel()
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, e.url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("build embeddings request: %w", err)
	}
	hr.Header.Set("Content-Type", "application/json")
	if e.cfg.APIKey != "" {
		hr.Header.Set("Authorization", "Bearer "+e.cfg.APIKey)
	}
	resp, err := e.hc.Do(hr)
	if err != nil {
		return nil, fmt.Errorf("post %s: %w", e.url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusTooManyRequests {
		msg := readSnippet(resp.Body)
		return nil, &embed.RateLimitError{RetryAfter: max(retryafter.Or(resp.Header, time.Now(), DefaultRetryAfter, maxRetryAfter), time.Second),
			Err: &embed.StatusError{Code: resp.StatusCode, Body: msg}}
	}
	if resp.StatusCode/100 != 2 {
		return nil, &embed.StatusError{Code: resp.StatusCode, Body: readSnippet(resp.Body)}
	}
	var r response
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxResponseBody)).Decode(&r); err != nil {
		return nil, fmt.Errorf("decode embeddings response: %w", err)
	}
	return e.vectors(r, len(inputs))
}

// vectors orders the response's vectors by index and checks their count and length.
func (e *Embedder) vectors(r response, n int) ([][]float32, error) {
	if len(r.Data) != n {
		return nil, fmt.Errorf("embeddings response has %d vectors for %d inputs", len(r.Data), n)
	}
	out := make([][]float32, n)
	for _, d := range r.Data {
		if d.Index < 0 || d.Index >= n || out[d.Index] != nil {
			return nil, fmt.Errorf("embeddings response has a bad or repeated index %d", d.Index)
		}
		v, err := decodeVector(d.Embedding)
		if err != nil {
			return nil, fmt.Errorf("vector %d: %w", d.Index, err)
		}
		out[d.Index] = v
	}
	if err := embed.CheckDims(e.id.Model, e.cfg.Dims, out); err != nil {
		return nil, err
	}
	return out, nil
}

// decodeVector reads a JSON array of numbers or a base64 string of
// little-endian float32s, whichever the server sent.
func decodeVector(raw json.RawMessage) ([]float32, error) {
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fmt.Errorf("decode base64 embedding: %w", err)
		}
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return nil, fmt.Errorf("decode base64 embedding: %w", err)
		}
		if len(b)%4 != 0 {
			return nil, fmt.Errorf("base64 embedding of %d bytes is not float32s", len(b))
		}
		v := make([]float32, len(b)/4)
		for i := range v {
			v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		}
		return checkFinite(v)
	}
	var v []float32
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, fmt.Errorf("decode float embedding: %w", err)
	}
	return checkFinite(v)
}

func checkFinite(v []float32) ([]float32, error) {
	for _, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return nil, errors.New("embedding has NaN or infinite values")
		}
	}
	return v, nil
}

func readSnippet(r io.Reader) string {
	b, _ := io.ReadAll(io.LimitReader(r, maxErrorBody))
	return strings.TrimSpace(string(b))
}
