// Package embed is the embedder stage: it chunks cleaned articles, embeds
// the chunks in batches with a provider, and replaces the document's chunks
// for that model in pgvector inside the stage's ledger transaction.
package embed

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// Kind says what an input is, for models that embed queries and documents
// with different task prefixes.
type Kind int

// Input kinds.
const (
	Document Kind = iota // a chunk of an article
	Query                // a search query
)

// An Identity names the vectors a provider produces; vectors of different
// identities are never compared.
type Identity struct {
	Provider string // "local" or "openai"
	Model    string // stored in chunks.model; includes a digest of task prefixes when set
	Dims     int    // vector length, stored in chunks.dims
}

// Version is the identity's part of the stage's idempotency key: changing
// the model or the dimension re-embeds every document.
func (id Identity) Version() string { return id.Model + "@" + strconv.Itoa(id.Dims) }

func (id Identity) String() string { return id.Provider + ":" + id.Version() }

// An Embedder turns texts into vectors of its identity's dimension.
type Embedder interface {
	// Identity names the model and dimension of the vectors.
	Identity() Identity
	// Embed returns one vector per input, in order. Errors are a
	// *RateLimitError, a *DimensionError, a *StatusError or a transport
	// error; ctx bounds the whole call.
	Embed(ctx context.Context, inputs []string, kind Kind) ([][]float32, error)
}

// A RateLimitError is a 429 from the provider: try again after RetryAfter.
type RateLimitError struct {
	RetryAfter time.Duration
	Err        error
}

func (e *RateLimitError) Error() string {
	return fmt.Sprintf("rate limited, retry after %s: %v", e.RetryAfter, e.Err)
}
func (e *RateLimitError) Unwrap() error { return e.Err }

// A DimensionError is a vector whose length is not the configured dimension
// (a server that ignored the dimensions parameter, or a wrong EMBED_DIMENSIONS).
type DimensionError struct {
	Model     string
	Want, Got int
}

func (e *DimensionError) Error() string {
	return fmt.Sprintf("model %s returned %d-dimensional vectors, configured for %d (check EMBED_DIMENSIONS)", e.Model, e.Got, e.Want)
}

// A StatusError is an HTTP error other than 429 from the provider.
type StatusError struct {
	Code int
	Body string
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("embeddings endpoint answered %d: %s", e.Code, e.Body)
}

// Permanent reports whether retrying the same input cannot help (the
// request itself was rejected: malformed, too large).
func (e *StatusError) Permanent() bool {
	switch e.Code {
	case 400, 413, 422:
		return true
	}
	return false
}

// Refused reports an answer that is about the configuration, not the
// document: credentials refused (401, 403), or no such model or endpoint
// (404). The stage pauses on it until the operator fixes the setting.
func (e *StatusError) Refused() bool {
	switch e.Code {
	case 401, 403, 404:
		return true
	}
	return false
}

// CheckDims returns a *DimensionError for the first vector not of length want.
func CheckDims(model string, want int, vecs [][]float32) error {
	for _, v := range vecs {
		if len(v) != want {
			return &DimensionError{Model: model, Want: want, Got: len(v)}
		}
	}
	return nil
}

// isDimension reports a *DimensionError in err's chain.
func isDimension(err error) bool {
	var d *DimensionError
	return errors.As(err, &d)
}
