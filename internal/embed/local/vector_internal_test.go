package local

import (
	"hash/fnv"
	"math"
	"strings"
	"testing"
)

// referenceVector is Vector as first written, with each feature built as a
// string and hashed by hash/fnv: the folded hashes must give its vectors.
func referenceVector(dims int, text string) []float32 {
	tf := map[string]int{}
	prev := ""
	for _, w := range Words(text) {
		if stopword[w] {
			prev = ""
			continue
		}
		tf["w\x00"+w]++
		if prev != "" {
			tf["b\x00"+prev+" "+w]++
		}
		prev = w
		padded := []rune("^" + w + "$")
		for n := 3; n <= charN; n++ {
			for i := 0; i+n <= len(padded); i++ {
				tf["c\x00"+string(padded[i:i+n])]++
			}
		}
	}
	if len(tf) == 0 {
		tf["empty"] = 1
	}
	v := make([]float64, dims)
	for f, n := range tf {
		h := fnv.New64a()
		h.Write([]byte(f))
		sum := h.Sum64()
		sign := 1.0
		if sum>>63 == 1 {
			sign = -1
		}
		v[sum%uint64(dims)] += sign * kindWeight[f[0]] * (1 + math.Log(float64(n)))
	}
	var norm float64
	for _, x := range v {
		norm += x * x
	}
	out := make([]float32, dims)
	if norm == 0 {
		out[0] = 1
		return out
	}
	for i, x := range v {
		out[i] = float32(x / math.Sqrt(norm))
	}
	return out
}

func TestVector_SameAsTheFeatureStrings(t *testing.T) {
	e := New(Config{})
	for _, text := range []string{
		"", "the and of", "Harbour council approves the budget for the new bridge",
		"Zürich's Straße — naïve café; 東京 タワー 2026 résumé", "a b c dd eee ffff ggggg", "\xff\xfe broken \xc3 bytes",
		strings.Repeat("Ministers met again. The strike goes on; teachers and nurses march. ", 40),
	} {
		got, want := e.Vector(text), referenceVector(DefaultDims, text)
		for i := range want {
			if math.Abs(float64(got[i]-want[i])) > 1e-6 {
				t.Fatalf("%q: dimension %d is %v, want %v", text, i, got[i], want[i])
			}
		}
	}
}

var benchText = strings.Repeat("Ministers met again on Tuesday. The strike goes on; teachers and nurses march to the harbour. ", 30)

func BenchmarkVector(b *testing.B) {
	e := New(Config{})
	for b.Loop() {
		e.Vector(benchText)
	}
}

func BenchmarkVector_featureStrings(b *testing.B) {
	for b.Loop() {
		referenceVector(DefaultDims, benchText)
	}
}
