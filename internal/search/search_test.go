package search_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/newscrawl/newscrawl/internal/embed"
	"github.com/newscrawl/newscrawl/internal/embed/chunk"
	"github.com/newscrawl/newscrawl/internal/embed/embedtest"
	"github.com/newscrawl/newscrawl/internal/embed/local"
	"github.com/newscrawl/newscrawl/internal/search"
	"github.com/newscrawl/newscrawl/internal/testenv"
)

// setup embeds articles with the local embedder on a fresh schema.
func setup(t *testing.T, articles ...embedtest.Article) (*pgxpool.Pool, *local.Embedder) {
	t.Helper()
	pool := testenv.Postgres(t)
	e := local.New(local.Config{})
	st, err := embed.NewStage(pool, embed.Config{Embedder: e, Chunk: chunk.Config{TargetTokens: 60, OverlapTokens: 10}})
	if err != nil {
		t.Fatal(err)
	}
	embedtest.Insert(t, pool, articles...)
	embedtest.Embed(t, pool, st, articles...)
	return pool, e
}

func docIDs(rs []search.Result) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.DocID
	}
	return out
}

func TestSearcher_LabelledCorpusRanksAnswerFirst(t *testing.T) {
	t.Parallel()
	pool, e := setup(t, corpus...)
	s := search.New(pool, e, search.Config{}, nil)
	for _, mode := range []search.Mode{search.Hybrid, search.Vector, search.Lexical} {
		t.Run(string(mode), func(t *testing.T) {
			misses := 0
			for _, l := range labelled {
				rs, err := s.Search(context.Background(), search.Query{Text: l.query, K: 5, Mode: mode})
				if err != nil {
					t.Fatal(err)
				}
				if len(rs) == 0 || rs[0].DocID != l.want {
					misses++
					t.Logf("%s %q: got %v, want %s first", mode, l.query, docIDs(rs), l.want)
				}
			}
			// Hybrid must answer every labelled query; a single list may miss one.
			if limit := map[search.Mode]int{search.Hybrid: 0, search.Vector: 1, search.Lexical: 1}[mode]; misses > limit {
				t.Fatalf("%s: %d of %d labelled queries missed, allowed %d", mode, misses, len(labelled), limit)
			}
		})
	}
}

func TestSearcher_ResultFields(t *testing.T) {
	t.Parallel()
	pool, e := setup(t, corpus...)
	s := search.New(pool, e, search.Config{}, nil)
	rs, err := s.Search(context.Background(), search.Query{Text: "Taiwan earthquake", K: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 3 {
		t.Fatalf("got %d results, want 3", len(rs))
	}
	r := rs[0]
	if r.DocID != "earthquake" || r.URL != "https://news.example/earthquake" || r.Title != "Strong earthquake strikes Taiwan" ||
		r.PublishedAt == nil || r.PublishedAt.Format("2006-01-02") != "2024-04-03" || !strings.Contains(r.Snippet, "earthquake") ||
		r.Score <= rs[1].Score || r.Topics == nil {
		t.Fatalf("first result %+v", r)
	}
}

// filterCorpus has 30 articles about one story on two hosts, languages and months.
func filterCorpus() []embedtest.Article {
	var out []embedtest.Article
	for i := range 30 {
		host, lang, month := "big.example", "en", "2024-01-15"
		if i%3 == 0 {
			host = "small.example"
		}
		if i%5 == 0 {
			lang = "de"
		}
		if i >= 20 {
			month = "2024-03-15"
		}
		out = append(out, embedtest.Article{DocID: fmt.Sprintf("d%02d", i), Host: host, Language: lang, Published: day(month),
			Title: fmt.Sprintf("Flood report %d", i),
			Text:  fmt.Sprintf("River levels rose again in town %d after heavy rain. Flood defences held in most streets. Residents of district %d were told to stay alert.", i, i)})
	}
	return out
}

func TestSearcher_FiltersNeverStarve(t *testing.T) {
	t.Parallel()
	articles := filterCorpus()
	pool, e := setup(t, articles...)
	since, until := day("2024-03-01"), day("2024-04-01")
	tests := []struct {
		name  string
		query search.Query
		match func(embedtest.Article) bool
	}{
		{name: "host", query: search.Query{Host: "small.example"}, match: func(a embedtest.Article) bool { return a.Host == "small.example" }},
		{name: "lang", query: search.Query{Lang: "de"}, match: func(a embedtest.Article) bool { return a.Language == "de" }},
		{name: "dates", query: search.Query{Since: &since, Until: &until}, match: func(a embedtest.Article) bool { return !a.Published.Before(since) }},
		{name: "host and dates", query: search.Query{Host: "big.example", Since: &since}, match: func(a embedtest.Article) bool {
			return a.Host == "big.example" && !a.Published.Before(since)
		}},
	}
	// A threshold of 1 forces the filtered HNSW scan; a large one the exact scan.
	for _, threshold := range []int{1, 1_000_000} {
		s := search.New(pool, e, search.Config{ExactThreshold: threshold, Candidates: 5}, nil)
		for _, tc := range tests {
			for _, mode := range []search.Mode{search.Hybrid, search.Vector, search.Lexical} {
				t.Run(fmt.Sprintf("%s/%s/threshold=%d", tc.name, mode, threshold), func(t *testing.T) {
					want := 0
					for _, a := range articles {
						if tc.match(a) {
							want++
						}
					}
					q := tc.query
					q.Text, q.K, q.Mode = "flood river levels", min(want, 10), mode
					rs, err := s.Search(context.Background(), q)
					if err != nil {
						t.Fatal(err)
					}
					if len(rs) != q.K {
						t.Fatalf("got %d results, want k=%d (%d match)", len(rs), q.K, want)
					}
					byID := map[string]embedtest.Article{}
					for _, a := range articles {
						byID[a.DocID] = a
					}
					for _, r := range rs {
						if !tc.match(byID[r.DocID]) {
							t.Fatalf("result %s does not match the filter", r.DocID)
						}
					}
				})
			}
		}
	}
}

func TestSearcher_ModelMismatchIsAnError(t *testing.T) {
	t.Parallel()
	pool, _ := setup(t, corpus[:2]...)
	s := search.New(pool, local.New(local.Config{Dims: 64}), search.Config{}, nil)
	_, err := s.Search(context.Background(), search.Query{Text: "oil"})
	var me *search.ModelError
	if !errors.As(err, &me) || !strings.Contains(err.Error(), "local-hash-v1@64") {
		t.Fatalf("err %v, want a ModelError naming local-hash-v1@64", err)
	}
}

func TestSearcher_QueryValidation(t *testing.T) {
	t.Parallel()
	pool, e := setup(t, corpus[:1]...)
	s := search.New(pool, e, search.Config{}, nil)
	tests := []struct {
		name  string
		query search.Query
	}{
		{"empty", search.Query{Text: "  "}},
		{"k too large", search.Query{Text: "x", K: search.MaxK + 1}},
		{"negative k", search.Query{Text: "x", K: -1}},
		{"bad mode", search.Query{Text: "x", Mode: "fuzzy"}},
		{"too long", search.Query{Text: strings.Repeat("a", search.MaxQueryLen+1)}},
		{"bad lang", search.Query{Text: "x", Lang: "english!"}},
		{"NUL in the text", search.Query{Text: "a\x00b"}},
		{"NUL in the host", search.Query{Text: "x", Host: "a\x00b"}},
		{"escape in the lang", search.Query{Text: "x", Lang: "en\x1b"}},
	}
	for _, tc := range tests {
		if _, err := s.Search(context.Background(), tc.query); !search.IsInvalid(err) {
			t.Errorf("%s: err %v, want a validation error", tc.name, err)
		}
	}
}

// Without the model's HNSW index (dropped for a backfill), vector search
// scans exactly: the same answers as with the index on this small corpus.
func TestSearcher_WorksWithoutTheIndex(t *testing.T) {
	t.Parallel()
	pool, e := setup(t, corpus...)
	s := search.New(pool, e, search.Config{}, nil)
	ctx := context.Background()
	run := func() [][]string {
		var out [][]string
		for _, l := range labelled {
			rs, err := s.Search(ctx, search.Query{Text: l.query, K: 5, Mode: search.Vector})
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, docIDs(rs))
		}
		return out
	}
	with := run()
	if err := embed.DropIndex(ctx, pool, e.Identity()); err != nil {
		t.Fatal(err)
	}
	if st, err := embed.Index(ctx, pool, e.Identity()); err != nil || st.Exists {
		t.Fatalf("index after drop: %+v, %v", st, err)
	}
	without := run()
	if fmt.Sprint(with) != fmt.Sprint(without) {
		t.Fatalf("results differ without the index:\nwith    %v\nwithout %v", with, without)
	}
}

// downEmbedder is a query embedder whose server hangs until the caller
// gives up, or refuses at once.
type downEmbedder struct {
	embed.Embedder
	hang bool
}

func (d downEmbedder) Embed(ctx context.Context, inputs []string, kind embed.Kind) ([][]float32, error) {
	if d.hang {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return nil, errors.New("dial tcp 127.0.0.1:11434: connect: connection refused")
}

// Search never waits on the model: with the query embedder down or
// hanging, it answers from full text within its budget and says so.
func TestSearcher_QueryEmbedderDownAnswersFromFullText(t *testing.T) {
	t.Parallel()
	pool, e := setup(t, corpus...)
	for _, hang := range []bool{false, true} {
		s := search.New(pool, downEmbedder{Embedder: e, hang: hang}, search.Config{QueryEmbedTimeout: 300 * time.Millisecond}, nil)
		for _, mode := range []search.Mode{search.Hybrid, search.Vector} {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			a, err := s.Answer(ctx, search.Query{Text: "Taiwan earthquake", K: 3, Mode: mode})
			cancel()
			if err != nil {
				t.Fatalf("hang=%v %s: %v", hang, mode, err)
			}
			if len(a.Results) == 0 || a.Results[0].DocID != "earthquake" || a.Mode != search.Lexical || !strings.Contains(a.Note, "full text") {
				t.Fatalf("hang=%v %s: %+v, want the earthquake first from full text, with a note", hang, mode, a)
			}
		}
	}
}

// Only the embedding is bounded by QueryEmbedTimeout: a vector query the
// database is slow to answer (here, waiting on a lock held past the bound)
// is waited for, not taken for a missing model and answered from full text.
func TestSearcher_SlowDatabaseIsNotAMissingModel(t *testing.T) {
	t.Parallel()
	pool, e := setup(t, corpus...)
	s := search.New(pool, e, search.Config{QueryEmbedTimeout: 200 * time.Millisecond}, nil)
	ctx := context.Background()
	for _, mode := range []search.Mode{search.Hybrid, search.Vector} {
		if _, err := s.Search(ctx, search.Query{Text: "Taiwan earthquake", K: 3, Mode: mode}); err != nil {
			t.Fatal(err) // the model check is remembered from here on
		}
		tx, err := pool.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(ctx, `LOCK TABLE chunks IN ACCESS EXCLUSIVE MODE`); err != nil {
			t.Fatal(err)
		}
		released := make(chan error, 1)
		go func() {
			time.Sleep(time.Second)
			released <- tx.Commit(ctx)
		}()
		qctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		a, err := s.Answer(qctx, search.Query{Text: "Taiwan earthquake", K: 3, Mode: mode})
		cancel()
		if rerr := <-released; rerr != nil {
			t.Fatal(rerr)
		}
		if err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		if a.Mode != mode || a.Note != "" || len(a.Results) == 0 || a.Results[0].DocID != "earthquake" {
			t.Fatalf("%s behind a lock: mode %s, note %q, %d results; want %s answered in full", mode, a.Mode, a.Note, len(a.Results), mode)
		}
	}
}

// With nothing embedded at all, the error says so and where to look,
// instead of advising a re-embed.
func TestSearcher_NothingEmbeddedSaysWhereToLook(t *testing.T) {
	t.Parallel()
	pool := testenv.Postgres(t)
	s := search.New(pool, local.New(local.Config{}), search.Config{}, nil)
	_, err := s.Search(context.Background(), search.Query{Text: "oil"})
	var me *search.ModelError
	if !errors.As(err, &me) || !me.Nothing || !strings.Contains(err.Error(), "newsctl stats") || strings.Contains(err.Error(), "reembed") {
		t.Fatalf("err %v, want nothing embedded, pointing at newsctl stats", err)
	}
}

// One document with 4,000 chunks (a 5 MB page) crowds every candidate list:
// candidates grow past pgvector's ef_search limit of 1000, and search must
// still answer, in every mode, for any k.
func TestSearcher_ThousandsOfChunksInOneDocument(t *testing.T) {
	t.Parallel()
	pool, e := setup(t, corpus...)
	if _, err := pool.Exec(context.Background(), `INSERT INTO chunks (doc_id, model, dims, chunk_index, body_hash, char_start, char_end, text, embedding)
		SELECT doc_id, model, dims, chunk_index + g, body_hash, char_start, char_end, text, embedding
		FROM chunks, generate_series(1000, 4999) g WHERE doc_id = 'earthquake' AND chunk_index = 0`); err != nil {
		t.Fatal(err)
	}
	s := search.New(pool, e, search.Config{}, nil)
	for _, mode := range []search.Mode{search.Hybrid, search.Vector, search.Lexical} {
		for _, q := range []search.Query{{Text: "a", K: search.MaxK}, {Text: "earthquake Taiwan", K: 10}, {Text: "' OR 1=1; --", K: 50}} {
			q.Mode = mode
			rs, err := s.Search(context.Background(), q)
			if err != nil {
				t.Fatalf("%s %q k=%d: %v", mode, q.Text, q.K, err)
			}
			if q.Text == "earthquake Taiwan" && (len(rs) == 0 || rs[0].DocID != "earthquake") {
				t.Errorf("%s %q: got %v, want earthquake first", mode, q.Text, docIDs(rs))
			}
		}
	}
}

// A query naming one document among many alike ("flood report 17" among
// thirty flood reports) finds it first in every mode: in hybrid, the
// documents holding every word come before those that share a word and
// sit near the query in vector space.
func TestSearcher_EveryWordBeatsNearbyPartialMatches(t *testing.T) {
	t.Parallel()
	articles := filterCorpus()
	for i := range articles {
		// The wanted report says little about floods; the others say much.
		if i == 17 {
			articles[i].Text = "The county published its yearly figures on roads, schools and parks, with a short note on weather."
		} else {
			articles[i].Text = strings.Repeat("Flood report: river flood waters rose, flood defences held, the flood report said. ", 3)
		}
	}
	pool, e := setup(t, articles...)
	s := search.New(pool, e, search.Config{}, nil)
	for _, mode := range []search.Mode{search.Hybrid, search.Lexical} {
		rs, err := s.Search(context.Background(), search.Query{Text: "flood report 17", K: 3, Mode: mode})
		if err != nil {
			t.Fatal(err)
		}
		if len(rs) == 0 || rs[0].DocID != "d17" {
			t.Errorf("%s: got %v, want d17 first", mode, docIDs(rs))
		}
	}
}

// A query no document answers whole ("harbour crane strike Rotterdam")
// finds the document holding three of its words even when the words one by
// one match more chunks than are ranked (MaxLexicalMatches, 5 here as 5,000
// is among a million chunks): the match widens a word at a time, not
// straight to any word.
func TestSearcher_MostWordsBeatOneWordRepeated(t *testing.T) {
	t.Parallel()
	articles := filterCorpus()
	for i := range articles {
		articles[i].Title = fmt.Sprintf("Notice %d", i)
		switch {
		case i == 23:
			articles[i].Text = "Dock workers walked out on Monday. The harbour was quiet and the strike closed every crane berth on the quay."
		case i%2 == 0:
			articles[i].Text = strings.Repeat("The harbour master opened the harbour to traffic; harbour fees rose. ", 3)
		default:
			articles[i].Text = strings.Repeat("A strike of rail staff, the third strike this year, ended the strike talks. ", 3)
		}
	}
	pool, e := setup(t, articles...)
	s := search.New(pool, e, search.Config{MaxLexicalMatches: 5}, nil)
	for _, mode := range []search.Mode{search.Hybrid, search.Lexical} {
		rs, err := s.Search(context.Background(), search.Query{Text: "harbour crane strike Rotterdam", K: 3, Mode: mode})
		if err != nil {
			t.Fatal(err)
		}
		if len(rs) == 0 || rs[0].DocID != "d23" {
			t.Errorf("%s: got %v, want d23 first", mode, docIDs(rs))
		}
	}
}

// At the widest match a word most chunks hold gives way to the rarer ones:
// "harbour crane Rotterdam" among thirty harbour notices, none holding two
// of the words, finds the one chunk with "crane" first, though ranking the
// notices by "harbour" alone would put any of them above it and the
// ranking cap (5 here) need not even reach it. The table's statistics say
// which words are common, so the test runs ANALYZE as autovacuum would.
func TestSearcher_ACommonWordGivesWayToRareOnes(t *testing.T) {
	t.Parallel()
	articles := filterCorpus()
	for i := range articles {
		articles[i].Title = fmt.Sprintf("Notice %d", i)
		articles[i].Language = "en"
		if i == 23 {
			articles[i].Text = "A crane fell on the quay at night. Nobody was hurt, and the berth reopened in the morning."
		} else {
			articles[i].Text = strings.Repeat("The harbour master opened the harbour to traffic; harbour fees rose. ", 3)
		}
	}
	pool, e := setup(t, articles...)
	if _, err := pool.Exec(context.Background(), "ANALYZE chunks"); err != nil {
		t.Fatal(err)
	}
	s := search.New(pool, e, search.Config{MaxLexicalMatches: 5}, nil)
	rs, err := s.Search(context.Background(), search.Query{Text: "harbour crane Rotterdam", K: 3, Mode: search.Lexical})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 3 || rs[0].DocID != "d23" {
		t.Errorf("got %v, want d23 first, then two harbour notices", docIDs(rs))
	}
}
