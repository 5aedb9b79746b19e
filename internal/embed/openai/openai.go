// Package openai embeds texts with any OpenAI-compatible /v1/embeddings
// endpoint (OpenAI, Ollama, vLLM, llama.cpp, LM Studio, LocalAI) through
// go-openai's CreateEmbeddings, on the client the extractor uses
// (internal/modelclient): many inputs per request, optional dimensions,
// float or base64 encodings, and a length check on every vector because
// several servers ignore both encoding_format and dimensions.
package openai

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strings"
	"time"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/newscrawl/newscrawl/internal/embed"
	"github.com/newscrawl/newscrawl/internal/modelclient"
)

// Defaults for Config fields left zero.
const (
	DefaultTimeout    = 30 * time.Second
	DefaultRetryAfter = 5 * time.Second // a 429 without a usable Retry-After header
	maxRetryAfter     = 10 * time.Minute
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
	cfg    Config
	id     embed.Identity
	client *goopenai.Client
	url    string // for error messages
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
	client := modelclient.New(modelclient.Config{BaseURL: cfg.BaseURL, APIKey: cfg.APIKey, HTTPClient: hc, MaxBody: maxResponseBody})
	return &Embedder{cfg: cfg, client: client, url: strings.TrimRight(cfg.BaseURL, "/") + "/embeddings",
		id: embed.Identity{Provider: "openai", Model: model, Dims: cfg.Dims}}, nil
}

// Identity reports provider "openai", the model (with a prefix digest when
// task prefixes are set) and the configured dimension.
func (e *Embedder) Identity() embed.Identity { return e.id }

// response is an embeddings answer read without go-openai's types: each
// vector as it came, a JSON array or a base64 string.
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
	input := make([]string, len(inputs))
	for i, in := range inputs {
		input[i] = prefix + in
	}
	// The body is model, input, encoding_format and, when set, dimensions:
	// go-openai leaves out an empty user and a zero dimensions.
	req := goopenai.EmbeddingRequestStrings{Model: goopenai.EmbeddingModel(e.cfg.Model), Input: input,
		EncodingFormat: goopenai.EmbeddingEncodingFormat(e.cfg.Encoding)}
	if e.cfg.SendDimensions {
		req.Dimensions = e.cfg.Dims
	}
	ctx, cancel := context.WithTimeout(ctx, e.cfg.Timeout)
	defer cancel()
	ctx, rec := modelclient.Record(ctx, true)
	res, err := e.client.CreateEmbeddings(ctx, req)
	var got []indexed
	switch {
	case rec.Status == http.StatusTooManyRequests:
		return nil, &embed.RateLimitError{RetryAfter: max(rec.RetryAfter(time.Now(), DefaultRetryAfter, maxRetryAfter), time.Second),
			Err: &embed.StatusError{Code: rec.Status, Body: rec.Snippet}}
	case rec.Status != 0 && rec.Status/100 != 2:
		return nil, &embed.StatusError{Code: rec.Status, Body: rec.Snippet}
	case err != nil && rec.Body == nil: // no answer, or not all of it
		return nil, fmt.Errorf("post %s: %w", e.url, err)
	case err != nil:
		// go-openai reads only the encoding it asked for, and several
		// servers ignore encoding_format (floats answered to base64): the
		// kept body is read again, each vector in whichever encoding it has.
		var r response
		if jerr := json.Unmarshal(rec.Body, &r); jerr != nil {
			return nil, fmt.Errorf("decode embeddings response: %w", jerr)
		}
		for _, d := range r.Data {
			v, err := decodeVector(d.Embedding)
			got = append(got, indexed{d.Index, v, err})
		}
	default:
		for _, d := range res.Data {
			v, err := checkFinite(d.Embedding)
			got = append(got, indexed{d.Index, v, err})
		}
	}
	return e.vectors(got, len(inputs))
}

// An indexed vector is one of a response's vectors, the input index it
// names, and why it could not be read.
type indexed struct {
	index int
	vec   []float32
	err   error
}

// vectors orders a response's vectors by index and checks their count and length.
func (e *Embedder) vectors(got []indexed, n int) ([][]float32, error) {
	if len(got) != n {
		return nil, fmt.Errorf("embeddings response has %d vectors for %d inputs", len(got), n)
	}
	out := make([][]float32, n)
	for _, d := range got {
		if d.index < 0 || d.index >= n || out[d.index] != nil {
			return nil, fmt.Errorf("embeddings response has a bad or repeated index %d", d.index)
		}
		if d.err != nil {
			return nil, fmt.Errorf("vector %d: %w", d.index, d.err)
		}
		out[d.index] = d.vec
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
