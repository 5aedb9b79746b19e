// Package streamkittest helps test code built on streamkit against a real
// Redis and PostgreSQL, each test in its own slice of them so tests can run
// in parallel: a Redis key prefix of its own, deleted when the test ends,
// and a fresh PostgreSQL schema with streamkit's table, dropped when the
// test ends.
//
// For tests that stop, kill or fail over a service, it also starts servers
// of the test's own on free loopback ports (StartPostgres, StartRedis,
// StartRedisCluster, StartRedisClusterWithReplicas); those never touch the
// machine's own Redis or PostgreSQL.
//
// The shared services are found through REDIS_URL and DATABASE_URL, or
// DefaultRedisURL and DefaultDatabaseURL when those are unset. A helper that
// cannot reach a service or set up its slice fails the test; a starter whose
// server binaries are missing skips it.
package streamkittest

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

	"github.com/newscrawl/newscrawl/pkg/streamkit"
)

// DefaultDatabaseURL and DefaultRedisURL are used when DATABASE_URL and
// REDIS_URL are unset.
const (
	DefaultDatabaseURL = "postgres://postgres@127.0.0.1:5432/newscrawl_test?sslmode=disable"
	DefaultRedisURL    = "redis://127.0.0.1:6379/0"
)

// Name returns prefix followed by 12 random hex digits, safe as a schema
// name or a key prefix.
func Name(prefix string) string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

// DatabaseURL is the test database: DATABASE_URL, or DefaultDatabaseURL.
func DatabaseURL() string {
	if u := os.Getenv("DATABASE_URL"); u != "" {
		return u
	}
	return DefaultDatabaseURL
}

// RedisURL is the test Redis: REDIS_URL, or DefaultRedisURL.
func RedisURL() string {
	if u := os.Getenv("REDIS_URL"); u != "" {
		return u
	}
	return DefaultRedisURL
}

// Redis returns a client of RedisURL and a unique key prefix; when the test
// ends, every key under the prefix is deleted and the client closed. It
// fails the test if Redis does not answer within 5 s.
func Redis(t testing.TB) (*redis.Client, string) {
	t.Helper()
	url := RedisURL()
	opt, err := redis.ParseURL(url)
	if err != nil {
		t.Fatalf("parse REDIS_URL: %v", err)
	}
	rdb := redis.NewClient(opt)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := rdb.Ping(ctx).Err(); err != nil {
		rdb.Close()
		t.Fatalf("redis at %s is not reachable (set REDIS_URL): %v", url, err)
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

// Postgres returns a pool on a fresh schema of DatabaseURL with only
// streamkit's table in it (streamkit.Migrate); see PostgresOn.
func Postgres(t testing.TB) *pgxpool.Pool {
	t.Helper()
	return PostgresOn(t, DatabaseURL(), streamkit.Migrate)
}

// PostgresOn returns a pool (8 connections at most) whose search_path is a
// new schema of the database at url, then public (where extensions live),
// after migrate has run on it; a nil migrate leaves the schema empty. When
// the test ends the pool is closed and the schema dropped. It fails the
// test if the database cannot be reached or migrate returns an error.
func PostgresOn(t testing.TB, url string, migrate func(context.Context, *pgxpool.Pool) error) *pgxpool.Pool {
	t.Helper()
	schema := Name("t_")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	admin, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatalf("postgres at %s is not reachable (set DATABASE_URL): %v", url, err)
	}
	_, err = admin.Exec(ctx, "CREATE SCHEMA "+schema)
	admin.Close(ctx)
	if err != nil {
		t.Fatalf("create schema: %v", err)
	}

	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		t.Fatalf("parse database URL: %v", err)
	}
	cfg.ConnConfig.RuntimeParams["search_path"] = schema + ",public"
	cfg.MaxConns = 8
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatalf("connect postgres: %v", err)
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
	if err := pool.Ping(ctx); err != nil {
		t.Fatalf("ping postgres: %v", err)
	}
	if migrate != nil {
		if err := migrate(ctx, pool); err != nil {
			t.Fatalf("migrate schema %s: %v", schema, err)
		}
	}
	return pool
}

// SchemaOf reports the first schema of a pool's search_path, for a test
// that starts another process on the same schema.
func SchemaOf(pool *pgxpool.Pool) string {
	sp := pool.Config().ConnConfig.RuntimeParams["search_path"]
	return strings.SplitN(sp, ",", 2)[0]
}

// Env is one test's slice of the services: a Redis client (RDB) with a
// unique key prefix (Prefix) and a pool on a fresh schema (Pool).
type Env struct {
	T      testing.TB
	RDB    redis.UniversalClient
	Pool   *pgxpool.Pool
	Prefix string
	// Report, when set, describes the test's state for Eventually's
	// timeout message (where the entries are, what was logged).
	Report func() string
}

// New returns a test's Env on Redis and Postgres; everything is cleaned up
// when the test ends.
func New(t testing.TB) *Env {
	t.Helper()
	rdb, prefix := Redis(t)
	return &Env{T: t, RDB: rdb, Pool: Postgres(t), Prefix: prefix}
}

// NewWith is New on a Redis client of the caller's (a cluster's, say): a
// fresh prefix on it and a fresh schema. The caller owns the client, and
// the keys under the prefix are not deleted.
func NewWith(t testing.TB, rdb redis.UniversalClient) *Env {
	t.Helper()
	return &Env{T: t, RDB: rdb, Pool: Postgres(t), Prefix: Name("t")}
}

// Keys names a stage's keys under the test's prefix.
func (e *Env) Keys(stage string) streamkit.Keys { return streamkit.KeysFor(e.Prefix, stage) }

// Run runs a consumer of h (cfg.Prefix defaults to the test's) after
// creating its group, until the test ends or stop is called; stop cancels
// it and waits for Run to return. A failure to build the consumer or create
// its group fails the test; an error from Run is reported with Errorf.
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

// Eventually polls cond every 20 ms until it holds, failing the test after
// timeout. The timeout is an upper bound for a loaded machine, not a speed
// claim. Only T need be set to use it.
func (e *Env) Eventually(what string, timeout time.Duration, cond func() bool) {
	e.T.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			report := ""
			if e.Report != nil {
				report = "\n" + e.Report()
			}
			e.T.Fatalf("timed out after %s waiting for %s%s", timeout, what, report)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
