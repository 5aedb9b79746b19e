package streamkittest

import (
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"

	"github.com/newscrawl/newscrawl/internal/localpg"
	"github.com/newscrawl/newscrawl/internal/localredis"
	"github.com/newscrawl/newscrawl/internal/loopback"
	"github.com/newscrawl/newscrawl/pkg/streamkit"
)

// Tests that stop or crash a service run their own instance of it, on a
// free loopback port with its data in a temp folder, and never touch the
// machine's own Redis or PostgreSQL.

// FreePort returns a loopback TCP port nobody listens on right now.
func FreePort(t testing.TB) int {
	t.Helper()
	port, err := loopback.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	return port
}

// A PostgresServer is a PostgreSQL cluster of the test's own, run with the
// machine's server binaries (so it has the machine's extensions), which the
// test may stop and start again.
type PostgresServer struct {
	t   testing.TB
	srv *localpg.Server
	// Port is the server's loopback port.
	Port int
}

// StartPostgres initialises a cluster in a temp folder (trust
// authentication, user postgres, fsync off) and starts it on a free port;
// it is stopped and removed when the test ends. It skips the test when no
// server binaries are found.
func StartPostgres(t testing.TB) *PostgresServer {
	t.Helper()
	srv, err := localpg.Start()
	if errors.Is(err, localpg.ErrNoServer) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return &PostgresServer{t: t, srv: srv, Port: srv.Port}
}

// Start starts the server again and waits until it accepts connections.
func (s *PostgresServer) Start() {
	s.t.Helper()
	if err := s.srv.Start(); err != nil {
		s.t.Fatal(err)
	}
}

// Stop shuts the server down (fast: connections are closed with an admin
// shutdown error) and waits until it is gone.
func (s *PostgresServer) Stop() {
	s.t.Helper()
	if err := s.srv.Stop(); err != nil {
		s.t.Fatal(err)
	}
}

// URL is the server's postgres database.
func (s *PostgresServer) URL() string { return s.srv.URL("") }

// Pool is a pool on a fresh schema of the server with streamkit's table,
// like Postgres; use PostgresOn(t, s.URL(), migrate) for other migrations.
func (s *PostgresServer) Pool(t testing.TB) *pgxpool.Pool {
	t.Helper()
	return PostgresOn(t, s.URL(), streamkit.Migrate)
}

// A RedisServer is a redis-server of the test's own, with an append-only
// file that is synced on every write, so a kill and restart loses nothing.
type RedisServer struct {
	t   testing.TB
	srv *localredis.Server
	// Port is the server's loopback port.
	Port int
}

// StartRedis starts a server on a free port with its data in a temp
// folder; it is killed when the test ends. It skips the test when there is
// no redis-server on the PATH.
func StartRedis(t testing.TB) *RedisServer {
	t.Helper()
	srv, err := localredis.Start("--appendonly", "yes", "--appendfsync", "always")
	if errors.Is(err, localredis.ErrNoServer) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return &RedisServer{t: t, srv: srv, Port: srv.Port}
}

// Start starts the server (again) on the same port and data, and waits
// until it answers.
func (s *RedisServer) Start() {
	s.t.Helper()
	if err := s.srv.Start(); err != nil {
		s.t.Fatal(err)
	}
}

// Kill ends the server at once (SIGKILL) and waits for it to exit.
func (s *RedisServer) Kill() { s.srv.Kill() }

// Addr is host:port.
func (s *RedisServer) Addr() string { return s.srv.Addr() }

// URL is the server's redis:// URL.
func (s *RedisServer) URL() string { return s.srv.URL() }

// Client returns a client of the server, closed when the test ends. It
// keeps no connections it cannot use: a dead one is replaced on next use.
func (s *RedisServer) Client(t testing.TB) *redis.Client {
	rdb := redis.NewClient(&redis.Options{Addr: s.Addr(), MaxRetries: -1, DialTimeout: time.Second})
	t.Cleanup(func() { rdb.Close() })
	return rdb
}
