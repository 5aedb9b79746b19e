package app_test

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/redis/go-redis/v9"

	"github.com/newscrawl/newscrawl/internal/app"
	"github.com/newscrawl/newscrawl/internal/config"
	"github.com/newscrawl/newscrawl/internal/testenv"
	"github.com/newscrawl/newscrawl/pkg/streamkit"
	"github.com/newscrawl/newscrawl/pkg/streamkit/streamkittest"
)

func get(url string) (int, string) {
	resp, err := http.Get(url)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// A worker started while Redis and PostgreSQL are both down stays up: it
// answers /livez, reports /healthz unhealthy with what it waits for, and
// starts working once they are there.
func TestWorker_StartsWithDependenciesDown(t *testing.T) {
	t.Parallel()
	pg := streamkittest.StartPostgres(t)
	pg.Stop()
	rd := streamkittest.StartRedis(t)
	rd.Kill()
	metrics := fmt.Sprintf("127.0.0.1:%d", streamkittest.FreePort(t))
	s := config.NewSet(flag.NewFlagSet("worker", flag.ContinueOnError))
	common := config.BindCommon(s, metrics)
	stage := config.BindStage(s, "TEST", 2, time.Second)
	if err := s.Parse([]string{"-redis-url", rd.URL(), "-database-url", pg.URL(), "-stream-prefix", "w", "-log-level", "error"}); err != nil {
		t.Fatal(err)
	}
	w := app.Worker{Name: "test", Stage: "s", Group: "s-group", Common: common, Settings: stage}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- w.RunContext(ctx, func(app.Deps) (streamkit.Handler, error) {
			return streamkit.HandlerFunc(func(ctx context.Context, m *streamkit.Message) (streamkit.Result, error) {
				return streamkit.Result{DocID: m.Get("doc_id")}, nil
			}), nil
		})
	}()
	env := testenv.Env{T: t}
	env.Eventually("/livez answers", 10*time.Second, func() bool { code, _ := get("http://" + metrics + "/livez"); return code == 200 })
	code, body := get("http://" + metrics + "/healthz")
	if code != http.StatusServiceUnavailable || !strings.Contains(body, "starting") {
		t.Fatalf("/healthz with nothing up: %d %q, want 503 naming the start-up", code, body)
	}
	select {
	case err := <-done:
		t.Fatalf("worker exited while its dependencies were down: %v", err)
	case <-time.After(time.Second):
	}

	rd.Start()
	pg.Start()
	rdb := rd.Client(t)
	if err := rdb.XAdd(context.Background(), &redis.XAddArgs{Stream: "w:{s}:stream",
		Values: map[string]interface{}{"doc_id": "d1", "content_hash": "h"}}).Err(); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(context.Background(), pg.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	env.Eventually("the message processed", 60*time.Second, func() bool {
		var n int
		return conn.QueryRow(context.Background(), `SELECT count(*) FROM stage_results`).Scan(&n) == nil && n == 1
	})
	env.Eventually("/healthz healthy", 10*time.Second, func() bool { code, _ := get("http://" + metrics + "/healthz"); return code == 200 })
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("worker returned %v after a clean stop", err)
	}
}
