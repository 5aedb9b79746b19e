// Package store opens the Postgres pool and applies the embedded migrations.
package store

import (
	"context"
	"database/sql"
	"fmt"
	"hash/fnv"

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

func migrateDB(ctx context.Context, db *sql.DB) ([]int64, error) {
	// The advisory lock lets many workers start at once. Its id is derived
	// from the target schema, so migrations of different schemas (parallel
	// tests) do not queue behind each other; waiters poll every second.
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
