package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/newscrawl/newscrawl/internal/crawl"
	"github.com/newscrawl/newscrawl/internal/pipeline"
	"github.com/newscrawl/newscrawl/internal/reconcile"
	"github.com/newscrawl/newscrawl/internal/testenv"
	"github.com/newscrawl/newscrawl/pkg/streamkit/streamkittest"
)

// Redis loses everything (every key of the pipeline deleted, as a FLUSHALL
// would) after PostgreSQL recorded partial progress: one page fetched but
// not cleaned, one article cleaned but not extracted, one extracted but
// not embedded, one URL in the frontier but not fetched. newsctl reconcile
// finds exactly those, publishes them, and the pipeline brings every
// article to the end; a second reconcile finds nothing owed.
func TestPipeline_ReconcileAfterRedisLoss(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binaries")
	}
	bin := build(t)
	pool := testenv.Postgres(t)
	rdb, prefix := streamkittest.Redis(t)
	srv, hits := site(t)
	environ := env(t, streamkittest.SchemaOf(pool), prefix)
	ctx := context.Background()

	ws := startWorkers(t, bin, environ)
	newsctl(t, bin, environ, "seed", srv.URL+"/")
	newsctl(t, bin, environ, "wait", "--timeout", "2m")
	ws.stop(t)

	docOf := func(path string) string { return pipeline.DocID(crawl.NormalizedURL(srv.URL + path)) }
	bridge, orchard, chess := docOf("/news/bridge.html"), docOf("/news/orchard.html"), docOf("/news/chess.html")
	exec := func(sql string, args ...any) {
		t.Helper()
		if _, err := pool.Exec(ctx, sql, args...); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	// What a lost Redis would have left: PostgreSQL has each document as far
	// as it got; the messages that would take it further are gone.
	exec(`DELETE FROM chunks WHERE doc_id = $1`, bridge)
	exec(`DELETE FROM stage_results WHERE stage = 'embed' AND doc_id = $1`, bridge)
	exec(`DELETE FROM chunks WHERE doc_id = $1`, orchard)
	exec(`DELETE FROM stage_results WHERE stage IN ('extract', 'embed') AND doc_id = $1`, orchard)
	exec(`DELETE FROM chunks WHERE doc_id = $1`, chess)
	exec(`DELETE FROM stage_results WHERE stage IN ('clean', 'extract', 'embed') AND doc_id = $1`, chess)
	// A link the crawler put on the stream (pending, published), lost with it.
	late, home := crawl.NormalizedURL(srv.URL+"/news/late.html"), crawl.NormalizedURL(srv.URL+"/")
	exec(`INSERT INTO urls (url, doc_id, host, state, depth, max_depth, discovered_from, pending_nonce, published_at)
		VALUES ($1, $2, $3, 'queued', 1, 2, $4, $5, now())`,
		late, pipeline.DocID(late), srv.Listener.Addr().String(), home, crawl.LinkNonce(home, late))
	keys, err := rdb.Keys(ctx, prefix+":*").Result()
	if err != nil {
		t.Fatal(err)
	}
	if err := rdb.Del(ctx, keys...).Err(); err != nil {
		t.Fatal(err)
	}

	var counts []reconcile.Count
	if err := json.Unmarshal([]byte(newsctl(t, bin, environ, "reconcile", "--dry-run", "--json")), &counts); err != nil {
		t.Fatal(err)
	}
	// Each stage owes only what its upstream finished: chess goes to the
	// cleaner alone, and reaches extraction and embedding through it.
	want := map[string]int{pipeline.Crawl: 1, pipeline.Clean: 1, pipeline.Extract: 1, pipeline.Embed: 1}
	for _, c := range counts {
		if c.Owed != want[c.Stage] || c.Published != 0 {
			t.Errorf("dry run, %s: owed %d, published %d; want %d, 0", c.Stage, c.Owed, c.Published, want[c.Stage])
		}
	}

	ws = startWorkers(t, bin, environ)
	newsctl(t, bin, environ, "reconcile")
	newsctl(t, bin, environ, "wait", "--timeout", "2m")

	var embedded int
	pool.QueryRow(ctx, `SELECT count(DISTINCT k.doc_id) FROM chunks k JOIN cleaned c USING (doc_id) WHERE c.duplicate_of IS NULL`).Scan(&embedded)
	if embedded != 4 {
		rows, _ := pool.Query(ctx, `SELECT DISTINCT c.url, c.duplicate_of IS NOT NULL FROM chunks k JOIN cleaned c USING (doc_id)`)
		var urls []string
		for rows.Next() {
			var u string
			var dup bool
			rows.Scan(&u, &dup)
			urls = append(urls, fmt.Sprintf("%s (duplicate %v)", u, dup))
		}
		rows.Close()
		t.Errorf("%d documents embedded after reconcile, want 4 (three articles and the late one): %v", embedded, urls)
	}
	if n, ok := hits.Load("/news/late.html"); !ok || *(n.(*int)) != 1 {
		t.Errorf("the frontier's URL fetched %v times, want 1", n)
	}
	if err := json.Unmarshal([]byte(newsctl(t, bin, environ, "reconcile", "--json")), &counts); err != nil {
		t.Fatal(err)
	}
	for _, c := range counts {
		if c.Owed != 0 {
			t.Errorf("second reconcile, %s: %d owed, want 0", c.Stage, c.Owed)
		}
	}
	ws.stop(t)
}
