// Package app runs a worker binary: it connects to Redis and Postgres,
// applies migrations, serves /metrics and /healthz, and runs one stage's
// streamkit consumer until SIGTERM or SIGINT.
package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/redis/go-redis/v9"

	"github.com/newscrawl/newscrawl/internal/config"
	"github.com/newscrawl/newscrawl/internal/pipeline"
	"github.com/newscrawl/newscrawl/internal/store"
	"github.com/newscrawl/newscrawl/internal/version"
	"github.com/newscrawl/newscrawl/pkg/streamkit"
)

// MetricsNamespace prefixes the metric names of every binary (newscrawl_…).
const MetricsNamespace = "newscrawl"

// Deps are what a stage's handler may use; they live as long as Run.
type Deps struct {
	Redis    redis.UniversalClient
	DB       *pgxpool.Pool
	Log      *slog.Logger
	Registry *prometheus.Registry
	Prefix   string
	// Partitions are the stages' partition counts (<STAGE>_PARTITIONS).
	Partitions streamkit.Partitions
	Producer   *streamkit.Producer // publishes with backpressure, to the partition of each doc_id
	// Dependencies are the process's breakers: a stage adds its own (a
	// model server) and returns streamkit.Unavailable to pause on it.
	Dependencies *streamkit.Dependencies
}

// Worker describes one stage binary.
type Worker struct {
	Name       string // binary name, for logs
	Stage      string // the stage it consumes
	Group      string
	Downstream string // the next stage ("" for the last)
	Version    string // appended to idempotency keys
	Key        streamkit.KeyFunc
	Common     config.Common
	Settings   config.Stage
	// PromoteInterval is how often due retries go back onto the stream
	// (0: streamkit's default, a second).
	PromoteInterval time.Duration
	// CommitLinger is how long a group commit waits to fill its batch (0:
	// streamkit's default).
	CommitLinger time.Duration
	// ErrorTypes are the stage's own error types, counted from zero.
	ErrorTypes []string
	// Status holds stage settings shown in the consumer's status record
	// (newsctl stats), such as the crawler's SSRF allowances.
	Status map[string]string
	// Background, if set, runs beside the consumer (e.g. the crawler's
	// recrawl scheduler) until shutdown; Run waits for it to return.
	Background func(ctx context.Context, d Deps)
}

// withRelease adds the release and the schema version this binary expects to
// a worker's status settings: newsctl migrate --to reads them, and refuses to
// take the schema below what a running worker needs.
func withRelease(settings map[string]string) map[string]string {
	out := map[string]string{StatusRelease: version.Release, StatusSchema: strconv.FormatInt(store.Latest(), 10)}
	for k, v := range settings {
		out[k] = v
	}
	return out
}

// Status settings every worker reports (beside its stage's own).
const (
	StatusRelease = "release"        // vMAJOR.MINOR.PATCH of the binary
	StatusSchema  = "schema_version" // the newest migration the binary holds
)

// Logger builds the JSON logger for level ("debug", "info", "warn", "error").
func Logger(level string) *slog.Logger {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		l = slog.LevelInfo
	}
	return slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: l, ReplaceAttr: durationsAsText}))
}

// durationsAsText logs a duration as "1.5s", not as nanoseconds.
func durationsAsText(_ []string, a slog.Attr) slog.Attr {
	if a.Value.Kind() == slog.KindDuration {
		return slog.String(a.Key, a.Value.Duration().String())
	}
	return a
}

// Connect opens Redis (REDIS_URL: user/password, rediss:// TLS and the db
// number honoured) and Postgres, with a pool of at least conns connections
// (poolConfig), and checks both answer.
func Connect(ctx context.Context, c config.Common, conns int) (redis.UniversalClient, *pgxpool.Pool, error) {
	rdb, addr, err := NewRedis(c)
	if err != nil {
		return nil, nil, err
	}
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := rdb.Ping(pctx).Err(); err != nil {
		rdb.Close()
		return nil, nil, fmt.Errorf("connect redis %s: %w", addr, err)
	}
	var pool *pgxpool.Pool
	cfg, err := poolConfig(*c.DatabaseURL, conns)
	if err == nil {
		pool, err = store.OpenConfig(pctx, cfg)
	}
	if err != nil {
		rdb.Close()
		return nil, nil, err
	}
	return rdb, pool, nil
}

// Run runs the worker until SIGTERM/SIGINT and returns nil after a clean
// shutdown. build makes the stage's handler from the connected deps. It
// serves /livez and /healthz from the start, and waits (with backoff, one
// log line per outage) for Redis and PostgreSQL instead of exiting when
// they are not there yet; /healthz says what it waits for.
func (w Worker) Run(build func(Deps) (streamkit.Handler, error)) error {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	return w.RunContext(ctx, build)
}

// RunContext is Run until ctx is cancelled.
func (w Worker) RunContext(ctx context.Context, build func(Deps) (streamkit.Handler, error)) error {
	log := Logger(*w.Common.LogLevel).With("binary", w.Name)
	RouteRedisLogs(log)

	// A connection for every handler and committer, and a few for the
	// stage's background work (feeder, scheduler, status, reclaim).
	rdb, pool, err := clients(w.Common, *w.Settings.Concurrency+streamkit.DefaultCommitters+2)
	if err != nil {
		return err
	}
	defer rdb.Close()
	defer pool.Close()
	deps := streamkit.StandardDependencies(rdb, pool, log)
	defer deps.Close()

	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	parts := w.Common.Partitions()
	reg.MustRegister(streamkit.NewStatsCollector(MetricsNamespace, &streamkit.Admin{RDB: rdb, Prefix: *w.Common.StreamPrefix, Partitions: parts},
		streamkit.StageRef{Stage: w.Stage, Group: w.Group}))
	var starting atomic.Pointer[string]
	phase := "starting: waiting for redis and postgres"
	starting.Store(&phase)
	health := func(ctx context.Context) error {
		if p := starting.Load(); p != nil {
			return errors.New(*p)
		}
		return deps.Check(ctx)
	}
	srv, err := Serve(*w.Common.MetricsAddr, reg, health, log)
	if err != nil {
		return err
	}
	if srv != nil {
		defer func() {
			sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_ = srv.Shutdown(sctx)
		}()
	}

	// Each start-up step that needs a dependency is retried while one is away.
	ready := func(what string, step func() error) error {
		for {
			err := step()
			if err == nil || ctx.Err() != nil || !deps.Down(err) {
				return err
			}
			phase := "starting: " + what + ": " + deps.Err().Error()
			starting.Store(&phase)
			if err := deps.Wait(ctx); err != nil {
				return nil // interrupted while waiting: a clean exit
			}
		}
	}
	if err := ready("connect", func() error { return deps.Check(ctx) }); err != nil || ctx.Err() != nil {
		return err
	}
	if err := ready("migrate", func() error { _, err := store.Migrate(ctx, pool); return err }); err != nil || ctx.Err() != nil {
		return err
	}
	d := Deps{Redis: rdb, DB: pool, Log: log, Registry: reg, Prefix: *w.Common.StreamPrefix, Partitions: parts,
		Producer: streamkit.NewProducer(rdb, *w.Common.StreamPrefix, *w.Settings.HighWater).WithPartitions(parts), Dependencies: deps}
	var h streamkit.Handler
	if err := ready("set up the stage", func() (err error) { h, err = build(d); return err }); err != nil || ctx.Err() != nil {
		return err
	}
	s := w.Settings
	consumer, err := streamkit.NewConsumer(rdb, pool, streamkit.Config{
		Prefix: *w.Common.StreamPrefix, Stage: w.Stage, Group: w.Group, Consumer: *s.Consumer,
		Visibility: *s.Visibility, HandlerTimeout: *s.HandlerTimeout, MaxAttempts: *s.MaxAttempts, MaxRunaways: *s.MaxRunaways, MaxDeliveries: *s.MaxDeliveries,
		Concurrency: *s.Concurrency, BatchSize: *s.BatchSize, GracePeriod: *s.GracePeriod,
		Downstream: w.Downstream, HighWater: *s.HighWater, Partitions: parts, Version: w.Version, Key: w.Key,
		PromoteInterval: w.PromoteInterval, CommitLinger: w.CommitLinger, JanitorInterval: *s.JanitorInterval, RetainLen: retain(*s.Retain),
		Status: withRelease(w.Status), ErrorTypes: w.ErrorTypes, Dependencies: deps, Logger: log, Metrics: streamkit.NewMetrics(MetricsNamespace, reg),
	}, h)
	if err != nil {
		return err
	}
	starting.Store(nil)

	// The background work stops with the consumer, also when the consumer
	// returns early with an error.
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	background := make(chan struct{})
	go func() {
		defer close(background)
		if w.Background != nil {
			w.Background(runCtx, d)
		}
	}()
	err = consumer.Run(runCtx)
	cancel()
	<-background
	return err
}

// clients builds the Redis client and the PostgreSQL pool without
// connecting: both connect on first use, so a worker can start before its
// services do. The pool holds conns connections (poolConfig).
func clients(c config.Common, conns int) (redis.UniversalClient, *pgxpool.Pool, error) {
	rdb, _, err := NewRedis(c)
	if err != nil {
		return nil, nil, err
	}
	cfg, err := poolConfig(*c.DatabaseURL, conns)
	if err != nil {
		return nil, nil, err
	}
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		return nil, nil, fmt.Errorf("set up postgres pool: %w", err)
	}
	return rdb, pool, nil
}

// poolConfig parses DATABASE_URL for a pool of at least conns connections,
// unless the URL sets pool_max_conns. pgx's default, the CPU count but at
// least 4, let a 2-core crawler's four committers take every connection
// while its 16 handlers queued for one (issue 30: 44 pages/s of 200 at 200
// hosts), and newsctl serve run 8 searches on 4.
func poolConfig(databaseURL string, conns int) (*pgxpool.Config, error) {
	cfg, err := pgxpool.ParseConfig(databaseURL)
	if err != nil {
		return nil, fmt.Errorf("parse DATABASE_URL: %w", err)
	}
	if !strings.Contains(databaseURL, "pool_max_conns") {
		cfg.MaxConns = max(cfg.MaxConns, int32(conns))
	}
	return cfg, nil
}

// NewRedis builds the Redis client REDIS_URL names, without connecting: a
// Redis Cluster client with REDIS_CLUSTER (the URL is then a seed list,
// redis://host:port?addr=host:port&addr=host:port), else a single node.
// addr says which server(s), for messages.
func NewRedis(c config.Common) (rdb redis.UniversalClient, addr string, err error) {
	if c.RedisCluster != nil && *c.RedisCluster {
		opt, err := redis.ParseClusterURL(*c.RedisURL)
		if err != nil {
			return nil, "", fmt.Errorf("parse REDIS_URL as a cluster seed list: %w", err)
		}
		opt.PoolSize = poolSize(opt.PoolSize, c)
		return redis.NewClusterClient(opt), "cluster " + strings.Join(opt.Addrs, ","), nil
	}
	opt, err := redis.ParseURL(*c.RedisURL)
	if err != nil {
		return nil, "", fmt.Errorf("parse REDIS_URL: %w", err)
	}
	opt.PoolSize = poolSize(opt.PoolSize, c)
	return redis.NewClient(opt), opt.Addr, nil
}

// poolSize is the Redis connection pool's size: the one REDIS_URL asks for
// (pool_size=), else go-redis' default plus a connection for each
// partition a consumer may read. A reader holds its connection for the
// whole of a blocking read, so with many partitions the default pool
// would leave acks and commits waiting for a connection.
func poolSize(asked int, c config.Common) int {
	if asked > 0 {
		return asked
	}
	parts, readers := c.Partitions(), 0
	for _, st := range pipeline.Stages() {
		readers += parts.Of(st.Stage)
	}
	return 10*runtime.GOMAXPROCS(0) + readers + 4 // + a former count's streams, which are rare
}

// retain maps the user's count of finished entries to keep onto
// streamkit's RetainLen, where 0 means the default and negative none.
func retain(n int64) int64 {
	if n <= 0 {
		return -1
	}
	return n
}

// Serve starts the /metrics, /livez and /healthz listener on addr; "" or
// "0" disables it (nil server, nil error). /livez answers 200 while the
// process runs (a liveness probe); /healthz is readiness: 503 with the
// reason while health fails (a dependency away, still starting).
func Serve(addr string, reg *prometheus.Registry, health func(context.Context) error, log *slog.Logger) (*http.Server, error) {
	if addr == "" || addr == "0" {
		return nil, nil
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	mux.HandleFunc("/livez", func(w http.ResponseWriter, r *http.Request) { fmt.Fprintln(w, "alive") })
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		if err := health(ctx); err != nil {
			http.Error(w, "unhealthy: "+err.Error(), http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ok")
	})
	if !strings.Contains(addr, ":") {
		addr = ":" + addr
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen on METRICS_ADDR %s: %w", addr, err)
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("metrics listener", "err", err)
		}
	}()
	log.Info("serving /metrics, /livez and /healthz", "addr", ln.Addr().String())
	return srv, nil
}
