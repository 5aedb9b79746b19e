package local_test

import (
	"context"
	"math"
	"testing"

	"github.com/newscrawl/newscrawl/internal/embed"
	"github.com/newscrawl/newscrawl/internal/embed/local"
)

func cosine(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func TestEmbedder_DeterministicUnitVectors(t *testing.T) {
	t.Parallel()
	e := local.New(local.Config{})
	inputs := []string{"Oil prices rose sharply", "", "!!! ???", "the of and", "東京都は新しい政策を発表した", "Café à Zürich"}
	a, err := e.Embed(context.Background(), inputs, embed.Document)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := local.New(local.Config{}).Embed(context.Background(), inputs, embed.Query)
	for i := range inputs {
		if len(a[i]) != local.DefaultDims {
			t.Fatalf("input %d: %d dims, want %d", i, len(a[i]), local.DefaultDims)
		}
		if n := cosine(a[i], a[i]); math.Abs(n-1) > 1e-5 {
			t.Fatalf("input %q: squared norm %f, want 1", inputs[i], n)
		}
		for j := range a[i] {
			if a[i][j] != b[i][j] {
				t.Fatalf("input %q: not deterministic at %d", inputs[i], j)
			}
		}
	}
}

func TestEmbedder_RelatedTextsAreCloser(t *testing.T) {
	t.Parallel()
	e := local.New(local.Config{})
	tests := []struct {
		query, near, far string
	}{
		{"oil prices", "Crude oil prices climbed as OPEC cut output", "The football team won the championship final"},
		{"election results", "Voters went to the polls; the election result was announced", "A new species of frog was discovered"},
		{"vaccinated", "Millions were vaccinated against measles", "The bridge closed for repairs"},
	}
	for _, tc := range tests {
		q, near, far := e.Vector(tc.query), e.Vector(tc.near), e.Vector(tc.far)
		if cn, cf := cosine(q, near), cosine(q, far); cn <= cf {
			t.Errorf("%q: near %.3f <= far %.3f", tc.query, cn, cf)
		}
	}
}

func TestEmbedder_Dims(t *testing.T) {
	t.Parallel()
	e := local.New(local.Config{Dims: 64})
	if id := e.Identity(); id.Dims != 64 || id.Model != local.ModelName || id.Version() != local.ModelName+"@64" {
		t.Fatalf("identity %+v", id)
	}
	if n := len(e.Vector("hello world")); n != 64 {
		t.Fatalf("%d dims, want 64", n)
	}
}
