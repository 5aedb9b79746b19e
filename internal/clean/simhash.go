package clean

import (
	"math/bits"
	"strings"
	"unicode"
)

// shingleSize is the number of words per shingle fed to SimHash.
const shingleSize = 3

// Bands splits a 64-bit fingerprint into four 16-bit bands. Two
// fingerprints within Hamming distance 3 differ in at most three bands, so
// they share at least one band exactly: an index on (band, value) finds
// every near-duplicate candidate without a scan.
const Bands = 4

// SimHash fingerprints text from its word shingles: similar texts get
// fingerprints a small Hamming distance apart. Empty text gives 0.
func SimHash(text string) uint64 {
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r)
	})
	if len(words) == 0 {
		return 0
	}
	var v [64]int
	add := func(parts []string) {
		// FNV-64a of the words joined by spaces, folded in place.
		x := uint64(fnvOffset)
		for i, w := range parts {
			if i > 0 {
				x = (x ^ ' ') * fnvPrime
			}
			for j := 0; j < len(w); j++ {
				x = (x ^ uint64(w[j])) * fnvPrime
			}
		}
		for b := range 64 {
			v[b] += int(x>>b&1)<<1 - 1
		}
	}
	if len(words) < shingleSize {
		add(words)
	}
	for i := 0; i+shingleSize <= len(words); i++ {
		add(words[i : i+shingleSize])
	}
	var out uint64
	for b := range 64 {
		if v[b] > 0 {
			out |= 1 << b
		}
	}
	return out
}

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// Hamming is the number of differing bits.
func Hamming(a, b uint64) int { return bits.OnesCount64(a ^ b) }

// BandValues are a fingerprint's four 16-bit bands.
func BandValues(h uint64) [Bands]int32 {
	var out [Bands]int32
	for i := range Bands {
		out[i] = int32((h >> (16 * i)) & 0xffff)
	}
	return out
}
