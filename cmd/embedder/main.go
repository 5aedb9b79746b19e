// Command embedder is the pipeline's last stage: it reads extracted
// articles, splits them into chunks, embeds the chunks (with an OpenAI-
// compatible server when OPENAI_BASE_URL is set, else the local hashing
// embedder) and stores them in PostgreSQL/pgvector for search.
package main

import (
	"context"
	"flag"
	"time"

	"github.com/newscrawl/newscrawl/internal/app"
	"github.com/newscrawl/newscrawl/internal/config"
	"github.com/newscrawl/newscrawl/internal/embed"
	"github.com/newscrawl/newscrawl/internal/embed/chunk"
	"github.com/newscrawl/newscrawl/internal/embed/provider"
	"github.com/newscrawl/newscrawl/internal/pipeline"
	"github.com/newscrawl/newscrawl/pkg/streamkit"
)

// Defaults of the embedder binary.
const (
	defaultMetricsAddr = "127.0.0.1:9104"
	defaultConcurrency = 4
	defaultVisibility  = 30 * time.Second
)

func main() { app.Main("embedder", run) }

func run(args []string) error {
	s := config.NewSet(flag.NewFlagSet("embedder", flag.ContinueOnError))
	common := config.BindCommon(s, defaultMetricsAddr)
	stage := config.BindStage(s, "EMBED", defaultConcurrency, defaultVisibility)
	newEmbedder := provider.Bind(s, config.BindOpenAI(s))
	batch := s.Int("EMBED_BATCH", embed.DefaultBatch, "inputs per embeddings request")
	chunkTokens := s.Int("EMBED_CHUNK_TOKENS", chunk.DefaultTargetTokens, "estimated tokens per chunk (the title is added on top)")
	overlap := s.Int("EMBED_CHUNK_OVERLAP", chunk.DefaultOverlapTokens, "estimated tokens repeated between neighbouring chunks (0 = none)")
	maxChunks := s.Int("EMBED_MAX_CHUNKS", embed.DefaultMaxChunks, "chunks embedded per document at most (the rest of a longer text is not)")
	skipped := s.Bool("EMBED_INCLUDE_DUPLICATES", false, "also embed duplicates and non-articles")
	createIndex := s.Bool("EMBED_CREATE_INDEX", true, "create the model's HNSW index at start if missing (false for a large backfill: newsctl index build afterwards)")
	precision := s.String("EMBED_INDEX_PRECISION", string(embed.PrecisionAuto), "vectors in the HNSW index: full, half (halfvec: about half the memory) or auto (half from 512 dimensions)")
	if err := s.Parse(args); err != nil {
		return err
	}

	log := app.Logger(*common.LogLevel).With("binary", "embedder")
	indexPrecision, err := embed.ParsePrecision(*precision)
	if err != nil {
		return err
	}
	emb, err := newEmbedder()
	if err != nil {
		return err
	}
	id := emb.Identity()
	log.Info("embedding provider", "provider", id.Provider, "model", id.Model, "dims", id.Dims, "version", id.Version())

	return app.Worker{
		Name: "embedder", Stage: pipeline.Embed, Group: pipeline.EmbedderGroup,
		Version: id.Version(), Key: embed.Key, Common: common, Settings: stage,
		ErrorTypes: []string{embed.ErrTypeMissingInput, embed.ErrTypeDimensionMismatch, embed.ErrTypeRejected, embed.ErrTypeUnavailable},
	}.Run(func(d app.Deps) (streamkit.Handler, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		if err := embed.EnsureModel(ctx, d.DB, id, *createIndex, indexPrecision); err != nil {
			return nil, err
		}
		if id.Provider != "local" {
			// A server away, or refusing the key or the model, pauses the stage.
			d.Dependencies.Add(embed.Dependency, embed.Probe(emb), nil)
		}
		if st, err := embed.Index(ctx, d.DB, id); err == nil && !st.Valid {
			d.Log.Warn("the model's HNSW index is not usable: vector searches scan every chunk", "index", st.Name, "state", st)
		}
		return embed.NewStage(d.DB, embed.Config{Embedder: emb, Batch: *batch, IncludeSkipped: *skipped, Log: d.Log, MaxChunks: *maxChunks,
			Chunk: chunk.Config{TargetTokens: *chunkTokens, OverlapTokens: *overlap}})
	})
}
