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
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/redis/go-redis/v9"

	"github.com/newscrawl/newscrawl/internal/config"
	"github.com/newscrawl/newscrawl/internal/store"
	"github.com/newscrawl/newscrawl/pkg/streamkit"
)

// Deps are what a stage's handler may use; they live as long as Run.
type Deps struct {
	Redis    redis.UniversalClient
	DB       *pgxpool.Pool
	Log      *slog.Logger
	Registry *prometheus.Registry
	Prefix   string
	Producer *streamkit.Producer // publishes with backpressure
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
	// Background, if set, runs beside the consumer (e.g. the crawler's
	// recrawl scheduler) until shutdown; Run waits for it to return.
	Background func(ctx context.Context, d Deps)
}

// Logger builds the JSON logger for level ("debug", "info", "warn", "error").
func Logger(level string) *slog.Logger {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		l = slog.LevelInfo
	}
	return slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: l}))
}

// Connect opens Redis (REDIS_URL: user/password, rediss:// TLS and the db
// number honoured) and Postgres, and checks both answer.
func Connect(ctx context.Context, c config.Common) (redis.UniversalClient, *pgxpool.Pool, error) {
	opt, err := redis.ParseURL(*c.RedisURL)
	if err != nil {
		return nil, nil, fmt.Errorf("parse REDIS_URL: %w", err)
	}
	rdb := redis.NewClient(opt)
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := rdb.Ping(pctx).Err(); err != nil {
		rdb.Close()
		return nil, nil, fmt.Errorf("connect redis %s: %w", opt.Addr, err)
	}
	pool, err := store.Open(pctx, *c.DatabaseURL)
	if err != nil {
		rdb.Close()
		return nil, nil, err
	}
	return rdb, pool, nil
}

// Run runs the worker until SIGTERM/SIGINT and returns nil after a clean
// shutdown. build makes the stage's handler from the connected deps.
func (w Worker) Run(build func(Deps) (streamkit.Handler, error)) error {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	log := Logger(*w.Common.LogLevel).With("binary", w.Name)

	rdb, pool, err := Connect(ctx, w.Common)
	if err != nil {
		return err
	}
	defer rdb.Close()
	defer pool.Close()
	if _, err := store.Migrate(ctx, pool); err != nil {
		return err
	}

	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	reg.MustRegister(streamkit.NewStatsCollector(rdb, *w.Common.StreamPrefix, streamkit.StageRef{Stage: w.Stage, Group: w.Group}))
	deps := Deps{Redis: rdb, DB: pool, Log: log, Registry: reg, Prefix: *w.Common.StreamPrefix,
		Producer: streamkit.NewProducer(rdb, *w.Common.StreamPrefix, *w.Settings.HighWater)}
	h, err := build(deps)
	if err != nil {
		return err
	}
	s := w.Settings
	consumer, err := streamkit.NewConsumer(rdb, pool, streamkit.Config{
		Prefix: *w.Common.StreamPrefix, Stage: w.Stage, Group: w.Group, Consumer: *s.Consumer,
		Visibility: *s.Visibility, MaxAttempts: *s.MaxAttempts, MaxDeliveries: *s.MaxDeliveries,
		Concurrency: *s.Concurrency, BatchSize: *s.BatchSize, GracePeriod: *s.GracePeriod,
		Downstream: w.Downstream, HighWater: *s.HighWater, Version: w.Version, Key: w.Key,
		PromoteInterval: w.PromoteInterval, Logger: log, Metrics: streamkit.NewMetrics(reg),
	}, h)
	if err != nil {
		return err
	}
	if err := consumer.EnsureGroup(ctx); err != nil {
		return err
	}
	srv, err := Serve(*w.Common.MetricsAddr, reg, Health(rdb, pool), log)
	if err != nil {
		return err
	}
	background := make(chan struct{})
	go func() {
		defer close(background)
		if w.Background != nil {
			w.Background(ctx, deps)
		}
	}()
	err = consumer.Run(ctx)
	<-background
	if srv != nil {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}
	return err
}

// Health checks that Redis and Postgres answer.
func Health(rdb redis.UniversalClient, pool *pgxpool.Pool) func(context.Context) error {
	return func(ctx context.Context) error {
		if err := rdb.Ping(ctx).Err(); err != nil {
			return fmt.Errorf("redis: %w", err)
		}
		if err := pool.Ping(ctx); err != nil {
			return fmt.Errorf("postgres: %w", err)
		}
		return nil
	}
}

// Serve starts the /metrics and /healthz listener on addr; "" or "0"
// disables it (nil server, nil error).
func Serve(addr string, reg *prometheus.Registry, health func(context.Context) error, log *slog.Logger) (*http.Server, error) {
	if addr == "" || addr == "0" {
		return nil, nil
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
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
	log.Info("serving /metrics and /healthz", "addr", ln.Addr().String())
	return srv, nil
}
