package clean

import (
	"strings"
	"testing"
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
