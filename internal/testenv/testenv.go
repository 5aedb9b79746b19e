// Package testenv gives integration tests their own slice of the real
// Redis and Postgres: a unique key prefix and a fresh, migrated schema.
package testenv

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"

	"github.com/newscrawl/newscrawl/internal/store"
	"github.com/newscrawl/newscrawl/pkg/streamkit"
)

// DefaultDatabaseURL and DefaultRedisURL are used when the environment names none.
const (
	DefaultDatabaseURL = "postgres://postgres@127.0.0.1:5432/newscrawl_test?sslmode=disable"
	DefaultRedisURL    = "redis://127.0.0.1:6379/0"
)

// Name returns a short random identifier, safe as a schema or key prefix.
func Name(prefix string) string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

// Redis returns a client and a unique stream prefix; every key under the
// prefix is deleted when the test ends.
func Redis(t testing.TB) (*redis.Client, string) {
	t.Helper()
	url := os.Getenv("REDIS_URL")
	if url == "" {
		url = DefaultRedisURL
	}
	opt, err := redis.ParseURL(url)
	if err != nil {
		t.Fatalf("parse REDIS_URL: %v", err)
	}
	rdb := redis.NewClient(opt)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := rdb.Ping(ctx).Err(); err != nil {
		t.Fatalf("redis at %s is not reachable (run `make test`, which starts it): %v", url, err)
	}
	prefix := Name("t")
	t.Cleanup(func() {
		ctx := context.Background()
		iter := rdb.Scan(ctx, 0, prefix+":*", 1000).Iterator()
		for iter.Next(ctx) {
			rdb.Del(ctx, iter.Val())
		}
		rdb.Close()
	})
	return rdb, prefix
}

// Postgres returns a pool whose search_path is a new schema with every
// migration applied; the schema is dropped when the test ends.
func Postgres(t testing.TB) *pgxpool.Pool {
	t.Helper()
	return postgresOn(t, DatabaseURL())
}

// postgresOn is Postgres on the server at url.
func postgresOn(t testing.TB, url string) *pgxpool.Pool {
	t.Helper()
	schema := Name("t_")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	admin, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatalf("postgres at %s is not reachable (run `make test`, which starts it): %v", url, err)
	}
	if _, err := admin.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatalf("create schema: %v", err)
	}
	admin.Close(ctx)

	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		t.Fatalf("parse DATABASE_URL: %v", err)
	}
	cfg.ConnConfig.RuntimeParams["search_path"] = schema + ",public"
	cfg.MaxConns = 8
	pool, err := store.OpenConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.Migrate(ctx, pool); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		pool.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if c, err := pgx.Connect(ctx, url); err == nil {
			c.Exec(ctx, "DROP SCHEMA "+schema+" CASCADE")
			c.Close(ctx)
		}
	})
	return pool
}

// DatabaseURL is the test database: DATABASE_URL, or the local default.
func DatabaseURL() string {
	if u := os.Getenv("DATABASE_URL"); u != "" {
		return u
	}
	return DefaultDatabaseURL
}

// SchemaURL is DatabaseURL with schema first on the search_path, for a
// binary a test starts against the test's own schema.
func SchemaURL(schema string) string {
	url, sep := DatabaseURL(), "?"
	if strings.Contains(url, "?") {
		sep = "&"
	}
	return url + sep + "search_path=" + schema + "%2Cpublic"
}

// SchemaOf reports the first schema of a pool's search_path (for tests that
// start binaries against the same schema).
func SchemaOf(pool *pgxpool.Pool) string {
	sp := pool.Config().ConnConfig.RuntimeParams["search_path"]
	return strings.SplitN(sp, ",", 2)[0]
}

// Env is one test's slice of the real services: a Redis client with a
// unique key prefix and a pool on a fresh, migrated schema.
type Env struct {
	T      testing.TB
	RDB    redis.UniversalClient
	Pool   *pgxpool.Pool
	Prefix string
}

// New returns a test's Env; everything is cleaned up when the test ends.
func New(t testing.TB) *Env {
	t.Helper()
	rdb, prefix := Redis(t)
	return &Env{T: t, RDB: rdb, Pool: Postgres(t), Prefix: prefix}
}

// NewWith is New on a Redis client of the caller's (a cluster's): a fresh
// prefix on it and a fresh schema; the caller owns the client.
func NewWith(t testing.TB, rdb redis.UniversalClient) *Env {
	t.Helper()
	return &Env{T: t, RDB: rdb, Pool: Postgres(t), Prefix: Name("t")}
}

// Keys names a stage's keys under the test's prefix.
func (e *Env) Keys(stage string) streamkit.Keys { return streamkit.KeysFor(e.Prefix, stage) }

// Run runs a consumer (cfg.Prefix defaults to the test's) until the test
// ends or stop is called; stop cancels it and waits for Run to return.
func (e *Env) Run(cfg streamkit.Config, h streamkit.Handler) (stop func()) {
	e.T.Helper()
	if cfg.Prefix == "" {
		cfg.Prefix = e.Prefix
	}
	c, err := streamkit.NewConsumer(e.RDB, e.Pool, cfg, h)
	if err != nil {
		e.T.Fatal(err)
	}
	if err := c.EnsureGroup(context.Background()); err != nil {
		e.T.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := c.Run(ctx); err != nil {
			e.T.Errorf("consumer run: %v", err)
		}
	}()
	var once sync.Once
	stop = func() { once.Do(func() { cancel(); <-done }) }
	e.T.Cleanup(stop)
	return stop
}

// Eventually polls cond until it holds, failing the test after timeout.
// The timeout is an upper bound for a loaded machine, not a speed claim.
func (e *Env) Eventually(what string, timeout time.Duration, cond func() bool) {
	e.T.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			e.T.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
