// Command benchask measures newsctl ask without a model on a generated
// archive: news of six kinds over ten weeks on six sites, with near-miss
// distractors (the same town, company or team in another event) and
// syndicated copies, padded to -docs articles. Questions paraphrase their
// article; unanswerable ones pair a subject and an object the archive
// holds, never together. ASK_NOW is fixed (2026-12-02).
//
//	DATABASE_URL=postgres://…/newscrawl_bench go run ./bench/ask [-docs 10000] [-questions 120]
//
// The last line reads: hits@5 H, cites answering A, abstains right B,
// answers when answerable C, p50 P ms.
package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/newscrawl/newscrawl/internal/ask"
	"github.com/newscrawl/newscrawl/internal/embed"
	"github.com/newscrawl/newscrawl/internal/embed/chunk"
	"github.com/newscrawl/newscrawl/internal/embed/embedtest"
	"github.com/newscrawl/newscrawl/internal/embed/local"
	"github.com/newscrawl/newscrawl/internal/search"
	"github.com/newscrawl/newscrawl/internal/store"
)

const schema = "bench_ask"

var now = time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)

type options struct {
	docs, questions int
	seed            uint64
	databaseURL     string
	verbose         bool
}

func main() {
	var o options
	flag.IntVar(&o.docs, "docs", 10000, "articles in the archive")
	flag.IntVar(&o.questions, "questions", 120, "answerable questions, and as many unanswerable ones")
	flag.Uint64Var(&o.seed, "seed", 1, "random seed of the corpus")
	flag.BoolVar(&o.verbose, "v", false, "print every question that missed")
	flag.StringVar(&o.databaseURL, "database-url", envOr("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/newscrawl_bench?sslmode=disable"), "scratch database")
	flag.Parse()
	if err := run(context.Background(), o); err != nil {
		fmt.Fprintln(os.Stderr, "benchask:", err)
		os.Exit(1)
	}
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

func run(ctx context.Context, o options) error {
	conn, err := pgx.Connect(ctx, o.databaseURL)
	if err != nil {
		return err
	}
	_, err = conn.Exec(ctx, "DROP SCHEMA IF EXISTS "+schema+" CASCADE; CREATE SCHEMA "+schema)
	conn.Close(ctx)
	if err != nil {
		return err
	}
	defer func() {
		if c, err := pgx.Connect(context.Background(), o.databaseURL); err == nil {
			c.Exec(context.Background(), "DROP SCHEMA IF EXISTS "+schema+" CASCADE")
			c.Close(context.Background())
		}
	}()
	sep := "?"
	if strings.Contains(o.databaseURL, "?") {
		sep = "&"
	}
	pool, err := store.Open(ctx, o.databaseURL+sep+"search_path="+schema+",public")
	if err != nil {
		return err
	}
	defer pool.Close()
	if _, err := store.Migrate(ctx, pool); err != nil {
		return err
	}
	emb := local.New(local.Config{})
	st, err := embed.NewStage(pool, embed.Config{Embedder: emb, Chunk: chunk.Config{}})
	if err != nil {
		return err
	}
	c := generate(rand.New(rand.NewPCG(o.seed, 7)), o.docs, o.questions, now)
	t0 := time.Now()
	if err := embedtest.InsertAll(ctx, pool, c.articles...); err != nil {
		return err
	}
	if err := embedtest.EmbedAll(ctx, pool, st, c.articles...); err != nil {
		return err
	}
	if _, err := pool.Exec(ctx, "ANALYZE"); err != nil {
		return err
	}
	fmt.Printf("archive: %d articles (%d answerable questions, %d unanswerable) embedded with %s in %s\n",
		len(c.articles), len(c.answerable), len(c.unanswerable), local.ModelName, time.Since(t0).Round(time.Second))

	asker, err := ask.New(ask.Config{Searcher: search.New(pool, emb, search.Config{}, nil), Now: func() time.Time { return now }})
	if err != nil {
		return err
	}
	var took []time.Duration
	answer := func(q string) (ask.Answer, error) {
		t := time.Now()
		a, err := asker.Ask(ctx, ask.Request{Question: q})
		took = append(took, time.Since(t))
		return a, err
	}
	// A warm-up question: the first one pays for connections and plans.
	if _, err := answer("warm up the archive"); err != nil {
		return err
	}
	took = took[:0]
	var hits, cites, answered, abstainedRight int
	for _, q := range c.answerable {
		a, err := answer(q.text)
		if err != nil {
			return fmt.Errorf("ask %q: %w", q.text, err)
		}
		hit := slices.ContainsFunc(a.Sources, func(s ask.Source) bool { return slices.Contains(q.answers, s.DocID) })
		cite := !a.Abstained && len(a.Sentences) > 0 && slices.Contains(q.answers, a.Sources[a.Sentences[0].Citations[0]-1].DocID)
		if hit {
			hits++
		}
		if cite {
			cites++
		}
		if !a.Abstained {
			answered++
		}
		if o.verbose && (!hit || !cite || a.Abstained) {
			fmt.Printf("  missed %q (want %v): abstained %v, %s\n", q.text, q.answers, a.Abstained, describe(a))
		}
	}
	for _, q := range c.unanswerable {
		a, err := answer(q.text)
		if err != nil {
			return fmt.Errorf("ask %q: %w", q.text, err)
		}
		if a.Abstained {
			abstainedRight++
		} else if o.verbose {
			fmt.Printf("  answered the unanswerable %q: %s\n", q.text, describe(a))
		}
	}
	slices.Sort(took)
	p := func(f float64) float64 { return float64(took[int(f*float64(len(took)-1))].Microseconds()) / 1000 }
	na, nu := float64(len(c.answerable)), float64(len(c.unanswerable))
	fmt.Printf("latency over %d questions: p50 %.1f ms, p90 %.1f ms, p99 %.1f ms (no model)\n", len(took), p(0.5), p(0.9), p(0.99))
	fmt.Printf("hits@5 %.2f, cites answering %.2f, abstains right %.2f, answers when answerable %.2f, p50 %.0f ms\n",
		float64(hits)/na, float64(cites)/na, float64(abstainedRight)/nu, float64(answered)/na, p(0.5))
	return nil
}

// describe is an answer in one line, for -v.
func describe(a ask.Answer) string {
	var b strings.Builder
	for _, s := range a.Sources {
		fmt.Fprintf(&b, "[%d %s %.2f %q] ", s.N, s.DocID, s.Relevance, s.Title)
	}
	if len(a.Sentences) > 0 {
		fmt.Fprintf(&b, "→ %q", a.Sentences[0].Text)
	}
	return b.String()
}
