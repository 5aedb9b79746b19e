package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/newscrawl/newscrawl/internal/demosite"
	"github.com/newscrawl/newscrawl/internal/pipeline"
	"github.com/newscrawl/newscrawl/internal/testenv"
	"github.com/newscrawl/newscrawl/pkg/streamkit"
	"github.com/newscrawl/newscrawl/pkg/streamkit/streamkittest"
)

// A Redis Cluster master dies mid-crawl (SIGKILL): its replica takes over,
// the workers pause (no attempt spent) and follow it, the run drains with
// no dead letter, and whatever the asynchronous replication lost is
// republished by newsctl reconcile; in the end every article of the demo
// site is embedded. The clean and embed stages run partitioned, as a
// cluster user would run them.
func TestPipeline_SurvivesARedisClusterFailover(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binaries on a 6-node cluster")
	}
	bin := build(t)
	pool := testenv.Postgres(t)
	c := streamkittest.StartRedisClusterWithReplicas(t, 3)
	prefix := streamkittest.Name("t")
	srv, _, environ := serveDemo(t, pool, prefix, "CRAWL_HOST_DELAY=200ms", "REDIS_URL="+c.URL(), "REDIS_CLUSTER=1",
		"CLEAN_PARTITIONS=2", "EMBED_PARTITIONS=2",
		// entries in flight on the dead master are reclaimed after a visibility
		"CRAWL_VISIBILITY=5s", "CLEAN_VISIBILITY=5s", "EXTRACT_VISIBILITY=5s", "EMBED_VISIBILITY=5s")
	ws := startWorkers(t, bin, environ)
	newsctl(t, bin, environ, "seed", srv.URL+"/")

	ctx := context.Background()
	(&testenv.Env{T: t}).Eventually("a few pages fetched", time.Minute, func() bool {
		var n int
		_ = pool.QueryRow(ctx, `SELECT count(*) FROM documents`).Scan(&n)
		return n >= 4
	})
	start := time.Now()
	port := c.KillMasterOf(t, streamkit.KeysFor(prefix, pipeline.Crawl).Stream())
	t.Logf("killed the crawl stream's master on port %d", port)
	c.WaitOK(t)
	t.Logf("its replica took over after %s", time.Since(start).Round(100*time.Millisecond))

	newsctl(t, bin, environ, "wait", "--timeout", "3m")
	t.Logf("the run drained %s after the kill", time.Since(start).Round(100*time.Millisecond))
	t.Logf("reconcile after the failover:\n%s", newsctl(t, bin, environ, "reconcile"))
	newsctl(t, bin, environ, "wait", "--timeout", "3m")

	var embedded int
	if err := pool.QueryRow(ctx, `SELECT count(DISTINCT doc_id) FROM chunks`).Scan(&embedded); err != nil {
		t.Fatal(err)
	}
	if embedded != demosite.Articles() {
		t.Errorf("%d of %d articles embedded after the failover", embedded, demosite.Articles())
	}
	ws.stop(t)
}
