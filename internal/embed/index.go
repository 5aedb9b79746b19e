package embed

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/newscrawl/newscrawl/internal/sleep"
)

// Each model and dimension has its own HNSW index on chunks. The embedder
// creates it at start; for a large backfill an operator drops it and builds
// it once the rows are in, which is many times faster than keeping it up
// to date on every insert (docs/SEARCH.md).

// IndexName is the name of the HNSW index of a model and dimension.
func IndexName(id Identity) string {
	if id.Model == "local-hash-v1" && id.Dims == 384 {
		return "chunks_hnsw_local_hash_v1_384" // created by migration 00005
	}
	slug := strings.Trim(nonIdent.ReplaceAllString(strings.ToLower(id.Model), "_"), "_")
	h := fnv.New32a()
	h.Write([]byte(id.Version()))
	name := fmt.Sprintf("chunks_hnsw_%s_%d", slug, id.Dims)
	if len(name) > 50 {
		name = name[:50]
	}
	return fmt.Sprintf("%s_%08x", name, h.Sum32())
}

var nonIdent = regexp.MustCompile(`[^a-z0-9]+`)

// A Precision is how an HNSW index keeps its vectors: full (vector, 4
// bytes a dimension, at most 2,000 dimensions) or half (halfvec, 2 bytes:
// at a million 384-d chunks the index was 57% the size, at the same
// recall). Auto is half from HalfvecFromDims dimensions up. The rows keep
// full vectors either way.
type Precision string

// The precisions.
const (
	PrecisionAuto Precision = "auto"
	PrecisionFull Precision = "full"
	PrecisionHalf Precision = "half"
)

// ParsePrecision reads auto, full or half.
func ParsePrecision(s string) (Precision, error) {
	switch p := Precision(s); p {
	case PrecisionAuto, PrecisionFull, PrecisionHalf:
		return p, nil
	}
	return "", fmt.Errorf("index precision %q: auto, full or half", s)
}

// Half says whether an index of dims dimensions keeps halfvecs.
func (p Precision) Half(dims int) bool {
	switch p {
	case PrecisionFull:
		return false
	case PrecisionHalf:
		return true
	}
	return dims >= HalfvecFromDims
}

// IndexSQL is the CREATE INDEX statement of id's HNSW index: cosine, on
// the embedding cast to the precision's type (IndexType), partial on the
// model and dimension.
func IndexSQL(id Identity, p Precision, concurrently bool) string {
	return indexSQL(id, IndexName(id), p, concurrently)
}

func indexSQL(id Identity, name string, p Precision, concurrently bool) string {
	ops := "vector_cosine_ops"
	if p.Half(id.Dims) {
		ops = "halfvec_cosine_ops"
	}
	conc := ""
	if concurrently {
		conc = "CONCURRENTLY "
	}
	return fmt.Sprintf(`CREATE INDEX %sIF NOT EXISTS %s ON chunks USING hnsw ((embedding::%s) %s)
		WITH (m = %d, ef_construction = %d) WHERE model = %s AND dims = %d`,
		conc, pgx.Identifier{name}.Sanitize(), IndexType(id.Dims, p.Half(id.Dims)), ops, HNSWM, HNSWEfConstruction,
		quoteLiteral(id.Model), id.Dims)
}

// An IndexState is what Postgres holds of a model's HNSW index.
type IndexState struct {
	Name   string
	Exists bool
	Valid  bool // false while a concurrent build runs, or after one failed
	// Building: a CREATE INDEX of it is running now. Seen only for builds by
	// the same database role (or with pg_read_all_stats).
	Building bool
	Bytes    int64  // size on disk
	Options  string // its build parameters, e.g. "m=16, ef_construction=128"
	Half     bool   // it keeps halfvecs (queries must cast to halfvec to use it)
}

func (s IndexState) String() string {
	switch {
	case !s.Exists:
		return "missing"
	case s.Building:
		return "building"
	case !s.Valid:
		return "invalid (a concurrent build failed: run newsctl index build)"
	case s.Outdated():
		return fmt.Sprintf("valid, built with other parameters than m=%d, ef_construction=%d (newsctl index build rebuilds it)",
			HNSWM, HNSWEfConstruction)
	}
	return "valid"
}

// EfConstruction is the index's ef_construction (pgvector's default, 64,
// when it was built without one).
func (s IndexState) EfConstruction() int { return s.param("ef_construction", 64) }

// Outdated says the index exists but was built with other parameters than
// the ones IndexSQL now uses.
func (s IndexState) Outdated() bool {
	return s.Exists && (s.param("m", 16) != HNSWM || s.EfConstruction() != HNSWEfConstruction)
}

func (s IndexState) param(name string, def int) int {
	for _, kv := range strings.Split(s.Options, ", ") {
		if v, ok := strings.CutPrefix(kv, name+"="); ok {
			if n, err := strconv.Atoi(v); err == nil {
				return n
			}
		}
	}
	return def
}

// Index reports the state of id's HNSW index.
func Index(ctx context.Context, pool *pgxpool.Pool, id Identity) (IndexState, error) {
	return indexState(ctx, pool, IndexName(id))
}

// querier is a pool or one of its connections.
type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// indexState looks an index of chunks up by name.
func indexState(ctx context.Context, db querier, name string) (IndexState, error) {
	st := IndexState{Name: name}
	// Looked up beside the chunks table the search_path finds: a name alone
	// could resolve to a namesake in a later schema of the path.
	err := db.QueryRow(ctx, `SELECT i.indisvalid, pg_relation_size(i.indexrelid),
			EXISTS (SELECT 1 FROM pg_stat_progress_create_index p WHERE p.index_relid = i.indexrelid),
			array_to_string(coalesce(c.reloptions, '{}'), ', '),
			pg_get_indexdef(i.indexrelid) LIKE '%halfvec_cosine_ops%'
		FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
		WHERE i.indrelid = 'chunks'::regclass AND c.relname = $1`, st.Name).Scan(&st.Valid, &st.Bytes, &st.Building, &st.Options, &st.Half)
	if errors.Is(err, pgx.ErrNoRows) {
		return st, nil
	}
	if err != nil {
		return st, fmt.Errorf("look up index %s: %w", st.Name, err)
	}
	st.Exists = true
	return st, nil
}

// EnsureModel records id in embed_models and, with createIndex, creates its
// HNSW index of precision p unless it exists (CREATE INDEX CONCURRENTLY, so writers of
// other models are not blocked). An invalid index is left alone: it may be
// another embedder's build in progress. Safe to call from many embedders
// at once.
func EnsureModel(ctx context.Context, pool *pgxpool.Pool, id Identity, createIndex bool, p Precision) error {
	if err := checkDims(id, p); err != nil {
		return err
	}
	if createIndex {
		st, err := Index(ctx, pool, id)
		if err != nil {
			return err
		}
		if !st.Exists {
			if err := createHNSW(ctx, pool, id, p); err != nil {
				return fmt.Errorf("create HNSW index %s for %s: %w", st.Name, id, err)
			}
		}
	}
	_, err := pool.Exec(ctx, `INSERT INTO embed_models (model, dims, provider, index_name) VALUES ($1, $2, $3, $4)
		ON CONFLICT (model, dims) DO NOTHING`, id.Model, id.Dims, id.Provider, IndexName(id))
	if err != nil {
		return fmt.Errorf("record model %s: %w", id, err)
	}
	return nil
}

// checkDims says whether pgvector can index id's vectors at precision p.
func checkDims(id Identity, p Precision) error {
	switch {
	case id.Dims <= 0 || id.Dims > maxHNSWDims:
		return fmt.Errorf("embedding dimension %d is outside 1..%d", id.Dims, maxHNSWDims)
	case !p.Half(id.Dims) && id.Dims > maxFullHNSWDims:
		return fmt.Errorf("a full-precision HNSW index holds at most %d dimensions, not %d: EMBED_INDEX_PRECISION=half or auto",
			maxFullHNSWDims, id.Dims)
	}
	return nil
}

// createHNSW creates id's index (CREATE INDEX CONCURRENTLY) unless a valid
// one exists. Embedders starting together take turns on the advisory lock
// BuildIndex uses: concurrent builds deadlocked on each other's snapshots,
// and a build that lost left an invalid index the others then took for
// theirs. The lock is only tried, never waited for in a statement (a
// session waiting holds a snapshot the build would wait for); the others
// look again every 100 ms until the holder's index is valid. Holding the
// lock, an invalid index is a failed build's leftover: it is built again.
func createHNSW(ctx context.Context, pool *pgxpool.Pool, id Identity, p Precision) error {
	conn, schema, err := chunksConn(ctx, pool)
	if err != nil {
		return err
	}
	defer conn.Release()
	name := IndexName(id)
	lockKey := schema + "." + name
	for {
		var locked bool
		if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock(hashtext($1))`, lockKey).Scan(&locked); err != nil {
			return fmt.Errorf("lock the build of %s: %w", name, err)
		}
		st, err := indexState(ctx, conn, name)
		if err != nil {
			if locked {
				conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock(hashtext($1))`, lockKey)
			}
			return err
		}
		if locked {
			defer conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock(hashtext($1))`, lockKey)
			switch {
			case st.Exists && st.Valid:
				return nil
			case st.Exists && !st.Building:
				if err := dropIndex(ctx, conn, schema, name); err != nil {
					return err
				}
			case st.Exists: // a build by a session outside this lock (an older release)
				return nil
			}
			_, err := conn.Exec(ctx, IndexSQL(id, p, true))
			return err
		}
		if st.Exists && st.Valid {
			return nil
		}
		if err := sleep.For(ctx, 100*time.Millisecond); err != nil {
			return err
		}
	}
}

// BuildIndex creates id's HNSW index of precision p concurrently (writes
// go on) with maintenance_work_mem set to mem ("" keeps the server's),
// unless a valid one with the current parameters and that precision exists. The index is built under a
// temporary name and then renamed, replacing an invalid or outdated one
// only once its successor is ready, so searches keep an index throughout;
// a valid successor left by an interrupted build is put in place. One
// build per index runs at a time (a session advisory lock); another is an
// error.
func BuildIndex(ctx context.Context, pool *pgxpool.Pool, id Identity, p Precision, mem string) error {
	if err := checkDims(id, p); err != nil {
		return err
	}
	conn, schema, err := chunksConn(ctx, pool)
	if err != nil {
		return err
	}
	defer conn.Release()
	name := IndexName(id)
	next := name + "_new" // IndexName is at most 59 bytes: this fits Postgres' 63
	exec := func(sql string, args ...any) error { _, err := conn.Exec(ctx, sql, args...); return err }
	drop := func(n string) error { return dropIndex(ctx, conn, schema, n) }

	var locked bool
	lockKey := schema + "." + name
	if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock(hashtext($1))`, lockKey).Scan(&locked); err != nil {
		return fmt.Errorf("lock the build of %s: %w", name, err)
	}
	if !locked {
		return fmt.Errorf("index %s is being built by another session; wait for it (newsctl index status)", name)
	}
	defer conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock(hashtext($1))`, lockKey)

	cur, err := indexState(ctx, conn, name)
	if err != nil {
		return err
	}
	if cur.Building {
		return fmt.Errorf("index %s is being built by another session; wait for it (newsctl index status)", name)
	}
	succ, err := indexState(ctx, conn, next)
	if err != nil {
		return err
	}
	current := func(st IndexState) bool { return st.Valid && !st.Outdated() && st.Half == p.Half(id.Dims) }
	if current(cur) {
		return drop(next) // a leftover, if any
	}
	if !current(succ) {
		if err := drop(next); err != nil {
			return err
		}
		if mem != "" {
			if err := exec("SELECT set_config('maintenance_work_mem', $1, false)", mem); err != nil {
				return fmt.Errorf("set maintenance_work_mem to %q: %w", mem, err)
			}
			defer conn.Exec(context.WithoutCancel(ctx), "RESET maintenance_work_mem")
		}
		if err := exec(indexSQL(id, next, p, true)); err != nil {
			return fmt.Errorf("build HNSW index %s for %s: %w", next, id, err)
		}
	}
	if err := drop(name); err != nil {
		return err
	}
	if err := exec("ALTER INDEX " + pgx.Identifier{schema, next}.Sanitize() + " RENAME TO " + pgx.Identifier{name}.Sanitize()); err != nil {
		return fmt.Errorf("rename %s to %s: %w", next, name, err)
	}
	return nil
}

// DropIndex drops id's HNSW index (concurrently: searches and writes go on).
// Vector searches of the model then scan exactly until it is built again.
func DropIndex(ctx context.Context, pool *pgxpool.Pool, id Identity) error {
	conn, schema, err := chunksConn(ctx, pool)
	if err != nil {
		return err
	}
	defer conn.Release()
	return dropIndex(ctx, conn, schema, IndexName(id))
}

func dropIndex(ctx context.Context, conn *pgxpool.Conn, schema, name string) error {
	if _, err := conn.Exec(ctx, "DROP INDEX CONCURRENTLY IF EXISTS "+pgx.Identifier{schema, name}.Sanitize()); err != nil {
		return fmt.Errorf("drop index %s: %w", name, err)
	}
	return nil
}

// chunksConn acquires a connection and finds the schema of the chunks table
// the search_path reaches: index names are qualified with it, so a
// namesake elsewhere is never hit. The caller releases the connection.
func chunksConn(ctx context.Context, pool *pgxpool.Pool) (*pgxpool.Conn, string, error) {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return nil, "", err
	}
	var schema string
	err = conn.QueryRow(ctx, `SELECT n.nspname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE c.oid = 'chunks'::regclass`).Scan(&schema)
	if err != nil {
		conn.Release()
		return nil, "", fmt.Errorf("find the chunks table: %w", err)
	}
	return conn, schema, nil
}

// quoteLiteral quotes s as an SQL string literal (standard_conforming_strings on).
func quoteLiteral(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}
