// Command benchsearch measures the embedder's storage and search on
// synthetic data: it loads N chunks of clustered vectors (with text for the
// full-text side) into a scratch schema, and prints write throughput
// against a plain pgx CopyFrom ceiling measured in the same run, the HNSW
// build time, and query latency p50/p99 with recall@10 against exact
// search for the vector, filtered-vector and hybrid modes, the SQL alone
// beside the whole Search call, and 8 concurrent clients — for an index of
// full and of half precision. It runs on a PostgreSQL of its own whose
// shared_buffers hold the index, unless -database-url names another.
//
//	go run ./bench/search [-n 1000000] [-precision both|full|half]
package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/pgvector/pgvector-go"

	"github.com/newscrawl/newscrawl/internal/embed"
	"github.com/newscrawl/newscrawl/internal/localpg"
	"github.com/newscrawl/newscrawl/internal/pipeline"
	"github.com/newscrawl/newscrawl/internal/search"
	"github.com/newscrawl/newscrawl/internal/store"
)

// Defaults of the benchmark.
const (
	schema        = "benchsearch"
	benchModel    = "bench-topics-v2"
	lidNeighbours = 100 // k of the intrinsic-dimensionality estimate, as ANN benchmarks use
	lidQueries    = 100 // queries the corpus's difficulty is the median of
)

type options struct {
	n, dims, clusters, perDoc, hosts, queries, batch, words, replaceDocs, liveDocs, clients int
	noise                                                                                   float64
	seed                                                                                    uint64
	keep, reuse                                                                             bool
	ef                                                                                      int
	databaseURL, maintenanceMem, sharedBuffers, precision, spectrum                         string
}

func main() {
	var o options
	flag.IntVar(&o.n, "n", 100_000, "chunks to load")
	flag.IntVar(&o.dims, "dims", 384, "vector dimension")
	flag.IntVar(&o.clusters, "clusters", 100, "vector clusters (topics)")
	flag.IntVar(&o.perDoc, "chunks-per-doc", 4, "chunks per document")
	flag.IntVar(&o.hosts, "hosts", 100, "hosts; a host filter selects 1/hosts of the chunks")
	flag.IntVar(&o.queries, "queries", 200, "queries per mode")
	flag.IntVar(&o.batch, "batch", 50, "documents per write transaction (the embedder's EMBED_BATCH_SIZE)")
	flag.IntVar(&o.replaceDocs, "replace-docs", 2500, "documents re-embedded to time replacing chunks")
	flag.IntVar(&o.liveDocs, "live-docs", 1250, "documents (of the N chunks) written after the HNSW build, to time writes with the index live")
	flag.IntVar(&o.words, "words", 250, "words per chunk (250 ≈ 350 estimated tokens, the default chunk size)")
	flag.Float64Var(&o.noise, "noise", 1.0, "noise norm relative to the cluster centre")
	flag.StringVar(&o.spectrum, "spectrum", "decaying", "noise within a cluster: decaying (along a few directions, as a text encoder's) or flat (the same in every dimension)")
	flag.Uint64Var(&o.seed, "seed", 1, "random seed")
	flag.BoolVar(&o.keep, "keep", false, "keep the benchsearch schema afterwards")
	flag.BoolVar(&o.reuse, "reuse", false, "query the schema a -keep run left (same -n, -seed and shape flags): skip loading and the index build")
	flag.IntVar(&o.ef, "ef", 0, "hnsw.ef_search floor of the searcher (0: the searcher's own, sized to the table)")
	flag.IntVar(&o.clients, "clients", 8, "concurrent clients of the throughput run (vector queries)")
	flag.StringVar(&o.maintenanceMem, "maintenance-work-mem", "auto", "maintenance_work_mem for the HNSW build (auto: room for the whole graph)")
	flag.StringVar(&o.sharedBuffers, "shared-buffers", "auto", "shared_buffers of the bench's own PostgreSQL (auto: the vectors four times over, which holds the index)")
	flag.StringVar(&o.precision, "precision", "both", "index precision measured: full, half (halfvec) or both")
	flag.StringVar(&o.databaseURL, "database-url", "", "scratch database on another server (created if missing); default: a PostgreSQL of the bench's own")
	flag.Parse()
	if err := run(context.Background(), o); err != nil {
		fmt.Fprintf(os.Stderr, "benchsearch: %v\n", err)
		os.Exit(1)
	}
}

// autoBytes is "auto" sized: the vectors' bytes times factor, at least
// floor MB, in MB.
func autoBytes(o options, factor float64, floorMB int) string {
	mb := int(float64(o.n) * float64(o.dims) * 4 * factor / (1 << 20))
	return fmt.Sprintf("%dMB", max(mb, floorMB))
}

func run(ctx context.Context, o options) error {
	if o.n < o.perDoc || o.perDoc < 1 || o.hosts < 1 || o.clusters < 1 {
		return errors.New("need -n ≥ -chunks-per-doc ≥ 1, -hosts ≥ 1, -clusters ≥ 1")
	}
	var precisions []embed.Precision
	switch o.precision {
	case "both":
		precisions = []embed.Precision{embed.PrecisionFull, embed.PrecisionHalf}
	case "full", "half":
		precisions = []embed.Precision{embed.Precision(o.precision)}
	default:
		return fmt.Errorf("-precision %q: full, half or both", o.precision)
	}
	if o.spectrum != "decaying" && o.spectrum != "flat" {
		return fmt.Errorf("-spectrum %q: decaying or flat", o.spectrum)
	}
	if o.maintenanceMem == "auto" {
		o.maintenanceMem = autoBytes(o, 2, 1024)
	}
	if o.databaseURL == "" {
		if o.keep || o.reuse {
			return errors.New("-keep and -reuse need -database-url: the bench's own server is removed when it ends")
		}
		if o.sharedBuffers == "auto" {
			o.sharedBuffers = autoBytes(o, 4, 256)
		}
		srv, err := localpg.Start("shared_buffers="+o.sharedBuffers, "max_connections=50")
		if err != nil {
			return fmt.Errorf("start the bench's PostgreSQL: %w", err)
		}
		defer srv.Close()
		o.databaseURL = srv.URL("newscrawl_bench")
		fmt.Printf("server the bench's own PostgreSQL on port %d, shared_buffers %s\n", srv.Port, o.sharedBuffers)
	}
	pool, err := openScratch(ctx, o.databaseURL, o.reuse)
	if err != nil {
		return err
	}
	defer pool.Close()
	if !o.keep && !o.reuse {
		defer func() {
			pool.Exec(context.Background(), "DROP SCHEMA IF EXISTS "+schema+" CASCADE")
		}()
	}
	var pgv, pgVersion string
	pool.QueryRow(ctx, `SELECT extversion, current_setting('server_version') FROM pg_extension WHERE extname = 'vector'`).Scan(&pgv, &pgVersion)

	rng := rand.New(rand.NewPCG(o.seed, o.seed^0x9e3779b97f4a7c15))
	d := generate(rng, o)
	id := embed.Identity{Provider: "bench", Model: benchModel, Dims: o.dims}
	fmt.Printf("benchsearch: N=%d chunks (%d docs × %d) of %d words, %d-d clustered vectors (%d clusters, noise %.2f, %s spectrum), %d hosts; pgvector %s, PostgreSQL %s\n",
		len(d.docs)*o.perDoc, len(d.docs), o.perDoc, o.words, o.dims, o.clusters, o.noise, o.spectrum, o.hosts, pgv, pgVersion)
	lid, contrast := d.difficulty(rand.New(rand.NewPCG(o.seed+2, 11)), o, lidQueries, lidNeighbours)
	fmt.Printf("data   medians of %d queries: local intrinsic dimensionality %.1f (maximum likelihood, k=%d), relative contrast %.2f (higher dimensionality, lower contrast: harder)\n",
		lidQueries, lid, lidNeighbours, contrast)

	if !o.reuse {
		load := d.docs[:len(d.docs)-live(o, d)]
		if err := compareWrites(ctx, pool, id, load, o.batch, "load without the model's HNSW index"); err != nil {
			return err
		}
		bare, err := timed(func() error { return copyBare(ctx, pool, d) })
		if err != nil {
			return fmt.Errorf("bare copy: %w", err)
		}
		fmt.Printf("write  reference: one CopyFrom of all %d vectors into a bare (doc_id, chunk_index, embedding) table, no text, no indexes: %.0f rows/s\n",
			o.n, float64(len(d.docs)*o.perDoc)/bare.Seconds())
		if err := measureReplace(ctx, pool, id, load[:min(o.replaceDocs, len(load))], o.batch); err != nil {
			return err
		}
		if _, err := pool.Exec(ctx, "VACUUM ANALYZE chunks"); err != nil {
			return fmt.Errorf("vacuum: %w", err)
		}
	}
	var lines []string
	for i, p := range precisions {
		build, err := buildIndex(ctx, pool, id, p, o)
		if err != nil {
			return err
		}
		if i == 0 && !o.reuse {
			if err := compareWrites(ctx, pool, id, d.docs[len(d.docs)-live(o, d):], o.batch, "with the HNSW index live"); err != nil {
				return err
			}
			if _, err := pool.Exec(ctx, "ANALYZE chunks"); err != nil {
				return fmt.Errorf("analyze: %w", err)
			}
		}
		sum, err := measureQueries(ctx, pool, id, d, o, p)
		if err != nil {
			return err
		}
		sum.build = build
		lines = append(lines, sum.line(len(d.docs)*o.perDoc, p))
	}
	// The full-precision line last: it is the bench's last line.
	slices.Reverse(lines)
	for _, l := range lines {
		fmt.Println(l)
	}
	return nil
}

// live is how many documents are written after the first index build.
func live(o options, d *data) int { return min(o.liveDocs, len(d.docs)/2) }

// openScratch creates the database if needed, installs pgvector, and
// returns a pool on a fresh, migrated benchsearch schema.
func openScratch(ctx context.Context, databaseURL string, reuse bool) (*pgxpool.Pool, error) {
	u, err := url.Parse(databaseURL)
	if err != nil {
		return nil, fmt.Errorf("parse database URL: %w", err)
	}
	dbName := strings.TrimPrefix(u.Path, "/")
	admin := *u
	admin.Path = "/postgres"
	conn, err := pgx.Connect(ctx, admin.String())
	if err != nil {
		return nil, fmt.Errorf("connect to the postgres database: %w", err)
	}
	var exists bool
	conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`, dbName).Scan(&exists)
	if !exists {
		if _, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{dbName}.Sanitize()); err != nil {
			conn.Close(ctx)
			return nil, fmt.Errorf("create database %s: %w", dbName, err)
		}
	}
	conn.Close(ctx)

	conn, err = pgx.Connect(ctx, databaseURL)
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", dbName, err)
	}
	sql := "CREATE EXTENSION IF NOT EXISTS vector SCHEMA public; DROP SCHEMA IF EXISTS " + schema + " CASCADE; CREATE SCHEMA " + schema
	if reuse {
		sql = "SELECT 'benchsearch.chunks'::regclass"
	}
	_, err = conn.Exec(ctx, sql)
	conn.Close(ctx)
	if err != nil {
		return nil, fmt.Errorf("prepare schema %s: %w", schema, err)
	}
	cfg, err := pgxpool.ParseConfig(databaseURL)
	if err != nil {
		return nil, err
	}
	cfg.ConnConfig.RuntimeParams["search_path"] = schema + ",public"
	cfg.MaxConns = 16 // the concurrent clients, and a spare
	pool, err := store.OpenConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if _, err := store.Migrate(ctx, pool); err != nil {
		pool.Close()
		return nil, err
	}
	return pool, nil
}

// A writer writes one batch of documents in one transaction.
type writer func(ctx context.Context, pool *pgxpool.Pool, id embed.Identity, docs []embed.DocChunks) error

// ceilingWrite is the plain pgx CopyFrom of the batch's rows: no ledger,
// no savepoints, no DELETE.
func ceilingWrite(ctx context.Context, pool *pgxpool.Pool, id embed.Identity, docs []embed.DocChunks) error {
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := embed.RegisterVectorTypes(ctx, tx.Conn()); err != nil {
			return err
		}
		var rows [][]any
		for _, doc := range docs {
			for i, c := range doc.Chunks {
				rows = append(rows, []any{doc.DocID, id.Model, id.Dims, c.Index, doc.BodyHash, c.Start, c.End,
					doc.Title, c.Text, doc.Host, doc.Language, doc.PublishedAt, pgvector.NewVector(doc.Vectors[i])})
			}
		}
		_, err := tx.CopyFrom(ctx, pgx.Identifier{"chunks"}, []string{"doc_id", "model", "dims", "chunk_index", "body_hash",
			"char_start", "char_end", "title", "text", "host", "language", "published_at", "embedding"}, pgx.CopyFromRows(rows))
		return err
	})
}

// stageWrite writes the batch as streamkit's committer writes a batch of
// the embedder's results: one transaction, per document its Commit
// (embed.Replace: DELETE and INSERT in one round trip), then one insert of
// the batch's ledger rows.
func stageWrite(ctx context.Context, pool *pgxpool.Pool, id embed.Identity, docs []embed.DocChunks) error {
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		keys := make([]string, len(docs))
		ids := make([]string, len(docs))
		for i, doc := range docs {
			if err := embed.Replace(ctx, tx, id, doc); err != nil {
				return err
			}
			keys[i] = pipeline.LedgerKey(pipeline.Embed, doc.DocID, doc.BodyHash, id.Version()) // the bench's text hash is its body hash
			ids[i] = doc.DocID
		}
		_, err := tx.Exec(ctx, `INSERT INTO stage_results (key, stage, doc_id)
			SELECT k, 'embed', d FROM unnest($1::text[], $2::text[]) AS t(k, d) ON CONFLICT (key) DO NOTHING`, keys, ids)
		return err
	})
}

// compareWrites writes docs batch by batch, alternating the ceiling and
// the stage path, so both write into the same table in the same state
// (its size, its indexes, the machine's load at the time). It prints the
// rows/s of each and their ratio.
func compareWrites(ctx context.Context, pool *pgxpool.Pool, id embed.Identity, docs []embed.DocChunks, batch int, what string) error {
	paths := []struct {
		name  string
		write writer
		took  time.Duration
		rows  int
	}{{name: "ceiling (plain CopyFrom)", write: ceilingWrite}, {name: "embedder (ledger tx, an INSERT per doc)", write: stageWrite}}
	for i, start := 0, 0; start < len(docs); i, start = i+1, start+batch {
		part := docs[start:min(start+batch, len(docs))]
		p := &paths[i%2]
		t, err := timed(func() error { return p.write(ctx, pool, id, part) })
		if err != nil {
			return fmt.Errorf("%s, %s: %w", what, p.name, err)
		}
		p.took += t
		for _, d := range part {
			p.rows += len(d.Chunks)
		}
	}
	rate := func(i int) float64 { return float64(paths[i].rows) / paths[i].took.Seconds() }
	fmt.Printf("write  %s, %d docs per transaction, the two paths alternating:\n", what, batch)
	for i := range paths {
		fmt.Printf("         %-58s %7d rows %8.0f rows/s\n", paths[i].name, paths[i].rows, rate(i))
	}
	fmt.Printf("         embedder / ceiling = %.0f%%\n", 100*rate(1)/rate(0))
	return nil
}

// measureReplace re-embeds a sample of loaded documents through the stage
// path (their previous chunks are deleted, new ones copied): more work per
// row than the ceiling's plain insert, so its rate is printed on its own.
func measureReplace(ctx context.Context, pool *pgxpool.Pool, id embed.Identity, docs []embed.DocChunks, batch int) error {
	rows := 0
	took, err := timed(func() error {
		for start := 0; start < len(docs); start += batch {
			part := docs[start:min(start+batch, len(docs))]
			for j := range part {
				part[j].BodyHash, part[j].New = "h2", false
				rows += len(part[j].Chunks)
			}
			if err := stageWrite(ctx, pool, id, part); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("re-embed documents: %w", err)
	}
	fmt.Printf("write  re-embed: %d docs through the embedder's path, replacing %d rows: %.0f rows/s\n", len(docs), rows, float64(rows)/took.Seconds())
	return nil
}

// copyBare copies just the vectors into an index-free table: what COPY
// costs without the text, the tsvector and the indexes.
func copyBare(ctx context.Context, pool *pgxpool.Pool, d *data) error {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `CREATE TABLE bare (doc_id text, chunk_index int, embedding vector)`); err != nil {
		return err
	}
	defer conn.Exec(ctx, `DROP TABLE bare`)
	if err := embed.RegisterVectorTypes(ctx, conn.Conn()); err != nil {
		return err
	}
	var src [][]any
	for _, doc := range d.docs {
		for i, c := range doc.Chunks {
			src = append(src, []any{doc.DocID, c.Index, pgvector.NewVector(doc.Vectors[i])})
		}
	}
	_, err = conn.Conn().CopyFrom(ctx, pgx.Identifier{"bare"}, []string{"doc_id", "chunk_index", "embedding"}, pgx.CopyFromRows(src))
	return err
}

// buildIndex builds the model's HNSW index at precision p in place of any
// other (with -reuse, one of that precision is kept) and prints its build
// time and size.
func buildIndex(ctx context.Context, pool *pgxpool.Pool, id embed.Identity, p embed.Precision, o options) (time.Duration, error) {
	if st, err := embed.Index(ctx, pool, id); err != nil {
		return 0, err
	} else if st.Exists && st.Valid && st.Half == p.Half(id.Dims) && o.reuse {
		fmt.Printf("hnsw   %s precision: the kept index, %.0f MB\n", p, float64(st.Bytes)/(1<<20))
		return 0, nil
	}
	if err := embed.DropIndex(ctx, pool, id); err != nil {
		return 0, err
	}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return 0, err
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SET maintenance_work_mem = "+quote(o.maintenanceMem)); err != nil {
		return 0, fmt.Errorf("set maintenance_work_mem: %w", err)
	}
	took, err := timed(func() error { _, err := conn.Exec(ctx, embed.IndexSQL(id, p, false)); return err })
	if err != nil {
		return 0, fmt.Errorf("build HNSW index: %w", err)
	}
	st, err := embed.Index(ctx, pool, id)
	if err != nil {
		return 0, err
	}
	fmt.Printf("hnsw   %s precision (%s), m=%d, ef_construction=%d, maintenance_work_mem %s: built in %s, index %.0f MB\n",
		p, embed.IndexType(id.Dims, p.Half(id.Dims)), embed.HNSWM, embed.HNSWEfConstruction, o.maintenanceMem,
		took.Round(time.Millisecond), float64(st.Bytes)/(1<<20))
	return took, nil
}

func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// queryEmbedder hands the searcher the benchmark's query vectors by text.
type queryEmbedder struct {
	id   embed.Identity
	vecs map[string][]float32
}

func (q *queryEmbedder) Identity() embed.Identity { return q.id }

func (q *queryEmbedder) Embed(_ context.Context, inputs []string, _ embed.Kind) ([][]float32, error) {
	out := make([][]float32, len(inputs))
	for i, in := range inputs {
		v, ok := q.vecs[in]
		if !ok {
			return nil, fmt.Errorf("no vector for query %q", in)
		}
		out[i] = v
	}
	return out, nil
}

// A scenario is one row of the query table.
type scenario struct {
	name   string
	mode   search.Mode
	filter func(rng *rand.Rand, q *search.Query)
}

// A summary is one precision's figures, for the closing lines.
type summary struct {
	vector, hybrid            result
	filteredMin               int
	filteredRecall            float64
	clients                   int
	clientsQPS, clientsRecall float64
	build                     time.Duration
}

// A result is one scenario's figures.
type result struct {
	recall, p50ms float64
	minResults    int
}

func (s summary) line(n int, p embed.Precision) string {
	prefix := fmt.Sprintf("N=%d", n)
	if p == embed.PrecisionHalf {
		prefix += " halfvec"
	}
	return fmt.Sprintf("%s vector recall@10 %.3f p50 %.1f ms; hybrid recall@10 %.3f p50 %.1f ms; filtered min results %d recall %.3f; %d clients %.0f queries/s at recall %.3f; build %.0f s",
		prefix, s.vector.recall, s.vector.p50ms, s.hybrid.recall, s.hybrid.p50ms, s.filteredMin, s.filteredRecall,
		s.clients, s.clientsQPS, s.clientsRecall, s.build.Seconds())
}

// A probe is one query with its exact answer, replayed by the clients.
type probe struct {
	q    search.Query
	want []search.Result
}

func measureQueries(ctx context.Context, pool *pgxpool.Pool, id embed.Identity, d *data, o options, p embed.Precision) (summary, error) {
	rng := rand.New(rand.NewPCG(o.seed+1, 7))
	qe := &queryEmbedder{id: id, vecs: map[string][]float32{}}
	s := search.New(pool, qe, search.Config{EfSearch: o.ef}, slog.New(slog.DiscardHandler))
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	scenarios := []scenario{
		{name: "vector", mode: search.Vector},
		{name: fmt.Sprintf("filtered-vector host (%.0f%%)", 100/float64(o.hosts)), mode: search.Vector, filter: func(rng *rand.Rand, q *search.Query) {
			q.Host = fmt.Sprintf("host%03d.example", rng.IntN(o.hosts))
		}},
		{name: "filtered-vector dates (20%)", mode: search.Vector, filter: func(rng *rand.Rand, q *search.Query) {
			since := start.AddDate(0, 0, rng.IntN(d.days-73))
			until := since.AddDate(0, 0, 73)
			q.Since, q.Until = &since, &until
		}},
		{name: "hybrid", mode: search.Hybrid},
		{name: fmt.Sprintf("hybrid host (%.0f%%)", 100/float64(o.hosts)), mode: search.Hybrid, filter: func(rng *rand.Rand, q *search.Query) {
			q.Host = fmt.Sprintf("host%03d.example", rng.IntN(o.hosts))
		}},
	}
	fmt.Printf("query  %s precision, k=10, ef_search=%d, candidates=%d, exact below %d filtered chunks or 2%% of the table; p50/p99 are the whole Search call (embedding lookup, SQL, grouping, hydration); SQL p50 is the database part alone (the plan choice and the first nearest-chunk query), the ceiling\n",
		p, cmp.Or(o.ef, search.EfSearchFor(int64(len(d.docs)*o.perDoc))), search.DefaultCandidates, search.DefaultExactThreshold)
	fmt.Printf("       %-30s %5s %9s %9s %9s %10s %12s %11s\n", "mode", "n", "p50", "p99", "SQL p50", "recall@10", "min results", "exact p50")
	sum := summary{filteredMin: math.MaxInt, filteredRecall: 1}
	var probes []probe
	for _, sc := range scenarios {
		var lat, exactLat, sqlLat []time.Duration
		var recall float64
		minResults := math.MaxInt
		warm := min(20, o.queries)
		for i := range o.queries + warm {
			c := rng.IntN(o.clusters)
			text := d.query(rng, c)
			vec := d.near(rng, c, o.noise)
			qe.vecs[text] = vec // a repeated text gets a fresh vector: both searches below use it
			q := search.Query{Text: text, K: 10, Mode: sc.mode}
			if sc.filter != nil {
				sc.filter(rng, &q)
			}
			t0 := time.Now()
			got, err := s.Search(ctx, q)
			took := time.Since(t0)
			if err != nil {
				return sum, fmt.Errorf("%s query: %w", sc.name, err)
			}
			var sqlTook time.Duration
			if sc.mode == search.Vector {
				if sqlTook, err = timed(func() error { _, err := s.NearestChunks(ctx, q, vec); return err }); err != nil {
					return sum, fmt.Errorf("%s SQL alone: %w", sc.name, err)
				}
			}
			exact := q
			exact.Exact = true
			t0 = time.Now()
			want, err := s.Search(ctx, exact)
			exactTook := time.Since(t0)
			if err != nil {
				return sum, fmt.Errorf("%s exact query: %w", sc.name, err)
			}
			if i < warm {
				continue
			}
			lat, exactLat = append(lat, took), append(exactLat, exactTook)
			if sc.mode == search.Vector {
				sqlLat = append(sqlLat, sqlTook)
			}
			recall += overlap(got, want)
			minResults = min(minResults, len(got))
			if sc.name == "vector" {
				probes = append(probes, probe{q: q, want: want})
			}
		}
		r := result{recall: recall / float64(len(lat)), p50ms: ms(pctDur(lat, 0.5)), minResults: minResults}
		sqlP50 := "-"
		if len(sqlLat) > 0 {
			sqlP50 = pct(sqlLat, 0.50)
		}
		fmt.Printf("       %-30s %5d %9s %9s %9s %10.3f %12d %11s\n", sc.name, len(lat), pct(lat, 0.50), pct(lat, 0.99), sqlP50,
			r.recall, minResults, pct(exactLat, 0.50))
		switch {
		case sc.name == "vector":
			sum.vector = r
		case sc.name == "hybrid":
			sum.hybrid = r
		case sc.mode == search.Vector: // the filtered vector queries
			sum.filteredMin = min(sum.filteredMin, r.minResults)
			sum.filteredRecall = min(sum.filteredRecall, r.recall)
		}
	}
	sum.clients = o.clients
	sum.clientsQPS, sum.clientsRecall = runClients(ctx, s, probes, o.clients)
	fmt.Printf("load   %d clients replaying the %d vector queries each: %.0f queries/s, recall@10 %.3f\n",
		o.clients, len(probes), sum.clientsQPS, sum.clientsRecall)
	return sum, nil
}

// runClients has n clients each run every probe once, each from its own
// offset, and returns the queries per second of them all and the recall.
func runClients(ctx context.Context, s *search.Searcher, probes []probe, n int) (qps, recall float64) {
	if len(probes) == 0 || n < 1 {
		return 0, 0
	}
	var mu sync.Mutex
	var hits float64
	var count int
	var wg sync.WaitGroup
	t0 := time.Now()
	for c := range n {
		wg.Go(func() {
			for i := range probes {
				pr := probes[(i+c*len(probes)/n)%len(probes)]
				got, err := s.Search(ctx, pr.q)
				if err != nil {
					continue // counted as no hits: recall shows it
				}
				mu.Lock()
				hits += overlap(got, pr.want)
				count++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	took := time.Since(t0)
	return float64(count) / took.Seconds(), hits / float64(n*len(probes))
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// overlap is |got ∩ want| / |want| over document ids.
func overlap(got, want []search.Result) float64 {
	if len(want) == 0 {
		return 1
	}
	ids := map[string]bool{}
	for _, r := range want {
		ids[r.DocID] = true
	}
	n := 0
	for _, r := range got {
		if ids[r.DocID] {
			n++
		}
	}
	return float64(n) / float64(len(want))
}

func pctDur(ds []time.Duration, p float64) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	i := min(len(s)-1, int(math.Ceil(p*float64(len(s))))-1)
	return s[max(i, 0)]
}

func pct(ds []time.Duration, p float64) string { return fmt.Sprintf("%.2fms", ms(pctDur(ds, p))) }

func timed(f func() error) (time.Duration, error) {
	t0 := time.Now()
	err := f()
	return time.Since(t0), err
}
