package e2e

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

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
	r := crawlDemoOnACluster(t, "CRAWL_HOST_DELAY=200ms", "CLEAN_PARTITIONS=2", "EMBED_PARTITIONS=2")
	bin, pool, c, environ, ws := r.bin, r.pool, r.cluster, r.environ, r.workers

	ctx := context.Background()
	(&testenv.Env{T: t}).Eventually("a few pages fetched", time.Minute, func() bool {
		var n int
		_ = pool.QueryRow(ctx, `SELECT count(*) FROM documents`).Scan(&n)
		return n >= 4
	})
	start := time.Now()
	port := c.KillMasterOf(t, streamkit.KeysFor(r.prefix, pipeline.Crawl).Stream())
	t.Logf("killed the crawl stream's master on port %d", port)
	c.WaitOK(t)
	t.Logf("its replica took over after %s", time.Since(start).Round(100*time.Millisecond))

	newsctl(t, bin, environ, "wait", "--timeout", "3m")
	t.Logf("the run drained %s after the kill", time.Since(start).Round(100*time.Millisecond))
	t.Logf("reconcile after the failover:\n%s", newsctl(t, bin, environ, "reconcile"))
	newsctl(t, bin, environ, "wait", "--timeout", "3m")

	checkEmbedded(t, pool, demosite.Articles(), " after the failover")
	ws.stop(t)
}

// Writes a master acknowledged but never replicated are lost in a failover
// (replication is asynchronous), and newsctl reconcile brings the work back
// from PostgreSQL. The clean stream's replica is stopped and 48 MB written
// to its master first — more than the kernel buffers of the replication
// link hold, so what follows stays in the master's memory — and the pages
// the crawler hands to the cleaner meanwhile live on the master alone; the
// cleaner is stopped too, so they are still owed when the master is
// killed. After the replica takes over, those clean messages are gone;
// reconcile republishes them, and every article is embedded.
func TestPipeline_ReconcileRecoversWhatAFailoverLost(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binaries on a 6-node cluster")
	}
	// A slow crawl (the demo site's twenty pages take twenty seconds),
	// held still while the 48 MB are written, so that pages are left to
	// fetch however long the writing takes on a loaded machine.
	r := crawlDemoOnACluster(t, "CRAWL_HOST_DELAY=1s")
	bin, pool, c, environ, ws := r.bin, r.pool, r.cluster, r.environ, r.workers

	ctx := context.Background()
	env := &testenv.Env{T: t}
	documents := func() int {
		var n int
		_ = pool.QueryRow(ctx, `SELECT count(*) FROM documents`).Scan(&n)
		return n
	}
	env.Eventually("a few pages fetched", time.Minute, func() bool { return documents() >= 2 })

	crawler := ws.cmds[slices.Index(workers, "crawler")].Process
	_ = crawler.Signal(syscall.SIGSTOP)
	clean := streamkit.KeysFor(r.prefix, pipeline.Clean).Stream()
	resume := c.StopReplicasOf(t, clean)
	rdb := c.Client(t)
	junk := strings.Repeat("x", 1<<20)
	for range 48 { // the replication link's kernel buffers fill; the rest waits in the master
		// A node a busy machine stalls past the cluster's node timeout is
		// marked failing, and with the replica stopped nothing takes its
		// slots over: the cluster is down until it answers again.
		env.Eventually("48 MB appended on the clean stream's master", 30*time.Second, func() bool {
			err := rdb.Append(ctx, clean+":junk", junk).Err()
			if err != nil && !strings.HasPrefix(err.Error(), "CLUSTERDOWN") {
				t.Fatal(err)
			}
			return err == nil
		})
	}
	cleaner := ws.cmds[slices.Index(workers, "cleaner")].Process
	_ = cleaner.Signal(syscall.SIGSTOP)
	before := documents()
	_ = crawler.Signal(syscall.SIGCONT)
	env.Eventually("pages fetched while the replica and the cleaner were stopped", time.Minute, func() bool { return documents() >= before+4 })
	port := c.KillMasterOf(t, clean)
	resume()
	_ = cleaner.Signal(syscall.SIGCONT)
	c.WaitOK(t)
	t.Logf("killed the clean stream's master on port %d with %d pages handed over unreplicated", port, documents()-before)

	newsctl(t, bin, environ, "wait", "--timeout", "3m")
	var counts []struct {
		Stage     string `json:"stage"`
		Published int    `json:"published"`
	}
	if err := json.Unmarshal([]byte(newsctl(t, bin, environ, "reconcile", "--json")), &counts); err != nil {
		t.Fatal(err)
	}
	lost := 0
	for _, n := range counts {
		if n.Stage == pipeline.Clean {
			lost = n.Published
		}
	}
	// The pages handed over last may have found the master gone and been
	// handed over again to the new one (the crawler's ledger re-emits on
	// redelivery); those handed over earlier are lost.
	if lost < 1 {
		t.Fatalf("reconcile republished nothing to clean; the failover should have lost pages: %+v", counts)
	}
	t.Logf("reconcile republished %d pages the failover lost", lost)
	newsctl(t, bin, environ, "wait", "--timeout", "3m")

	checkEmbedded(t, pool, demosite.Articles(), " after reconcile")
	ws.stop(t)
}

// A clusterRun is the demo site crawled by the four workers on a 6-node
// Redis Cluster of the test's own (3 masters, a replica each).
type clusterRun struct {
	bin, prefix string
	environ     []string
	pool        *pgxpool.Pool
	cluster     *streamkittest.RedisCluster
	workers     *workerSet
}

// crawlDemoOnACluster starts the cluster and the workers on it with extra
// settings, and seeds the demo site. Entries in flight on a killed master
// are reclaimed after the 5 s visibility the stages get.
func crawlDemoOnACluster(t *testing.T, extra ...string) clusterRun {
	t.Helper()
	r := clusterRun{bin: build(t), pool: testenv.Postgres(t), prefix: streamkittest.Name("t"),
		cluster: streamkittest.StartRedisClusterWithReplicas(t, 3)}
	var srv *httptest.Server
	srv, _, r.environ = serveDemo(t, r.pool, r.prefix, append([]string{"REDIS_URL=" + r.cluster.URL(), "REDIS_CLUSTER=1",
		"CRAWL_VISIBILITY=5s", "CLEAN_VISIBILITY=5s", "EXTRACT_VISIBILITY=5s", "EMBED_VISIBILITY=5s"}, extra...)...)
	r.workers = startWorkers(t, r.bin, r.environ)
	newsctl(t, r.bin, r.environ, "seed", srv.URL+"/")
	return r
}
