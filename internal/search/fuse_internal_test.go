package search

import (
	"fmt"
	"math"
	"testing"
)

func TestFuse_ReciprocalRankAtDocumentLevel(t *testing.T) {
	t.Parallel()
	vector := []cand{{docID: "a", chunk: 0, score: .9}, {docID: "a", chunk: 1, score: .8}, {docID: "b", chunk: 2, score: .7}, {docID: "c", chunk: 0, score: .6}}
	lexical := []cand{{docID: "b", chunk: 1, score: 5}, {docID: "c", chunk: 0, score: 4}, {docID: "d", chunk: 3, score: 3}}
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
	got := byDocument([]cand{{docID: "a", chunk: 2, score: .9}, {docID: "b", chunk: 0, score: .8}, {docID: "a", chunk: 0, score: .7}})
	if len(got) != 2 || got[0] != (hit{docID: "a", chunk: 2, score: .9}) || got[1] != (hit{docID: "b", chunk: 0, score: .8}) {
		t.Fatalf("got %+v", got)
	}
}

func TestAllWordsFirst_AheadOfTheFusedOrder(t *testing.T) {
	t.Parallel()
	// d holds every word but only in the widened full-text list; b and c
	// share a word and are near in vector space.
	vector := []cand{{docID: "b", score: .9}, {docID: "c", score: .8}, {docID: "a", score: .7}}
	lexical := []cand{{docID: "d", score: 5, allWords: true}, {docID: "b", score: 1}, {docID: "c", score: 1}}
	var order []string
	for _, h := range allWordsFirst(fuse(60, vector, lexical), lexical) {
		order = append(order, h.docID)
	}
	if fmt.Sprint(order) != "[d b c a]" {
		t.Fatalf("order %v, want [d b c a]", order)
	}
	// Without a widening nothing is marked, and fusion alone decides.
	lexical = []cand{{docID: "d", score: 5}, {docID: "b", score: 1}}
	order = order[:0]
	for _, h := range allWordsFirst(fuse(60, vector, lexical), lexical) {
		order = append(order, h.docID)
	}
	if fmt.Sprint(order) != "[b d c a]" {
		t.Fatalf("order %v, want [b d c a]", order)
	}
}
