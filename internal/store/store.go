// Package store opens the Postgres pool and applies the embedded migrations.
package store

import (
	"context"
	"database/sql"
	"fmt"
	"hash/fnv"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"

	"github.com/newscrawl/newscrawl/migrations"
	"github.com/newscrawl/newscrawl/pkg/streamkit"
)

// Open connects a pool to databaseURL and checks that the server answers.
func Open(ctx context.Context, databaseURL string) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(databaseURL)
	if err != nil {
		return nil, fmt.Errorf("parse DATABASE_URL: %w", err)
	}
	return OpenConfig(ctx, cfg)
}

// OpenConfig is Open for an already parsed configuration.
func OpenConfig(ctx context.Context, cfg *pgxpool.Config) (*pgxpool.Pool, error) {
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("connect postgres: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("ping postgres: %w", err)
	}
	return pool, nil
}

// Migrate creates streamkit's ledger (streamkit.Migrate), then applies
// every pending migration of the project and returns the versions applied.
// Both take an advisory lock, so concurrent callers are safe.
func Migrate(ctx context.Context, pool *pgxpool.Pool) ([]int64, error) {
	if err := streamkit.Migrate(ctx, pool); err != nil {
		return nil, err
	}
	db := stdlib.OpenDBFromPool(pool)
	defer db.Close()
	return migrateDB(ctx, db)
}

// provider is goose's migration provider under the schema's advisory lock.
// The lock lets many workers start at once. Its id is derived from the
// target schema, so migrations of different schemas (parallel tests) do not
// queue behind each other; waiters poll every second.
func provider(ctx context.Context, db *sql.DB) (*goose.Provider, error) {
	var schema string
	if err := db.QueryRowContext(ctx, `SELECT current_schema()`).Scan(&schema); err != nil {
		return nil, fmt.Errorf("read current schema: %w", err)
	}
	h := fnv.New64a()
	h.Write([]byte("newscrawl-migrate:" + schema))
	locker, err := lock.NewPostgresSessionLocker(lock.WithLockID(int64(h.Sum64()>>1)), lock.WithLockTimeout(1, 600))
	if err != nil {
		return nil, fmt.Errorf("create migration lock: %w", err)
	}
	p, err := goose.NewProvider(goose.DialectPostgres, db, migrations.FS, goose.WithSessionLocker(locker))
	if err != nil {
		return nil, fmt.Errorf("load migrations: %w", err)
	}
	return p, nil
}

func migrateDB(ctx context.Context, db *sql.DB) ([]int64, error) {
	p, err := provider(ctx, db)
	if err != nil {
		return nil, err
	}
	res, err := p.Up(ctx)
	if err != nil {
		return nil, fmt.Errorf("apply migrations: %w", err)
	}
	var applied []int64
	for _, r := range res {
		applied = append(applied, r.Source.Version)
	}
	return applied, nil
}

// Latest is the newest migration version this binary holds: the schema it
// expects.
func Latest() int64 {
	return latest
}

var latest = func() int64 {
	entries, _ := migrations.FS.ReadDir(".")
	var v int64
	for _, e := range entries {
		if n, err := strconv.ParseInt(strings.SplitN(e.Name(), "_", 2)[0], 10, 64); err == nil {
			v = max(v, n)
		}
	}
	return v
}()

// A Step is one migration of the schema, and whether it can be undone.
type Step struct {
	Version      int64
	Name         string // the file's name
	Applied      bool
	Irreversible string // why its Down cannot be run, from a "-- irreversible: why" line; "" when it can
}

// Steps lists every migration this binary holds, with whether each is
// applied to the pool's schema.
func Steps(ctx context.Context, pool *pgxpool.Pool) ([]Step, error) {
	db := stdlib.OpenDBFromPool(pool)
	defer db.Close()
	p, err := goose.NewProvider(goose.DialectPostgres, db, migrations.FS)
	if err != nil {
		return nil, fmt.Errorf("load migrations: %w", err)
	}
	status, err := p.Status(ctx)
	if err != nil {
		return nil, fmt.Errorf("read migration status: %w", err)
	}
	var out []Step
	for _, st := range status {
		name := filepath.Base(st.Source.Path)
		body, err := fs.ReadFile(migrations.FS, name)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", name, err)
		}
		out = append(out, Step{Version: st.Source.Version, Name: name, Applied: st.State == goose.StateApplied,
			Irreversible: irreversible(string(body))})
	}
	return out, nil
}

// irreversible returns the reason a migration file gives for having no Down.
func irreversible(sql string) string {
	for _, line := range strings.Split(sql, "\n") {
		if why, ok := strings.CutPrefix(strings.TrimSpace(line), "-- irreversible:"); ok {
			return strings.TrimSpace(why)
		}
	}
	return ""
}

// MigrateTo takes the schema up or down to version (streamkit's ledger is
// never taken down: its changes are additive). Going down refuses to cross
// a migration that says it is irreversible. It returns the versions applied
// or undone.
func MigrateTo(ctx context.Context, pool *pgxpool.Pool, version int64) ([]int64, error) {
	if err := streamkit.Migrate(ctx, pool); err != nil {
		return nil, err
	}
	current, err := Version(ctx, pool)
	if err != nil {
		return nil, err
	}
	if version < current {
		steps, err := Steps(ctx, pool)
		if err != nil {
			return nil, err
		}
		for _, st := range steps {
			if st.Applied && st.Version > version && st.Irreversible != "" {
				return nil, fmt.Errorf("migration %s cannot be undone (%s): the schema cannot go below version %d", st.Name, st.Irreversible, st.Version)
			}
		}
	}
	db := stdlib.OpenDBFromPool(pool)
	defer db.Close()
	p, err := provider(ctx, db)
	if err != nil {
		return nil, err
	}
	var res []*goose.MigrationResult
	if version >= current {
		res, err = p.UpTo(ctx, version)
	} else {
		res, err = p.DownTo(ctx, version)
	}
	if err != nil {
		return nil, fmt.Errorf("migrate to version %d: %w", version, err)
	}
	var done []int64
	for _, r := range res {
		done = append(done, r.Source.Version)
	}
	return done, nil
}

// Version reports the newest applied migration version.
func Version(ctx context.Context, pool *pgxpool.Pool) (int64, error) {
	db := stdlib.OpenDBFromPool(pool)
	defer db.Close()
	p, err := goose.NewProvider(goose.DialectPostgres, db, migrations.FS)
	if err != nil {
		return 0, fmt.Errorf("load migrations: %w", err)
	}
	return p.GetDBVersion(ctx)
}
