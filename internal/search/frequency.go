package search

import (
	"context"
	"fmt"
)

// MaxFrequency is where a word's count stops: past it a word is common, and
// counting further only costs time.
const MaxFrequency = 5000

// Frequencies counts the model's chunks and, for each word (lower-case
// letters and digits, as queryTerms gives them), the chunks holding it —
// stemmed as the word's language would be (English when lang is ""), and
// at most MaxFrequency. A caller weighs rare words above common ones with
// them (newsctl ask's relevance).
func (s *Searcher) Frequencies(ctx context.Context, words []string, lang string) (chunks int, counts []int, err error) {
	if lang == "" {
		lang = "en"
	}
	counts = make([]int, len(words))
	rows, err := s.pool.Query(ctx, `
		SELECT w.i, (SELECT count(*) FROM (SELECT 1 FROM chunks
			WHERE model = $2 AND dims = $3 AND tsv @@ (to_tsquery('simple', w.t) || to_tsquery(chunk_tsconfig($4), w.t))
			LIMIT $5) m)
		FROM unnest($1::text[]) WITH ORDINALITY AS w(t, i)
		UNION ALL SELECT 0, (SELECT count(*) FROM chunks WHERE model = $2 AND dims = $3)`,
		words, s.id.Model, s.id.Dims, lang, MaxFrequency)
	if err != nil {
		return 0, nil, fmt.Errorf("count word frequencies: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var i, n int
		if err := rows.Scan(&i, &n); err != nil {
			return 0, nil, fmt.Errorf("read word frequencies: %w", err)
		}
		if i == 0 {
			chunks = n
		} else {
			counts[i-1] = n
		}
	}
	if err := rows.Err(); err != nil {
		return 0, nil, fmt.Errorf("count word frequencies: %w", err)
	}
	return chunks, counts, nil
}
