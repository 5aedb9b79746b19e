// Command benchstreamkit measures messages/second through a no-op
// streamkit stage (Postgres ledger, forward to a next stream, ack, metrics)
// against the raw go-redis ceiling (XREADGROUP COUNT 100 + pipelined XACK,
// no ledger) measured in the same run, alternating, so the ratio survives a
// noisy machine; it reports the medians. Beside them it measures the
// design's own ceiling: the same work done by hand in as many plain loops
// as consumers — per batch of 100 one read, one ledger lookup, one
// COPY of the ledger rows, the forwards pipelined, one ack — with none of
// streamkit's leases, workers, retries or metrics: what a PostgreSQL row
// per message costs on this machine, and how much of the gap to raw is
// streamkit's own. Its last line is:
//
//	streamkit <S> msg/s, raw <R> msg/s, ratio <S/R>
//
// With -cluster (a Redis Cluster's seed list, as REDIS_URL takes it with
// REDIS_CLUSTER=1) it measures instead the same stage on the single node,
// on the cluster with one stream, and on the cluster with -partitions
// partition streams, alternating; its last line is then:
//
//	partitioned <P> msg/s, cluster one stream <C> msg/s, single node <S> msg/s, ratio <P/S>
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/newscrawl/newscrawl/internal/config"
	"github.com/newscrawl/newscrawl/internal/store"
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
	clusterURL := flag.String("cluster", "", "a Redis Cluster seed list: measure a partitioned stage there against the single node")
	partitions := flag.Int("partitions", 3, "partition streams of the stage on the cluster (with -cluster)")
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

	schema := uniqueName("bench_")
	pool, drop, err := openSchema(ctx, *common.DatabaseURL, schema)
	if err != nil {
		return err
	}
	defer drop()

	fmt.Printf("machine: %s/%s, %d CPUs, %s; n=%d, rounds=%d, consumers=%d, batch=%d\n",
		runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.Version(), *n, *rounds, *consumers, *batch)
	if *clusterURL != "" {
		copt, err := redis.ParseClusterURL(*clusterURL)
		if err != nil {
			return fmt.Errorf("parse -cluster: %w", err)
		}
		crdb := redis.NewClusterClient(copt)
		defer crdb.Close()
		return comparePartitions(ctx, rdb, crdb, pool, *n, *rounds, *consumers, *batch, *partitions)
	}
	var raws, hands, kits []float64
	for r := range *rounds {
		prefix := uniqueName("bench")
		raw, err := measureRaw(ctx, rdb, prefix, *n)
		if err != nil {
			return err
		}
		hand, err := measureByHand(ctx, rdb, pool, prefix, *n, *consumers, *batch)
		if err != nil {
			return err
		}
		if _, err := pool.Exec(ctx, "TRUNCATE stage_results"); err != nil {
			return fmt.Errorf("reset ledger: %w", err)
		}
		kit, err := measureStreamkit(ctx, rdb, pool, prefix, nil, *n, *consumers, *batch)
		if err != nil {
			return err
		}
		cleanup(ctx, rdb, prefix)
		if _, err := pool.Exec(ctx, "TRUNCATE stage_results"); err != nil {
			return fmt.Errorf("reset ledger: %w", err)
		}
		fmt.Printf("round %d: raw %.0f msg/s, ledger by hand %.0f msg/s, streamkit %.0f msg/s, ratio %.3f (by hand %.3f)\n",
			r+1, raw, hand, kit, kit/raw, hand/raw)
		raws, hands, kits = append(raws, raw), append(hands, hand), append(kits, kit)
	}
	raw, hand, kit := median(raws), median(hands), median(kits)
	fmt.Printf("ledger by hand %.0f msg/s, ratio %.3f of raw: the ceiling of a ledger row per message; streamkit reaches %.2f of it\n",
		hand, hand/raw, kit/hand)
	fmt.Printf("streamkit %.0f msg/s, raw %.0f msg/s, ratio %.3f\n", kit, raw, kit/raw)
	return nil
}

// comparePartitions measures the stage on the single node, on the cluster
// with one stream, and on the cluster with its stream split in partitions.
func comparePartitions(ctx context.Context, single redis.UniversalClient, cluster *redis.ClusterClient, pool *pgxpool.Pool,
	n, rounds, consumers, batch, partitions int) error {
	runs := []struct {
		name  string
		rdb   redis.UniversalClient
		parts streamkit.Partitions
	}{
		{"single node", single, nil},
		{"cluster one stream", cluster, nil},
		{fmt.Sprintf("cluster %d partitions", partitions), cluster, streamkit.Partitions{"noop": partitions, "next": partitions}},
	}
	got := make([][]float64, len(runs))
	for r := range rounds {
		line := fmt.Sprintf("round %d:", r+1)
		for i, run := range runs {
			prefix := uniqueName("bench")
			rate, err := measureStreamkit(ctx, run.rdb, pool, prefix, run.parts, n, consumers, batch)
			if err != nil {
				return fmt.Errorf("%s: %w", run.name, err)
			}
			if err := cluster.ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error { cleanup(ctx, m, prefix); return nil }); err != nil {
				return err
			}
			cleanup(ctx, single, prefix)
			if _, err := pool.Exec(ctx, "TRUNCATE stage_results"); err != nil {
				return fmt.Errorf("reset ledger: %w", err)
			}
			got[i] = append(got[i], rate)
			line += fmt.Sprintf(" %s %.0f msg/s;", run.name, rate)
		}
		fmt.Println(line)
	}
	s, c, p := median(got[0]), median(got[1]), median(got[2])
	fmt.Printf("partitioned %.0f msg/s, cluster one stream %.0f msg/s, single node %.0f msg/s, ratio %.3f\n", p, c, s, p/s)
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

// fill appends n small claim-check messages to stage, each on its doc_id's
// partition, pipelined.
func fill(ctx context.Context, rdb redis.UniversalClient, prefix, stage string, parts streamkit.Partitions, n int) error {
	for i := 0; i < n; i += 1000 {
		pipe := rdb.Pipeline()
		for j := i; j < min(i+1000, n); j++ {
			f := map[string]string{"doc_id": fmt.Sprintf("doc-%d", j), "content_hash": "0123456789abcdef", "url": fmt.Sprintf("https://example.com/a/%d", j)}
			pipe.XAdd(ctx, &redis.XAddArgs{Stream: parts.Route(prefix, stage, f).Stream(), Values: f})
		}
		if _, err := pipe.Exec(ctx); err != nil {
			return fmt.Errorf("fill %s: %w", stage, err)
		}
	}
	return nil
}

// measureRaw is the ceiling: one loop of XREADGROUP COUNT 100 + XACK.
func measureRaw(ctx context.Context, rdb *redis.Client, prefix string, n int) (float64, error) {
	stream := streamkit.KeysFor(prefix, "raw").Stream()
	if err := fill(ctx, rdb, prefix, "raw", nil, n); err != nil {
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

// measureByHand is streamkit's work without streamkit: loops plain
// loops, each reading a batch, looking its keys up in the ledger, writing
// their rows in one insert, forwarding them pipelined and acking them.
func measureByHand(ctx context.Context, rdb *redis.Client, pool *pgxpool.Pool, prefix string, n, loops, batch int) (float64, error) {
	in, out := streamkit.KeysFor(prefix, "hand").Stream(), streamkit.KeysFor(prefix, "handnext").Stream()
	if err := fill(ctx, rdb, prefix, "hand", nil, n); err != nil {
		return 0, err
	}
	if err := streamkit.EnsureGroup(ctx, rdb, in, "g"); err != nil {
		return 0, err
	}
	var done atomic.Int64
	errs := make(chan error, loops)
	start := time.Now()
	for l := range loops {
		go func() { errs <- handLoop(ctx, rdb, pool, in, out, fmt.Sprintf("c%d", l), batch, n, &done) }()
	}
	for range loops {
		if err := <-errs; err != nil {
			return 0, err
		}
	}
	elapsed := time.Since(start)
	var rows int
	if err := pool.QueryRow(ctx, "SELECT count(*) FROM stage_results").Scan(&rows); err != nil {
		return 0, err
	}
	if forwarded := rdb.XLen(ctx, out).Val(); rows != n || forwarded != int64(n) {
		return 0, fmt.Errorf("by-hand run incomplete: %d ledger rows, %d forwarded, want %d", rows, forwarded, n)
	}
	return float64(n) / elapsed.Seconds(), nil
}

func handLoop(ctx context.Context, rdb *redis.Client, pool *pgxpool.Pool, in, out, consumer string, batch, n int, done *atomic.Int64) error {
	for done.Load() < int64(n) {
		res, err := rdb.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "g", Consumer: consumer, Streams: []string{in, ">"}, Count: int64(batch), Block: 50 * time.Millisecond}).Result()
		if errors.Is(err, redis.Nil) {
			continue
		}
		if err != nil {
			return fmt.Errorf("by hand: read: %w", err)
		}
		msgs := res[0].Messages
		ids, keys, docs, stages, emitted := make([]string, len(msgs)), make([]string, len(msgs)), make([]string, len(msgs)), make([]string, len(msgs)), make([]string, len(msgs))
		for i, m := range msgs {
			doc, _ := m.Values["doc_id"].(string)
			hash, _ := m.Values["content_hash"].(string)
			url, _ := m.Values["url"].(string)
			ids[i], keys[i], docs[i], stages[i] = m.ID, "hand:"+doc+":"+hash, doc, "hand"
			js, _ := json.Marshal([]map[string]any{{"stage": "next", "fields": map[string]string{"doc_id": doc, "content_hash": hash, "url": url}}})
			emitted[i] = string(js)
		}
		rows, err := pool.Query(ctx, `SELECT key, emitted FROM stage_results WHERE key = ANY($1)`, pgx.QueryExecModeExec, keys)
		if err != nil {
			return fmt.Errorf("by hand: look up: %w", err)
		}
		rows.Close()
		if _, err := pool.CopyFrom(ctx, pgx.Identifier{"stage_results"}, []string{"key", "stage", "doc_id", "emitted"},
			pgx.CopyFromSlice(len(keys), func(i int) ([]any, error) { return []any{keys[i], stages[i], docs[i], emitted[i]}, nil })); err != nil {
			return fmt.Errorf("by hand: copy: %w", err)
		}
		pipe := rdb.Pipeline()
		for _, m := range msgs {
			pipe.XAdd(ctx, &redis.XAddArgs{Stream: out, Values: m.Values})
		}
		if _, err := pipe.Exec(ctx); err != nil {
			return fmt.Errorf("by hand: forward: %w", err)
		}
		if err := rdb.XAck(ctx, in, "g", ids...).Err(); err != nil {
			return fmt.Errorf("by hand: ack: %w", err)
		}
		done.Add(int64(len(msgs)))
	}
	return nil
}

// measureStreamkit runs consumers with a no-op forwarding handler until
// every message is acked.
func measureStreamkit(ctx context.Context, rdb redis.UniversalClient, pool *pgxpool.Pool, prefix string, parts streamkit.Partitions, n, consumers, batch int) (float64, error) {
	if err := fill(ctx, rdb, prefix, "noop", parts, n); err != nil {
		return 0, err
	}
	forward := streamkit.HandlerFunc(func(ctx context.Context, m *streamkit.Message) (streamkit.Result, error) {
		return streamkit.Result{DocID: m.Get("doc_id"), Emit: []streamkit.Emit{{Stage: "next", Fields: m.Fields}}}, nil
	})
	metrics := streamkit.NewMetrics("", prometheus.NewRegistry())
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	errs := make(chan error, consumers)
	start := time.Now()
	for range consumers {
		c, err := streamkit.NewConsumer(rdb, pool, streamkit.Config{
			Prefix: prefix, Stage: "noop", Group: "noop", Concurrency: 8, BatchSize: batch,
			Block: 50 * time.Millisecond, JanitorInterval: -1, Metrics: metrics, Partitions: parts,
		}, forward)
		if err != nil {
			return 0, err
		}
		go func() { errs <- c.Run(runCtx) }()
	}
	for !finished(ctx, rdb, parts.Keys(prefix, "noop"), n) {
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
	var forwarded int64
	for _, k := range parts.Keys(prefix, "next") {
		forwarded += rdb.XLen(ctx, k.Stream()).Val()
	}
	if rows != n || forwarded != int64(n) {
		return 0, fmt.Errorf("streamkit run incomplete: %d ledger rows, %d forwarded, want %d", rows, forwarded, n)
	}
	return float64(n) / elapsed.Seconds(), nil
}

// finished says whether the group has read n entries over the partitions
// and holds none pending (one XINFO GROUPS per partition: a light poll).
func finished(ctx context.Context, rdb redis.UniversalClient, keys []streamkit.Keys, n int) bool {
	var read, pending int64
	for _, k := range keys {
		g, err := rdb.XInfoGroups(ctx, k.Stream()).Result()
		if err != nil || len(g) != 1 {
			return false
		}
		read, pending = read+g[0].EntriesRead, pending+g[0].Pending
	}
	return read >= int64(n) && pending == 0
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func cleanup(ctx context.Context, rdb redis.UniversalClient, prefix string) {
	iter := rdb.Scan(ctx, 0, prefix+":*", 1000).Iterator()
	for iter.Next(ctx) {
		rdb.Del(ctx, iter.Val())
	}
}

// uniqueName is prefix and the time in nanoseconds: a schema or key prefix
// no other run uses (a benchmark links no test helpers).
func uniqueName(prefix string) string { return fmt.Sprintf("%s%d", prefix, time.Now().UnixNano()) }
