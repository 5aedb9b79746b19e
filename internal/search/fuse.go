package search

import "sort"

// A hit is one document's place in the final list, with the chunk shown
// as its snippet.
type hit struct {
	docID string
	chunk int
	score float64
}

// byDocument keeps each document's best chunk of a ranked list, in order.
func byDocument(cs []cand) []hit {
	seen := make(map[string]bool, len(cs))
	var out []hit
	for _, c := range cs {
		if !seen[c.docID] {
			seen[c.docID] = true
			out = append(out, hit{c.docID, c.chunk, c.score})
		}
	}
	return out
}

// fuse merges ranked lists by reciprocal rank fusion at the document
// level: a document scores Σ 1/(k + rank) over the lists where its best
// chunk ranks (rank from 1). Its snippet is the chunk with the highest
// chunk-level fused score. Ties break on doc_id, so results are stable.
func fuse(k int, lists ...[]cand) []hit {
	type chunkKey struct {
		doc   string
		chunk int
	}
	docScore := map[string]float64{}
	chunkScore := map[chunkKey]float64{}
	for _, list := range lists {
		for rank, h := range byDocument(list) {
			docScore[h.docID] += 1 / float64(k+rank+1)
		}
		for rank, c := range list {
			chunkScore[chunkKey{c.docID, c.chunk}] += 1 / float64(k+rank+1)
		}
	}
	best := map[string]chunkKey{}
	for ck, sc := range chunkScore {
		b, ok := best[ck.doc]
		if !ok || sc > chunkScore[b] || (sc == chunkScore[b] && ck.chunk < b.chunk) {
			best[ck.doc] = ck
		}
	}
	out := make([]hit, 0, len(docScore))
	for doc, sc := range docScore {
		out = append(out, hit{doc, best[doc].chunk, sc})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].score != out[j].score {
			return out[i].score > out[j].score
		}
		return out[i].docID < out[j].docID
	})
	return out
}

// allWordsFirst moves the documents with a chunk holding every word of the
// query (lex, a full-text list widened to any word) ahead of the rest,
// keeping the fused order within each group. The widening is there to fill
// the page; it must not let a document that shares one word with the query
// and sits near it in vector space outrank the one that holds them all
// ("report 123" among a hundred reports).
func allWordsFirst(hits []hit, lex []cand) []hit {
	every := map[string]bool{}
	for _, c := range lex {
		if c.allWords {
			every[c.docID] = true
		}
	}
	if len(every) == 0 {
		return hits
	}
	sort.SliceStable(hits, func(i, j int) bool { return every[hits[i].docID] && !every[hits[j].docID] })
	return hits
}
