// Package testenv gives the application's integration tests their own slice
// of the real Redis and Postgres: streamkittest's key prefix and fresh
// schema, with every migration of the application applied to the schema.
// The generic helpers (Redis, Name, DatabaseURL, SchemaOf, the server
// starters) are streamkittest's.
package testenv

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"

	"github.com/newscrawl/newscrawl/internal/store"
	"github.com/newscrawl/newscrawl/pkg/streamkit/streamkittest"
)

// Postgres returns a pool whose search_path is a new schema with every
// migration applied; the schema is dropped when the test ends.
func Postgres(t testing.TB) *pgxpool.Pool {
	t.Helper()
	return streamkittest.PostgresOn(t, streamkittest.DatabaseURL(), migrate)
}

// migrate applies the application's migrations (streamkit's table included).
func migrate(ctx context.Context, pool *pgxpool.Pool) error {
	_, err := store.Migrate(ctx, pool)
	return err
}

// SchemaURL is DatabaseURL with schema first on the search_path, for a
// binary a test starts against the test's own schema.
func SchemaURL(schema string) string {
	url, sep := streamkittest.DatabaseURL(), "?"
	if strings.Contains(url, "?") {
		sep = "&"
	}
	return url + sep + "search_path=" + schema + "%2Cpublic"
}

// Env is one test's slice of the real services: a Redis client with a
// unique key prefix and a pool on a fresh schema; New and NewWith migrate
// that schema with the application's migrations.
type Env = streamkittest.Env

// New returns a test's Env; everything is cleaned up when the test ends.
func New(t testing.TB) *Env {
	t.Helper()
	rdb, prefix := streamkittest.Redis(t)
	return &Env{T: t, RDB: rdb, Pool: Postgres(t), Prefix: prefix}
}

// NewWith is New on a Redis client of the caller's (a cluster's): a fresh
// prefix on it and a fresh schema; the caller owns the client.
func NewWith(t testing.TB, rdb redis.UniversalClient) *Env {
	t.Helper()
	return &Env{T: t, RDB: rdb, Pool: Postgres(t), Prefix: streamkittest.Name("t")}
}
