package main

import (
	"context"
	"fmt"
	"time"

	"github.com/newscrawl/newscrawl/internal/config"
	"github.com/newscrawl/newscrawl/internal/embed"
	"github.com/newscrawl/newscrawl/internal/embed/provider"
	"github.com/newscrawl/newscrawl/internal/store"
)

// runIndex implements "newsctl index [status|build|drop]".
func runIndex(ctx context.Context, args []string) error {
	s, c := settings("index")
	fs := s.FlagSet()
	embedder := provider.Bind(s, config.BindOpenAI(s))
	mem := fs.String("maintenance-work-mem", "1GB", "maintenance_work_mem for the build (at least the index size: about 2 kB per 384-d chunk)")
	precision := s.String("EMBED_INDEX_PRECISION", string(embed.PrecisionAuto), "vectors in the index: full, half (halfvec) or auto (half from 512 dimensions); build rebuilds an index of the other precision")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), `usage: newsctl index [flags] [status|build|drop]

The HNSW index of the model configured by EMBED_* / OPENAI_* (as for the embedder):
  status  its state, size and how many documents the model has (the default)
  build   create it concurrently (writes go on); an invalid one, or one built with other
          parameters, is rebuilt beside the old one, which it then replaces
  drop    drop it concurrently; vector searches of the model scan exactly until it is built

For a large backfill: run the embedders with EMBED_CREATE_INDEX=false, newsctl index drop,
newsctl reembed, newsctl wait, then newsctl index build.`)
		fs.PrintDefaults()
	}
	if err := s.Parse(args); err != nil {
		return err
	}
	action := "status"
	switch fs.NArg() {
	case 0:
	case 1:
		action = fs.Arg(0)
	default:
		return fmt.Errorf("one action, got %q", fs.Args())
	}
	indexPrecision, err := embed.ParsePrecision(*precision)
	if err != nil {
		return err
	}
	emb, err := embedder()
	if err != nil {
		return err
	}
	id := emb.Identity()
	pool, err := store.Open(ctx, *c.DatabaseURL)
	if err != nil {
		return err
	}
	defer pool.Close()

	switch action {
	case "status":
	case "build":
		t0 := time.Now()
		if err := embed.BuildIndex(ctx, pool, id, indexPrecision, *mem); err != nil {
			return err
		}
		fmt.Printf("built in %s\n", time.Since(t0).Round(time.Millisecond))
	case "drop":
		if err := embed.DropIndex(ctx, pool, id); err != nil {
			return err
		}
	default:
		return fmt.Errorf("unknown action %q: status, build or drop", action)
	}
	st, err := embed.Index(ctx, pool, id)
	if err != nil {
		return err
	}
	var docs int64
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM chunks WHERE model = $1 AND dims = $2 AND chunk_index = 0`,
		id.Model, id.Dims).Scan(&docs); err != nil {
		return fmt.Errorf("count documents of %s: %w", id, err)
	}
	fmt.Printf("model %s, %d dimensions: %d documents embedded\nindex %s: %s, %.1f MB",
		id.Model, id.Dims, docs, st.Name, st, float64(st.Bytes)/(1<<20))
	if st.Options != "" {
		fmt.Printf(" (%s)", st.Options)
	}
	if st.Exists {
		fmt.Printf(", %s precision", map[bool]string{false: "full", true: "half"}[st.Half])
	}
	fmt.Println()
	return nil
}
