package clean

import (
	"hash/fnv"
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
	h := fnv.New64a()
	add := func(parts []string) {
		h.Reset()
		for i, w := range parts {
			if i > 0 {
				h.Write([]byte{' '})
			}
			h.Write([]byte(w))
		}
		x := h.Sum64()
		for b := range 64 {
			if x&(1<<b) != 0 {
				v[b]++
			} else {
				v[b]--
			}
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
