package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/redis/go-redis/v9"

	"github.com/newscrawl/newscrawl/internal/localpg"
	"github.com/newscrawl/newscrawl/internal/localredis"
	"github.com/newscrawl/newscrawl/internal/proctree"
)

// servers are a Redis and a PostgreSQL of the bench's own: the total CPU
// per page (crawler + Redis + PostgreSQL) must not count other tenants'
// work, and work moved from the crawler into SQL must show there.
type servers struct {
	redis *localredis.Server
	pg    *localpg.Server
	// benchCmds counts the commands the bench itself sends (its polling
	// every 20 ms is several a poll), which calls leaves out.
	benchCmds commandCounter
}

// commandCounter is a go-redis hook that counts the commands a client sends.
type commandCounter struct{ n atomic.Int64 }

func (c *commandCounter) DialHook(next redis.DialHook) redis.DialHook { return next }

func (c *commandCounter) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		c.n.Add(1)
		return next(ctx, cmd)
	}
}

func (c *commandCounter) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		c.n.Add(int64(len(cmds)))
		return next(ctx, cmds)
	}
}

// startServers starts both, the way the machine's own run: Redis without
// persistence, PostgreSQL with its defaults (fsync off, as for tests), and
// pg_stat_statements to count the statements a crawl sends.
func startServers() (*servers, error) {
	rd, err := localredis.Start()
	if err != nil {
		return nil, err
	}
	pg, err := localpg.Start("shared_preload_libraries=pg_stat_statements")
	if err != nil {
		rd.Close()
		return nil, err
	}
	sv := &servers{redis: rd, pg: pg}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, pg.URL("postgres"))
	if err == nil {
		_, err = conn.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
		conn.Close(ctx)
	}
	if err != nil {
		sv.close()
		return nil, fmt.Errorf("pg_stat_statements: %w", err)
	}
	return sv, nil
}

// calls are the commands Redis has run for others than the bench (those a
// Lua script runs included: Redis counts them so) and the statements
// PostgreSQL has run (every database; BEGIN and COMMIT included), so far:
// the work a crawl sends its servers, which the machine's load does not
// blur as it does CPU.
type calls struct{ redis, pg int64 }

func (s *servers) calls(ctx context.Context) (calls, error) {
	var c calls
	rdb := redis.NewClient(&redis.Options{Addr: fmt.Sprintf("127.0.0.1:%d", s.redis.Port)})
	defer rdb.Close()
	info, err := rdb.Info(ctx, "stats").Result()
	if err != nil {
		return c, err
	}
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "total_commands_processed:"); ok {
			c.redis, _ = strconv.ParseInt(v, 10, 64)
		}
	}
	c.redis -= s.benchCmds.n.Load()
	if os.Getenv("BENCH_DEBUG") != "" {
		cs, _ := rdb.Info(ctx, "commandstats").Result()
		fmt.Fprintln(os.Stderr, "redis commandstats:\n"+cs)
	}
	conn, err := pgx.Connect(ctx, s.pg.URL("postgres"))
	if err != nil {
		return c, err
	}
	defer conn.Close(ctx)
	err = conn.QueryRow(ctx, "SELECT coalesce(sum(calls), 0)::bigint FROM pg_stat_statements").Scan(&c.pg)
	if err == nil && os.Getenv("BENCH_DEBUG") != "" {
		rows, _ := conn.Query(ctx, "SELECT calls, left(regexp_replace(query, '\\s+', ' ', 'g'), 110) FROM pg_stat_statements ORDER BY calls DESC LIMIT 25")
		for rows.Next() {
			var n int64
			var q string
			rows.Scan(&n, &q)
			fmt.Fprintf(os.Stderr, "pg %8d  %s\n", n, q)
		}
		rows.Close()
	}
	return c, err
}

func (s *servers) close() {
	s.redis.Close()
	s.pg.Close()
}

// cpu is the user+system CPU both servers have used so far: Redis's
// process, and PostgreSQL's postmaster with every live process below it
// and the backends it has reaped. 0 for nil.
func (s *servers) cpu() time.Duration {
	if s == nil {
		return 0
	}
	pids := []int{s.redis.PID()}
	if pid, err := s.pg.PID(); err == nil {
		pids = append(pids, proctree.Tree(pid)...)
	}
	return time.Duration(proctree.CPUSeconds(pids) * float64(time.Second))
}
