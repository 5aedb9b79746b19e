package search

import (
	"fmt"
	"math"
	"testing"
)

func TestFuse_ReciprocalRankAtDocumentLevel(t *testing.T) {
	t.Parallel()
	vector := []cand{{"a", 0, .9}, {"a", 1, .8}, {"b", 2, .7}, {"c", 0, .6}}
	lexical := []cand{{"b", 1, 5}, {"c", 0, 4}, {"d", 3, 3}}
	got := fuse(60, vector, lexical)
	// b: 1/62 + 1/61; c: 1/63 + 1/62; a: 1/61; d: 1/63.
	want := "[b c a d]"
	var order []string
	for _, h := range got {
		order = append(order, h.docID)
	}
	if fmt.Sprint(order) != want {
		t.Fatalf("order %v, want %s", order, want)
	}
	tests := []struct {
		doc       string
		wantChunk int
	}{
		{"b", 1}, // chunk 1 ranks first in lexical (1/61) above chunk 2's third place in vector (1/63)
		{"c", 0},
		{"a", 0},
		{"d", 3},
	}
	for i, tc := range tests {
		if got[i].docID != tc.doc || got[i].chunk != tc.wantChunk {
			t.Errorf("hit %d: %s chunk %d, want %s chunk %d", i, got[i].docID, got[i].chunk, tc.doc, tc.wantChunk)
		}
	}
	if s := got[0].score; math.Abs(s-(1.0/62+1.0/61)) > 1e-12 {
		t.Errorf("score of b %v, want %v", s, 1.0/62+1.0/61)
	}
}

func TestByDocument_KeepsBestChunkInOrder(t *testing.T) {
	t.Parallel()
	got := byDocument([]cand{{"a", 2, .9}, {"b", 0, .8}, {"a", 0, .7}})
	if len(got) != 2 || got[0] != (hit{"a", 2, .9}) || got[1] != (hit{"b", 0, .8}) {
		t.Fatalf("got %+v", got)
	}
}
