// Package local is the deterministic, dependency-free embedder used when no
// model server is configured: signed feature hashing of word unigrams,
// word bigrams and character n-grams with sub-linear term frequency,
// L2-normalised. It captures lexical overlap (shared words, shared word
// stems via character n-grams, shared phrases), not meaning: "car" and
// "automobile" are unrelated to it.
package local

import (
	"context"
	"math"
	"strings"
	"unicode"

	"github.com/newscrawl/newscrawl/internal/embed"
)

// Defaults and the model name stored with local vectors. Change ModelName
// whenever the features change, so stored vectors are re-embedded.
const (
	ModelName   = "local-hash-v1"
	DefaultDims = 384

	weightWord   = 1.0
	weightBigram = 0.6
	weightChar   = 0.35
	charN        = 4 // character n-grams of "^word$", for n = 3 and 4
)

// Config sizes the vectors; zero Dims takes DefaultDims.
type Config struct {
	Dims int
}

// An Embedder hashes text features into a fixed number of dimensions. It is
// safe for concurrent use and never fails.
type Embedder struct {
	dims int
}

// New returns a local embedder.
func New(cfg Config) *Embedder {
	if cfg.Dims <= 0 {
		cfg.Dims = DefaultDims
	}
	return &Embedder{dims: cfg.Dims}
}

// Identity reports provider "local", model ModelName and the dimension.
func (e *Embedder) Identity() embed.Identity {
	return embed.Identity{Provider: "local", Model: ModelName, Dims: e.dims}
}

// Embed returns one unit vector per input; queries and documents are
// embedded alike. It only fails when ctx is done.
func (e *Embedder) Embed(ctx context.Context, inputs []string, _ embed.Kind) ([][]float32, error) {
	out := make([][]float32, len(inputs))
	for i, in := range inputs {
		if i%64 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		out[i] = e.Vector(in)
	}
	return out, nil
}

// Vector embeds one text. A text without any word gets a fixed unit vector
// rather than a zero vector (whose cosine distance is undefined).
//
// A feature is the FNV-64a hash of its kind byte, a NUL and its text,
// folded in place rather than built as a string: the strings and a map
// keyed by them were most of the embedder's time.
func (e *Embedder) Vector(text string) []float32 {
	words := Words(text)
	tf := make(map[uint64]feature)
	count := func(kind byte, h uint64) {
		f := tf[h]
		f.kind, f.n = kind, f.n+1
		tf[h] = f
	}
	prev := ""
	var starts []int // byte offsets of the runes of "^word$", and its end
	for _, w := range words {
		if stopword[w] {
			prev = ""
			continue
		}
		count('w', fnvString(kindHash['w'], w))
		if prev != "" {
			count('b', fnvString(fnvString(fnvString(kindHash['b'], prev), " "), w))
		}
		prev = w
		padded := "^" + w + "$"
		starts = starts[:0]
		for i := range padded {
			starts = append(starts, i)
		}
		starts = append(starts, len(padded))
		runes := len(starts) - 1
		for n := 3; n <= charN; n++ {
			for i := 0; i+n <= runes; i++ {
				count('c', fnvString(kindHash['c'], padded[starts[i]:starts[i+n]]))
			}
		}
	}
	v := make([]float64, e.dims)
	if len(tf) == 0 {
		tf[fnvString(fnvOffset, "empty")] = feature{kind: 'e', n: 1}
	}
	for sum, f := range tf {
		sign := 1.0
		if sum>>63 == 1 {
			sign = -1
		}
		// Sub-linear tf keeps a repeated word from dominating the vector.
		v[sum%uint64(e.dims)] += sign * kindWeight[f.kind] * (1 + math.Log(float64(f.n)))
	}
	var norm float64
	for _, x := range v {
		norm += x * x
	}
	out := make([]float32, e.dims)
	if norm == 0 { // every feature cancelled out
		out[0] = 1
		return out
	}
	norm = math.Sqrt(norm)
	for i, x := range v {
		out[i] = float32(x / norm)
	}
	return out
}

// A feature's kind and count in one text.
type feature struct {
	kind byte
	n    int
}

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// fnvString folds s into the FNV-64a hash h.
func fnvString(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= fnvPrime
	}
	return h
}

// kindHash is the hash of each kind's prefix, its byte and a NUL.
var kindHash = func() (k [256]uint64) {
	for _, c := range []byte("wbc") {
		k[c] = fnvString(fnvOffset, string([]byte{c, 0}))
	}
	return k
}()

// kindWeight weighs a feature by its kind: words, bigrams, character n-grams.
var kindWeight = [256]float64{'w': weightWord, 'b': weightBigram, 'c': weightChar, 'e': 1}

// Words lower-cases text and splits it into runs of letters, marks and digits.
func Words(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.IsMark(r)
	})
}

// stopword holds frequent English function words, which carry no topic.
var stopword = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an and are as at be been but by for from had has have he her his i in is it its
		of on or she that the their there they this to was were which who will with would you your we our not no
		than then so if into about after also over more most can could said says say new one two up out what when`) {
		m[w] = true
	}
	return m
}()
