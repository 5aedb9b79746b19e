package search

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/newscrawl/newscrawl/internal/embed/local"
)

// tsConfigs are the text-search configurations chunk_tsconfig (migration
// 00005) indexes chunks with; a query without --lang is parsed with each.
var tsConfigs = []string{"simple", "english", "german", "french", "spanish", "italian", "portuguese", "dutch",
	"swedish", "danish", "norwegian", "finnish", "russian", "turkish", "hungarian", "romanian"}

const maxQueryTerms = 32

// lexical returns up to limit chunks for the query's words, ranked by
// ts_rank (length-normalised; title matches weigh more). Chunks holding
// every word come first; only when they cover fewer than q.K documents are
// chunks holding any word added, and that wider match ranks at most
// cfg.MaxLexicalMatches chunks (ranking is not index-assisted, and a
// frequent word matches much of the corpus).
func (s *Searcher) lexical(ctx context.Context, q Query, limit int) ([]cand, error) {
	terms := queryTerms(q.Text)
	if len(terms) == 0 {
		return nil, nil
	}
	allQ, anyQ, err := s.tsQueries(ctx, q, terms)
	if err != nil || allQ == "" {
		return nil, err
	}
	all, err := s.lexicalQuery(ctx, q, allQ, limit, 0)
	if err != nil || allQ == anyQ || distinctDocs(all) >= q.K {
		return all, err
	}
	anyTerm, err := s.lexicalQuery(ctx, q, anyQ, limit, s.cfg.MaxLexicalMatches)
	if err != nil {
		return nil, err
	}
	for i := range all {
		all[i].allWords = true
	}
	type key struct {
		doc   string
		chunk int
	}
	seen := make(map[key]bool, len(all))
	for _, c := range all {
		seen[key{c.docID, c.chunk}] = true
	}
	for _, c := range anyTerm {
		if len(all) >= limit {
			break
		}
		if !seen[key{c.docID, c.chunk}] {
			all = append(all, c)
		}
	}
	return all, nil
}

// tsQueries parses the words with every text-search configuration chunks
// may be indexed with (or, with a language filter, that language's and
// 'simple') and returns two tsqueries as text: every word (&) and any word
// (|), each the OR of the distinct per-configuration parses. Deduplicating
// keeps the index scan and ts_rank from evaluating the same branch 16 times.
// Words are letters, marks and digits only, so the input holds no
// operators but ours.
func (s *Searcher) tsQueries(ctx context.Context, q Query, terms []string) (all, anyTerm string, err error) {
	err = s.pool.QueryRow(ctx, `
		SELECT coalesce(string_agg(DISTINCT '(' || a::text || ')', ' | ') FILTER (WHERE a::text <> ''), ''),
		       coalesce(string_agg(DISTINCT '(' || o::text || ')', ' | ') FILTER (WHERE o::text <> ''), '')
		FROM unnest(CASE WHEN $4 = '' THEN $1::text[] ELSE ARRAY['simple', chunk_tsconfig($4)::text] END) AS c(cfg),
		     LATERAL (SELECT to_tsquery(c.cfg::regconfig, $2) AS a, to_tsquery(c.cfg::regconfig, $3) AS o) t`,
		tsConfigs, strings.Join(terms, " & "), strings.Join(terms, " | "), q.Lang).Scan(&all, &anyTerm)
	if err != nil {
		return "", "", fmt.Errorf("parse the full-text query: %w", err)
	}
	return all, anyTerm, nil
}

// lexicalQuery runs one full-text query for tsq (tsquery text). cap > 0
// bounds how many matching chunks are ranked.
func (s *Searcher) lexicalQuery(ctx context.Context, q Query, tsq string, limit, cap int) ([]cand, error) {
	where, fargs := q.filters(5)
	args := append([]any{tsq, s.id.Model, s.id.Dims, limit}, fargs...)
	capSQL := ""
	if cap > 0 {
		capSQL = fmt.Sprintf(" LIMIT %d", cap)
	}
	sql := fmt.Sprintf(`SELECT doc_id, chunk_index, ts_rank(tsv, $1::tsquery, 1) AS rank FROM (
			SELECT doc_id, chunk_index, tsv FROM chunks
			WHERE model = $2 AND dims = $3 AND tsv @@ $1::tsquery%[1]s%[2]s) m
		ORDER BY rank DESC, doc_id, chunk_index LIMIT $4`, where, capSQL)
	rows, err := s.pool.Query(ctx, sql, args...)
	if err != nil {
		return nil, fmt.Errorf("full-text search: %w", err)
	}
	cs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (cand, error) {
		var c cand
		err := r.Scan(&c.docID, &c.chunk, &c.score)
		return c, err
	})
	if err != nil {
		return nil, fmt.Errorf("read full-text rows: %w", err)
	}
	return cs, nil
}

// queryTerms splits the query into distinct lower-case words.
func queryTerms(text string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range local.Words(text) {
		if !seen[w] && len(out) < maxQueryTerms {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}
