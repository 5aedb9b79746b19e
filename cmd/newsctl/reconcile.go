package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"text/tabwriter"

	"github.com/newscrawl/newscrawl/internal/clean"
	"github.com/newscrawl/newscrawl/internal/config"
	"github.com/newscrawl/newscrawl/internal/embed/provider"
	"github.com/newscrawl/newscrawl/internal/extract"
	"github.com/newscrawl/newscrawl/internal/extract/llm"
	"github.com/newscrawl/newscrawl/internal/reconcile"
)

// runReconcile implements "newsctl reconcile [--dry-run] [--json]".
func runReconcile(ctx context.Context, args []string) error {
	s, c := settings("reconcile")
	fs := s.FlagSet()
	dry := fs.Bool("dry-run", false, "count the owed work per stage, publish nothing")
	asJSON := fs.Bool("json", false, "print the counts as JSON")
	highWater := fs.Int64("high-water", 10000, "pause while a stage has this much waiting")
	server := config.BindOpenAI(s)
	newEmbedder := provider.Bind(s, server)
	kind := s.String("EXTRACT_PROVIDER", extract.ProviderAuto, "the extractor's provider (auto, openai, heuristic), as the extractor is configured")
	model := s.String("EXTRACT_MODEL", "", "the extractor's model, as the extractor is configured")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), `usage: newsctl reconcile [flags]

Publishes, per stage, the work PostgreSQL says is not done: frontier URLs not
fetched, pages not cleaned, articles not extracted by the configured
extractor, articles not embedded with the configured model. Work already on a
stage's stream, retry set or DLQ is left alone; the stages' ledgers absorb the
rest of any overlap, so it is safe while the pipeline runs. Run it with the
same EXTRACT_* and EMBED_* settings as the workers.`)
		fs.PrintDefaults()
	}
	if err := s.Parse(args); err != nil {
		return err
	}
	p, err := extract.NewProvider(extract.ProviderConfig{Provider: *kind, LLM: llm.Config{BaseURL: *server.BaseURL, Model: *model}})
	if err != nil {
		return err
	}
	emb, err := newEmbedder()
	if err != nil {
		return err
	}
	rdb, pool, closeAll, err := connect(ctx, c, 0)
	if err != nil {
		return err
	}
	defer closeAll()
	r := reconcile.Reconciler{Pool: pool, Redis: rdb, Prefix: *c.StreamPrefix, Partitions: c.Partitions(),
		Versions: reconcile.Versions{Clean: clean.Version, Extract: extract.Version(p), Embed: emb.Identity().Version()}}
	if !*dry {
		r.Pub = producer(rdb, c, *highWater)
	}
	counts, err := r.Run(ctx)
	if *asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		if jerr := enc.Encode(counts); jerr != nil {
			return jerr
		}
		return err
	}
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "stage\towed\talready queued\tpublished\t")
	for _, c := range counts {
		fmt.Fprintf(w, "%s\t%d\t%d\t%d\t\n", c.Stage, c.Owed, c.Queued, c.Published)
	}
	w.Flush()
	if *dry {
		fmt.Println("dry run: nothing published")
	}
	return err
}
