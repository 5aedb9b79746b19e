package search

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/newscrawl/newscrawl/internal/embed/local"
)

// tsConfigs are the text-search configurations chunk_tsconfig (migration
// 00005) indexes chunks with; a query without --lang is parsed with each.
var tsConfigs = []string{"simple", "english", "german", "french", "spanish", "italian", "portuguese", "dutch",
	"swedish", "danish", "norwegian", "finnish", "russian", "turkish", "hungarian", "romanian"}

const maxQueryTerms = 32

// maxCombinations bounds the tsquery of a widened match: the query words
// taken m at a time are OR-ed, and C(n, m) grows fast.
const maxCombinations = 20

// lexical returns up to limit chunks for the query's words, ranked by
// ts_rank (length-normalised; title matches weigh more). Chunks holding
// every word come first; only when they cover fewer than q.K documents is
// the match widened, a word at a time — chunks holding all words but one,
// then all but two (while the combinations stay few), then any word but
// the common ones, then any word — as a search engine's "minimum should
// match" does, so a chunk holding three of four words ranks before one
// that repeats a single word, and one holding a rare word before one
// holding only a word that a twentieth of the corpus holds. A
// widened match ranks at most cfg.MaxLexicalMatches chunks (ranking is not
// index-assisted, and a frequent word matches much of the corpus).
func (s *Searcher) lexical(ctx context.Context, q Query, limit int) ([]cand, error) {
	terms := queryTerms(q.Text)
	if len(terms) == 0 {
		return nil, nil
	}
	ends, err := s.tsQueries(ctx, q, []string{strings.Join(terms, " & "), strings.Join(terms, " | ")})
	if err != nil || ends[0] == "" {
		return nil, err
	}
	all, err := s.lexicalQuery(ctx, q, ends[0], limit, 0)
	if err != nil {
		return nil, err
	}
	if distinctDocs(all) >= q.K {
		return all, nil
	}
	for i := range all {
		all[i].allWords = true
	}
	enough := func() bool { return distinctDocs(all) >= q.K || len(all) >= limit }
	if enough() {
		return all, nil
	}
	// The widenings between every word and any word are parsed only now:
	// most queries stop at every word, and a six-word query's widenings
	// take ten times as long to parse as its two ends (6.4 against 0.7 ms).
	var levels []string
	if mid := widenings(terms); len(mid) > 0 {
		if levels, err = s.tsQueries(ctx, q, mid); err != nil {
			return nil, err
		}
	}
	levels = append(levels, ends[1])
	type key struct {
		doc   string
		chunk int
	}
	seen := make(map[key]bool, len(all))
	for _, c := range all {
		seen[key{c.docID, c.chunk}] = true
	}
	prev := ends[0]
	rareTried := len(terms) < 2
	for i := 0; i < len(levels); i++ {
		tsq := levels[i]
		if enough() {
			break
		}
		if i == len(levels)-1 && !rareTried {
			rareTried = true
			// Any word: the rare ones first, decided only now (two more
			// round trips), since most queries never widen this far.
			rare, err := s.rareTerms(ctx, q, terms)
			if err != nil {
				return nil, err
			}
			if len(rare) > 0 && len(rare) < len(terms) {
				parsed, err := s.tsQueries(ctx, q, []string{strings.Join(rare, " | ")})
				if err != nil {
					return nil, err
				}
				levels = append(levels[:i], parsed[0], tsq)
				tsq = levels[i]
			}
		}
		if tsq == prev || tsq == "" {
			continue // the configurations' stop words made it the same match
		}
		prev = tsq
		wider, err := s.lexicalQuery(ctx, q, tsq, limit, s.cfg.MaxLexicalMatches)
		if err != nil {
			return nil, err
		}
		for _, c := range wider {
			if len(all) >= limit {
				break
			}
			if k := (key{c.docID, c.chunk}); !seen[k] {
				seen[k] = true
				all = append(all, c)
			}
		}
	}
	return all, nil
}

// widenings are the tsquery expressions between every word and any word:
// all words but one, all but two, … while C(n, m) stays within
// maxCombinations.
func widenings(terms []string) []string {
	var levels []string
	for m := len(terms) - 1; m >= 2; m-- {
		if binomial(len(terms), m) > maxCombinations {
			break
		}
		var ors []string
		for _, c := range combinations(len(terms), m) {
			ws := make([]string, len(c))
			for i, j := range c {
				ws[i] = terms[j]
			}
			ors = append(ors, "("+strings.Join(ws, " & ")+")")
		}
		levels = append(levels, strings.Join(ors, " | "))
	}
	return levels
}

func binomial(n, k int) int {
	r := 1
	for i := 1; i <= k; i++ {
		r = r * (n - k + i) / i
	}
	return r
}

// combinations lists the k-element subsets of 0..n-1 in lexicographic order.
func combinations(n, k int) [][]int {
	var out [][]int
	c := make([]int, k)
	var rec func(start, depth int)
	rec = func(start, depth int) {
		if depth == k {
			out = append(out, slices.Clone(c))
			return
		}
		for i := start; i <= n-(k-depth); i++ {
			c[depth] = i
			rec(i+1, depth+1)
		}
	}
	rec(0, 0)
	return out
}

// commonShare is the share of the chunks holding a word past which the
// widest match leaves it out while rarer words fill it: such a word says
// little of a chunk, and matching it alone meant reading and ranking a
// large part of the table (at 1M chunks, 330,608 rows for one word).
const commonShare = 0.05

// rareTerms returns the query's words that fewer than commonShare of the
// chunks hold, by the table's own statistics (ANALYZE keeps the commonest
// lexemes of tsv and their shares; no statistics yet, no common words).
// A word is common when any configuration's lexeme of it is.
func (s *Searcher) rareTerms(ctx context.Context, q Query, terms []string) ([]string, error) {
	rows, err := s.pool.Query(ctx, `
		WITH st AS (
			SELECT s.most_common_elems::text::text[] AS elems, s.most_common_elem_freqs AS freqs
			FROM pg_stats s JOIN pg_class c ON c.oid = 'chunks'::regclass JOIN pg_namespace n ON n.oid = c.relnamespace
			WHERE s.schemaname = n.nspname AND s.tablename = 'chunks' AND s.attname = 'tsv')
		SELECT t.w FROM unnest($2::text[]) WITH ORDINALITY AS t(w, i)
		WHERE NOT EXISTS (
			SELECT 1 FROM st,
				unnest(CASE WHEN $3 = '' THEN $1::text[] ELSE ARRAY['simple', chunk_tsconfig($3)::text] END) AS c(cfg),
				unnest(tsvector_to_array(to_tsvector(c.cfg::regconfig, t.w))) AS l(lexeme)
			WHERE st.freqs[array_position(st.elems, l.lexeme)] >= $4)
		ORDER BY t.i`,
		tsConfigs, terms, q.Lang, commonShare)
	if err != nil {
		return nil, fmt.Errorf("find the query's common words: %w", err)
	}
	rare, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("find the query's common words: %w", err)
	}
	return rare, nil
}

// tsQueries parses each expression (words joined by & and |) with every
// text-search configuration chunks may be indexed with (or, with a language
// filter, that language's and 'simple') and returns each as tsquery text:
// the OR of its distinct per-configuration parses, "" when no configuration
// keeps a word. Deduplicating keeps the index scan and ts_rank from
// evaluating the same branch 16 times. Words are letters, marks and digits
// only, so the input holds no operators but ours. One round trip for all.
func (s *Searcher) tsQueries(ctx context.Context, q Query, exprs []string) ([]string, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT coalesce(string_agg(DISTINCT '(' || t.p::text || ')', ' | ') FILTER (WHERE t.p::text <> ''), '')
		FROM unnest($2::text[]) WITH ORDINALITY AS e(x, i)
		CROSS JOIN unnest(CASE WHEN $3 = '' THEN $1::text[] ELSE ARRAY['simple', chunk_tsconfig($3)::text] END) AS c(cfg),
		     LATERAL (SELECT to_tsquery(c.cfg::regconfig, e.x) AS p) t
		GROUP BY e.i ORDER BY e.i`,
		tsConfigs, exprs, q.Lang)
	if err != nil {
		return nil, fmt.Errorf("parse the full-text query: %w", err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("parse the full-text query: %w", err)
	}
	if len(out) != len(exprs) {
		return nil, fmt.Errorf("parse the full-text query: %d of %d expressions came back", len(out), len(exprs))
	}
	return out, nil
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
