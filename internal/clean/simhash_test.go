package clean

import (
	"hash/fnv"
	"strings"
	"testing"
	"unicode"
)

func TestSimHash_NearAndFar(t *testing.T) {
	base := strings.Repeat("The city council approved the new budget on Tuesday after a long debate about schools and roads. ", 12) +
		"Officials said the plan would take effect next year."
	tests := []struct {
		name     string
		other    string
		wantNear bool
	}{
		{"identical", base, true},
		{"one word changed", strings.Replace(base, "next year", "this year", 1), true},
		{"case and spacing", strings.ToUpper(base) + "  ", true},
		{"unrelated", strings.Repeat("A storm flooded the coastal town and thousands lost power overnight. ", 12), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := Hamming(SimHash(base), SimHash(tc.other))
			if near := d <= DefaultMaxHamming; near != tc.wantNear {
				t.Fatalf("hamming %d: near=%v, want %v", d, near, tc.wantNear)
			}
		})
	}
}

func TestBandValues_NearFingerprintsShareABand(t *testing.T) {
	h := uint64(0xdeadbeefcafebabe)
	for _, flips := range [][]int{{0}, {0, 17}, {3, 20, 40}, {15, 31, 47}} {
		o := h
		for _, b := range flips {
			o ^= 1 << b
		}
		a, b := BandValues(h), BandValues(o)
		shared := 0
		for i := range Bands {
			if a[i] == b[i] {
				shared++
			}
		}
		if shared == 0 {
			t.Fatalf("flipping bits %v left no shared band", flips)
		}
	}
	if SimHash("") != 0 {
		t.Fatal("empty text should hash to 0")
	}
}

// The fingerprint is the one hash/fnv gave when the shingles were written
// into it: stored bands stay comparable.
func TestSimHash_SameAsHashFNV(t *testing.T) {
	reference := func(text string) uint64 {
		words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) })
		if len(words) == 0 {
			return 0
		}
		var v [64]int
		add := func(parts []string) {
			h := fnv.New64a()
			h.Write([]byte(strings.Join(parts, " ")))
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
	for _, text := range []string{"", "one", "two words", "Harbour council approves the budget for the new bridge across the river",
		"Zürich — naïve café, 東京 タワー 2026", strings.Repeat("The strike goes on; teachers and nurses march. ", 50)} {
		if got, want := SimHash(text), reference(text); got != want {
			t.Fatalf("%q: %016x, want %016x", text, got, want)
		}
	}
}
