package streamkittest_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"

	"github.com/newscrawl/newscrawl/pkg/streamkit"
	"github.com/newscrawl/newscrawl/pkg/streamkit/streamkittest"
)

// tables lists the tables of schema, in name order.
func tables(t *testing.T, schema string) []string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, streamkittest.DatabaseURL())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1`, schema)
	if err != nil {
		t.Fatal(err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return names
}

func schemaExists(t *testing.T, schema string) bool {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, streamkittest.DatabaseURL())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var ok bool
	if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1)`, schema).Scan(&ok); err != nil {
		t.Fatal(err)
	}
	return ok
}

func TestPostgresOn_FreshSchemaDroppedAtTheEnd(t *testing.T) {
	t.Parallel()
	createOne := func(ctx context.Context, pool *pgxpool.Pool) error {
		_, err := pool.Exec(ctx, `CREATE TABLE one (x int)`)
		return err
	}
	for _, tc := range []struct {
		name       string
		migrate    func(context.Context, *pgxpool.Pool) error
		wantTables []string
	}{
		{"Postgres: streamkit's table only", nil, []string{"stage_results"}},
		{"a migration of the caller's", createOne, []string{"one"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var schema string
			t.Run("inside", func(t *testing.T) {
				var pool *pgxpool.Pool
				if tc.migrate == nil {
					pool = streamkittest.Postgres(t)
				} else {
					pool = streamkittest.PostgresOn(t, streamkittest.DatabaseURL(), tc.migrate)
				}
				schema = streamkittest.SchemaOf(pool)
				got := tables(t, schema)
				if !slices.Equal(got, tc.wantTables) {
					t.Fatalf("tables of %s: %v, want %v", schema, got, tc.wantTables)
				}
				var current string
				if err := pool.QueryRow(context.Background(), `SELECT current_schema()`).Scan(&current); err != nil {
					t.Fatal(err)
				}
				if current != schema {
					t.Fatalf("current_schema() = %q, want %q", current, schema)
				}
			})
			if schema == "" {
				return // the inside failed before it had a schema
			}
			if schemaExists(t, schema) {
				t.Fatalf("schema %q still exists after the test", schema)
			}
		})
	}
}

func TestRedis_DeletesOnlyItsPrefixAtTheEnd(t *testing.T) {
	t.Parallel()
	outside, other := streamkittest.Redis(t)
	ctx := context.Background()
	if err := outside.Set(ctx, other+":keep", "1", time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	var prefix string
	t.Run("inside", func(t *testing.T) {
		rdb, p := streamkittest.Redis(t)
		prefix = p
		if p == other {
			t.Fatalf("two tests got the prefix %q", p)
		}
		for _, k := range []string{p + ":a", p + ":{s}:stream"} {
			if err := rdb.Set(ctx, k, "1", time.Minute).Err(); err != nil {
				t.Fatal(err)
			}
		}
	})
	if n, err := outside.Exists(ctx, prefix+":a", prefix+":{s}:stream").Result(); err != nil || n != 0 {
		t.Fatalf("%d keys of the ended test left (err %v)", n, err)
	}
	if n, err := outside.Exists(ctx, other+":keep").Result(); err != nil || n != 1 {
		t.Fatalf("another test's key deleted (exists %d, err %v)", n, err)
	}
}

// Env.Run runs a consumer on the test's prefix and schema: the message
// published to Keys' stream is committed in the ledger and acked.
func TestEnv_RunProcessesOnTheTestsPrefix(t *testing.T) {
	t.Parallel()
	e := streamkittest.New(t)
	ctx := context.Background()
	stream := e.Keys("s").Stream()
	if err := e.RDB.XAdd(ctx, &redis.XAddArgs{Stream: stream, Values: map[string]any{"doc_id": "d1", "content_hash": "h"}}).Err(); err != nil {
		t.Fatal(err)
	}
	stop := e.Run(streamkit.Config{Stage: "s", Group: "s-group", Block: 50 * time.Millisecond, JanitorInterval: -1},
		streamkit.HandlerFunc(func(ctx context.Context, m *streamkit.Message) (streamkit.Result, error) {
			return streamkit.Result{DocID: m.Get("doc_id")}, nil
		}))
	e.Eventually("the ledger row", 10*time.Second, func() bool {
		var n int
		_ = e.Pool.QueryRow(ctx, `SELECT count(*) FROM stage_results WHERE stage = 's' AND doc_id = 'd1'`).Scan(&n)
		return n == 1
	})
	e.Eventually("the ack", 10*time.Second, func() bool {
		p, err := e.RDB.XPending(ctx, stream, "s-group").Result()
		return err == nil && p.Count == 0
	})
	stop()
	stop() // a second stop is harmless
}

// A Redis of the test's own keeps what it acknowledged across a kill and a
// restart (append-only file, fsync always).
func TestRedisServer_KillAndStartKeepsData(t *testing.T) {
	t.Parallel()
	srv := streamkittest.StartRedis(t)
	rdb := srv.Client(t)
	ctx := context.Background()
	if err := rdb.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	srv.Kill()
	if err := rdb.Ping(ctx).Err(); err == nil {
		t.Fatal("the killed server still answers")
	}
	srv.Start()
	if got, err := rdb.Get(ctx, "k").Result(); err != nil || got != "v" {
		t.Fatalf("after restart: %q, %v; want \"v\"", got, err)
	}
}

func TestRedisCluster_URL(t *testing.T) {
	for _, tc := range []struct {
		ports []int
		want  string
	}{
		{[]int{7000}, "redis://127.0.0.1:7000"},
		{[]int{7000, 7001}, "redis://127.0.0.1:7000?addr=127.0.0.1:7001"},
		{[]int{7000, 7001, 7002}, "redis://127.0.0.1:7000?addr=127.0.0.1:7001&addr=127.0.0.1:7002"},
	} {
		c := &streamkittest.RedisCluster{Ports: tc.ports}
		if got := c.URL(); got != tc.want {
			t.Errorf("URL of %v = %q, want %q", tc.ports, got, tc.want)
		}
		opt, err := redis.ParseClusterURL(c.URL())
		if err != nil || len(opt.Addrs) != len(tc.ports) {
			t.Errorf("ParseClusterURL(%q): %v addresses, err %v; want %d", c.URL(), opt.Addrs, err, len(tc.ports))
		}
	}
}
