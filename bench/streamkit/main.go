// Command benchstreamkit measures messages/second through a no-op
// streamkit stage (Postgres ledger, forward to a next stream, ack, metrics)
// against the raw go-redis ceiling (XREADGROUP COUNT 100 + pipelined XACK,
// no ledger) measured in the same run, alternating, so the ratio survives a
// noisy machine; it reports the medians. Its last line is:
//
//	streamkit <S> msg/s, raw <R> msg/s, ratio <S/R>
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/newscrawl/newscrawl/internal/config"
	"github.com/newscrawl/newscrawl/internal/store"
	"github.com/newscrawl/newscrawl/internal/testenv"
	"github.com/newscrawl/newscrawl/pkg/streamkit"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "benchstreamkit:", err)
		os.Exit(1)
	}
}

func run() error {
	s := config.NewSet(flag.CommandLine)
	common := config.BindCommon(s, "")
	n := flag.Int("n", 100000, "messages per measurement")
	rounds := flag.Int("rounds", 5, "alternating measurements of each; the medians are reported")
	consumers := flag.Int("consumers", 2, "streamkit consumers (one per core is the natural shape)")
	batch := flag.Int("batch", 100, "streamkit batch size")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the streamkit runs to this file")
	if err := s.Parse(os.Args[1:]); err != nil {
		return err
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	ctx := context.Background()
	opt, err := redis.ParseURL(*common.RedisURL)
	if err != nil {
		return fmt.Errorf("parse REDIS_URL: %w", err)
	}
	rdb := redis.NewClient(opt)
	defer rdb.Close()

	schema := testenv.Name("bench_")
	pool, drop, err := openSchema(ctx, *common.DatabaseURL, schema)
	if err != nil {
		return err
	}
	defer drop()

	fmt.Printf("machine: %s/%s, %d CPUs, %s; n=%d, rounds=%d, consumers=%d, batch=%d\n",
		runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.Version(), *n, *rounds, *consumers, *batch)
	var raws, kits []float64
	for r := range *rounds {
		prefix := testenv.Name("bench")
		raw, err := measureRaw(ctx, rdb, prefix, *n)
		if err != nil {
			return err
		}
		kit, err := measureStreamkit(ctx, rdb, pool, prefix, *n, *consumers, *batch)
		if err != nil {
			return err
		}
		cleanup(ctx, rdb, prefix)
		if _, err := pool.Exec(ctx, "TRUNCATE stage_results"); err != nil {
			return fmt.Errorf("reset ledger: %w", err)
		}
		fmt.Printf("round %d: raw %.0f msg/s, streamkit %.0f msg/s, ratio %.3f\n", r+1, raw, kit, kit/raw)
		raws, kits = append(raws, raw), append(kits, kit)
	}
	raw, kit := median(raws), median(kits)
	fmt.Printf("streamkit %.0f msg/s, raw %.0f msg/s, ratio %.3f\n", kit, raw, kit/raw)
	return nil
}

// openSchema makes a scratch schema with the migrations applied.
func openSchema(ctx context.Context, url, schema string) (*pgxpool.Pool, func(), error) {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return nil, nil, fmt.Errorf("connect postgres: %w", err)
	}
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		return nil, nil, fmt.Errorf("create schema: %w", err)
	}
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, nil, err
	}
	cfg.ConnConfig.RuntimeParams["search_path"] = schema + ",public"
	pool, err := store.OpenConfig(ctx, cfg)
	if err != nil {
		return nil, nil, err
	}
	drop := func() {
		pool.Close()
		conn.Exec(context.Background(), "DROP SCHEMA "+schema+" CASCADE")
		conn.Close(context.Background())
	}
	if _, err := store.Migrate(ctx, pool); err != nil {
		drop()
		return nil, nil, err
	}
	return pool, drop, nil
}

// fill appends n small claim-check messages to stream, pipelined.
func fill(ctx context.Context, rdb *redis.Client, stream string, n int) error {
	for i := 0; i < n; i += 1000 {
		pipe := rdb.Pipeline()
		for j := i; j < min(i+1000, n); j++ {
			pipe.XAdd(ctx, &redis.XAddArgs{Stream: stream, Values: []string{
				"doc_id", fmt.Sprintf("doc-%d", j), "content_hash", "0123456789abcdef", "url", fmt.Sprintf("https://example.com/a/%d", j)}})
		}
		if _, err := pipe.Exec(ctx); err != nil {
			return fmt.Errorf("fill %s: %w", stream, err)
		}
	}
	return nil
}

// measureRaw is the ceiling: one loop of XREADGROUP COUNT 100 + XACK.
func measureRaw(ctx context.Context, rdb *redis.Client, prefix string, n int) (float64, error) {
	stream := prefix + ":{raw}:stream"
	if err := fill(ctx, rdb, stream, n); err != nil {
		return 0, err
	}
	if err := streamkit.EnsureGroup(ctx, rdb, stream, "g"); err != nil {
		return 0, err
	}
	start := time.Now()
	for done := 0; done < n; {
		res, err := rdb.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "g", Consumer: "c", Streams: []string{stream, ">"}, Count: 100, Block: time.Second}).Result()
		if err != nil {
			return 0, fmt.Errorf("raw read: %w", err)
		}
		ids := make([]string, len(res[0].Messages))
		for i, m := range res[0].Messages {
			ids[i] = m.ID
		}
		if err := rdb.XAck(ctx, stream, "g", ids...).Err(); err != nil {
			return 0, fmt.Errorf("raw ack: %w", err)
		}
		done += len(ids)
	}
	return float64(n) / time.Since(start).Seconds(), nil
}

// measureStreamkit runs consumers with a no-op forwarding handler until
// every message is acked.
func measureStreamkit(ctx context.Context, rdb *redis.Client, pool *pgxpool.Pool, prefix string, n, consumers, batch int) (float64, error) {
	keys := streamkit.KeysFor(prefix, "noop")
	if err := fill(ctx, rdb, keys.Stream(), n); err != nil {
		return 0, err
	}
	forward := streamkit.HandlerFunc(func(ctx context.Context, m *streamkit.Message) (streamkit.Result, error) {
		return streamkit.Result{DocID: m.Get("doc_id"), Emit: []streamkit.Emit{{Stage: "next", Fields: m.Fields}}}, nil
	})
	metrics := streamkit.NewMetrics(prometheus.NewRegistry())
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	errs := make(chan error, consumers)
	start := time.Now()
	for range consumers {
		c, err := streamkit.NewConsumer(rdb, pool, streamkit.Config{
			Prefix: prefix, Stage: "noop", Group: "noop", Concurrency: 8, BatchSize: batch,
			Block: 50 * time.Millisecond, JanitorInterval: -1, Metrics: metrics,
		}, forward)
		if err != nil {
			return 0, err
		}
		go func() { errs <- c.Run(runCtx) }()
	}
	for {
		g, err := rdb.XInfoGroups(ctx, keys.Stream()).Result()
		if err == nil && len(g) == 1 && g[0].EntriesRead >= int64(n) && g[0].Pending == 0 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	elapsed := time.Since(start)
	stop()
	for range consumers {
		if err := <-errs; err != nil {
			return 0, err
		}
	}
	var rows int
	if err := pool.QueryRow(ctx, "SELECT count(*) FROM stage_results").Scan(&rows); err != nil {
		return 0, err
	}
	forwarded := rdb.XLen(ctx, streamkit.KeysFor(prefix, "next").Stream()).Val()
	if rows != n || forwarded != int64(n) {
		return 0, fmt.Errorf("streamkit run incomplete: %d ledger rows, %d forwarded, want %d", rows, forwarded, n)
	}
	return float64(n) / elapsed.Seconds(), nil
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func cleanup(ctx context.Context, rdb *redis.Client, prefix string) {
	iter := rdb.Scan(ctx, 0, prefix+":*", 1000).Iterator()
	for iter.Next(ctx) {
		rdb.Del(ctx, iter.Val())
	}
}
