// Package upgrade runs a rolling upgrade from the previous release
// (.release/previous) to this tree with work in flight, and a rollback to
// it: the built binaries of both, on a Redis and a PostgreSQL of the test's
// own. `make chaos` runs it (docs/OPERATIONS.md has the procedures).
package upgrade

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/newscrawl/newscrawl/internal/gazette"
	"github.com/newscrawl/newscrawl/internal/store"
	"github.com/newscrawl/newscrawl/internal/testenv"
	"github.com/newscrawl/newscrawl/pkg/streamkit"
	"github.com/newscrawl/newscrawl/pkg/streamkit/streamkittest"
)

var workers = []string{"crawler", "cleaner", "extractor", "embedder"}

// previous reads .release/previous: the previous release's tag and commit.
func previous(t *testing.T) (tag, commit string) {
	b, err := os.ReadFile("../../.release/previous")
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(b))
	if len(f) != 2 {
		t.Fatalf(".release/previous = %q, want \"TAG COMMIT\"", b)
	}
	return f[0], f[1]
}

// A release is one set of built binaries run against the test's services.
type release struct {
	name, bin string
	procs     *testenv.Procs
	t         *testing.T
}

func (r release) newsctl(args ...string) string {
	r.t.Helper()
	out, err := r.procs.Run(filepath.Join(r.bin, "newsctl"), args...)
	if err != nil {
		r.t.Fatalf("%s newsctl %v: %v\n%s", r.name, args, err, out)
	}
	return out
}

func (r release) start(worker string) {
	r.procs.Start(r.name+"-"+worker, filepath.Join(r.bin, worker))
}

func (r release) stop(worker string) { r.procs.Stop(r.name + "-" + worker) }

// owed runs reconcile and sums what it had to republish.
func (r release) owed() int {
	r.t.Helper()
	var counts []struct{ Owed int }
	out := r.newsctl("reconcile", "--json")
	if err := json.Unmarshal([]byte(out), &counts); err != nil {
		r.t.Fatalf("reconcile --json: %v\n%s", err, out)
	}
	n := 0
	for _, c := range counts {
		n += c.Owed
	}
	return n
}

// deadLetters sums every stage's dead letters.
func (r release) deadLetters() int64 {
	r.t.Helper()
	var stats []streamkit.StageStats
	if err := json.Unmarshal([]byte(r.newsctl("stats", "--json")), &stats); err != nil {
		r.t.Fatal(err)
	}
	var n int64
	for _, s := range stats {
		n += s.DLQ
	}
	return n
}

func count(t *testing.T, conn *pgx.Conn, sql string) int {
	t.Helper()
	var n int
	if err := conn.QueryRow(context.Background(), sql).Scan(&n); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}

// checkSite fails unless every article of s was fetched exactly once.
func checkSite(t *testing.T, name string, s *gazette.Site, first, articles int) {
	t.Helper()
	for n := first; n < first+articles; n++ {
		if got := s.Hits(gazette.ArticlePath(n)); got != 1 {
			t.Errorf("site %s: article %d fetched %d times, want once", name, n, got)
		}
	}
}

func TestUpgradeAndRollback(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the previous release and runs both")
	}
	tag, commit := previous(t)
	pg := streamkittest.StartPostgres(t)
	rd := streamkittest.StartRedis(t)
	environ := append(os.Environ(),
		"DATABASE_URL="+pg.URL(), "REDIS_URL="+rd.URL(), "STREAM_PREFIX=nc", "METRICS_ADDR=0", "LOG_LEVEL=info",
		"OPENAI_BASE_URL=", "CRAWL_ALLOW_PRIVATE=1", "CRAWL_HOST_DELAY=120ms", "CRAWL_MAX_DEPTH=2", "CRAWL_RECRAWL_INTERVAL=0",
		"CRAWL_VISIBILITY=5s", "CLEAN_VISIBILITY=5s", "EXTRACT_VISIBILITY=5s", "EMBED_VISIBILITY=5s",
		"CRAWL_GRACE=10s", "CLEAN_GRACE=10s", "EXTRACT_GRACE=10s", "EMBED_GRACE=10s")
	procs := testenv.NewProcs(t, environ)
	old := release{name: tag, bin: testenv.BuildRelease(t, "../..", commit), procs: procs, t: t}
	cur := release{name: "new", bin: testenv.Build(t, "../.."), procs: procs, t: t}
	if v := old.newsctl("--version"); !strings.Contains(v, tag) {
		t.Fatalf("the previous release's newsctl says %q, want %s", v, tag)
	}
	conn, err := pgx.Connect(context.Background(), pg.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())

	// The previous release crawls site A part-way.
	const aArticles, bArticles = 80, 40
	siteA, siteB := gazette.NewFrom(0, aArticles), gazette.NewFrom(1000, bArticles)
	defer siteA.Close()
	defer siteB.Close()
	old.newsctl("migrate")
	oldSchema := count(t, conn, `SELECT max(version_id) FROM goose_db_version`)
	for _, w := range workers {
		old.start(w)
	}
	old.newsctl("seed", siteA.URL())
	(&testenv.Env{T: t}).Eventually("site A part-way", 2*time.Minute, func() bool { return siteA.Fetched() >= 15 })

	// The new release starts beside it (and migrates up), then the old stops.
	for _, w := range workers {
		cur.start(w)
	}
	(&testenv.Env{T: t}).Eventually("the new schema", time.Minute, func() bool {
		return count(t, conn, `SELECT max(version_id) FROM goose_db_version`) == int(store.Latest())
	})
	t.Logf("upgrade: schema %d → %d with %d of %d articles of site A fetched", oldSchema, store.Latest(), siteA.Fetched(), aArticles)
	// A worker of the previous release restarted on the new schema starts and works.
	old.stop("cleaner")
	old.start("cleaner")
	// Going down is refused while workers of either release run: the old
	// ones report no schema version, the new ones need the new schema.
	refused := func(why string) bool {
		out, err := procs.Run(filepath.Join(cur.bin, "newsctl"), "migrate", "--to", fmt.Sprint(oldSchema))
		return err != nil && strings.Contains(out, why)
	}
	if !refused("reports no schema version") {
		t.Error("migrate --to the old schema was not refused while the previous release's workers ran")
	}
	time.Sleep(2 * time.Second) // both releases share the work for a while
	for _, w := range workers {
		old.stop(w)
	}
	if !refused("needs schema version") {
		t.Error("migrate --to the old schema was not refused while the new release's workers ran")
	}
	cur.newsctl("wait", "--timeout", "5m", "--settle", "3s")
	if n := cur.owed(); n != 0 {
		t.Errorf("after the upgrade reconcile owed %d", n)
	}
	checkSite(t, "A", siteA, 0, aArticles)

	// Back: the new workers stop, the new newsctl takes the schema down,
	// and the previous release crawls site B to the end.
	for _, w := range workers {
		cur.stop(w)
	}
	t.Logf("rollback: %s", strings.TrimSpace(cur.newsctl("migrate", "--to", fmt.Sprint(oldSchema))))
	for _, w := range workers {
		old.start(w)
	}
	old.newsctl("seed", siteB.URL())
	old.newsctl("wait", "--timeout", "5m", "--settle", "3s")
	if n := old.owed(); n != 0 {
		t.Errorf("after the rollback reconcile owed %d", n)
	}
	checkSite(t, "B", siteB, 1000, bArticles)

	all := aArticles + bArticles
	embedded := count(t, conn, `SELECT count(DISTINCT doc_id) FROM chunks`)
	embedRows := count(t, conn, `SELECT count(*) FROM stage_results WHERE stage = 'embed'`)
	extractRows := count(t, conn, `SELECT count(*) FROM stage_results WHERE stage = 'extract'`)
	articles := count(t, conn, `SELECT count(*) FROM cleaned WHERE is_article AND duplicate_of IS NULL`)
	if articles != all || embedded != all || embedRows != all || extractRows != all {
		t.Errorf("%d articles cleaned, %d embedded, ledger %d embed and %d extract rows; want %d each (once each)",
			articles, embedded, embedRows, extractRows, all)
	}
	if n := old.deadLetters(); n != 0 {
		t.Errorf("%d dead letters", n)
	}
	for _, w := range workers {
		old.stop(w)
	}
	if u := procs.Unexpected(); len(u) > 0 {
		t.Errorf("workers exited on their own: %v", u)
	}
}
