package e2e

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/newscrawl/newscrawl/internal/gazette"
	"github.com/newscrawl/newscrawl/internal/pipeline"
	"github.com/newscrawl/newscrawl/internal/testenv"
	"github.com/newscrawl/newscrawl/pkg/streamkit"
	"github.com/newscrawl/newscrawl/pkg/streamkit/streamkittest"
)

// A 300-article site through the binaries on a 6-node Redis Cluster (three
// masters, a replica each) with the clean and embed stages split into four
// partitions each: every article fetched once, cleaned and embedded; the
// partitions' streams spread over the masters; stats show each partition;
// search finds an article.
func TestPipeline_PartitionedStagesOnRedisCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binaries on a 6-node cluster")
	}
	const articles = 300
	bin := build(t)
	pool := testenv.Postgres(t)
	c := streamkittest.StartRedisClusterWithReplicas(t, 3)
	prefix := streamkittest.Name("t")
	site := gazette.New(articles)
	t.Cleanup(site.Close)
	var environ []string
	for _, kv := range env(t, streamkittest.SchemaOf(pool), prefix) {
		if !strings.HasPrefix(kv, "CRAWL_ALLOW_PRIVATE=") {
			environ = append(environ, kv)
		}
	}
	environ = append(environ, "CRAWL_ALLOW_CIDRS=127.0.0.1/32", "CRAWL_HOST_DELAY=5ms",
		"REDIS_URL="+c.URL(), "REDIS_CLUSTER=1", "CLEAN_PARTITIONS=4", "EMBED_PARTITIONS=4")
	ws := startWorkers(t, bin, environ)
	start := time.Now()
	newsctl(t, bin, environ, "seed", site.URL())
	newsctl(t, bin, environ, "wait", "--timeout", "4m")
	t.Logf("300 articles drained in %s", time.Since(start).Round(100*time.Millisecond))

	if got := site.Fetched(); got != articles {
		t.Errorf("%d of %d articles fetched", got, articles)
	}
	if all, _ := site.Refetches(time.Time{}, time.Time{}); all != 0 {
		t.Errorf("%d pages fetched more than once", all)
	}
	ctx := context.Background()
	checkEmbedded(t, pool, articles, "")

	// Each partition has its own stream, on more than one master.
	rdb := c.Client(t)
	parts := streamkit.Partitions{pipeline.Clean: 4, pipeline.Embed: 4}
	masters := map[string]bool{}
	for _, stage := range []string{pipeline.Clean, pipeline.Embed} {
		for _, k := range parts.Keys(prefix, stage) {
			if n, err := rdb.XLen(ctx, k.Stream()).Result(); err != nil || n == 0 {
				t.Errorf("%s: %d entries, %v; every partition should have had some", k.Stream(), n, err)
			}
			slot, err := rdb.ClusterKeySlot(ctx, k.Stream()).Result()
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range rdb.ClusterSlots(ctx).Val() {
				if int64(s.Start) <= slot && slot <= int64(s.End) {
					masters[s.Nodes[0].Addr] = true
				}
			}
		}
	}
	if len(masters) < 3 {
		t.Errorf("the eight partitions sit on %d masters, want all 3", len(masters))
	}

	var stats []streamkit.StageStats
	if err := json.Unmarshal([]byte(newsctl(t, bin, environ, "stats", "--json")), &stats); err != nil {
		t.Fatal(err)
	}
	for _, s := range stats {
		want := map[string]int{pipeline.Clean: 4, pipeline.Embed: 4}[s.Stage]
		if len(s.Partitions) != want {
			t.Errorf("stats of %s show %d partitions, want %d", s.Stage, len(s.Partitions), want)
		}
		if s.Stage == pipeline.Clean && s.Read != articles+11 { // the home page and ten sections are cleaned too
			t.Errorf("the cleaners read %d entries over the partitions, want %d", s.Read, articles+11)
		}
	}

	var got []struct{ URL string }
	q := gazette.Title(123) // "report 123" alone also matches a story whose plan "would cost 123 thousand"
	if err := json.Unmarshal([]byte(newsctl(t, bin, environ, "search", q, "--k", "3", "--json")), &got); err != nil {
		t.Fatal(err)
	}
	if len(got) == 0 || !strings.HasSuffix(got[0].URL, gazette.ArticlePath(123)) {
		t.Errorf("search %q: %+v, want %s first", q, got, gazette.ArticlePath(123))
	}
	ws.stop(t)
}
