package render_test

import (
	"context"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newscrawl/newscrawl/internal/crawl/fetch"
	"github.com/newscrawl/newscrawl/internal/pipeline"
	"github.com/newscrawl/newscrawl/internal/render"
	"github.com/newscrawl/newscrawl/internal/testenv"
	"github.com/newscrawl/newscrawl/pkg/streamkit"
)

// The stage on the real Redis and PostgreSQL: a page that renders goes back
// to the cleaner with its DOM stored; a page whose every try fails keeps its
// static version, labelled with the reason — no dead letter, nothing sent.
// The good page may take a second try when a busy machine holds it past the
// deadline; it must still end rendered.
func TestStage_RenderedOrLabelledNeverDeadLettered(t *testing.T) {
	t.Parallel()
	if _, err := render.FindChromium(); err != nil && testing.Short() {
		t.Skip("no chromium (-short)")
	}
	w := newWorld(t, 2)
	e := testenv.New(t)
	r, err := render.New(e.RDB, render.Config{Prefix: e.Prefix, Timeout: 4 * time.Second,
		Fetch: fetch.Config{AllowCIDRs: []netip.Prefix{netip.MustParsePrefix("127.0.0.2/32")}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	ctx := context.Background()
	pages := map[string]string{"good": w.base + "/article/1", "endless": w.base + "/hostile/loop"}
	for id, u := range pages {
		body := []byte("<html><body><div id=\"root\"></div></body></html>" + id)
		if _, err := e.Pool.Exec(ctx, `INSERT INTO documents (doc_id, url, host, status, body, body_hash, fetched_at, first_seen_at)
			VALUES ($1, $2, '127.0.0.2', 200, $3, $4, now(), now())`, id, u, body, pipeline.BodyHash(body)); err != nil {
			t.Fatal(err)
		}
		if err := e.RDB.XAdd(ctx, &redis.XAddArgs{Stream: e.Keys(pipeline.Render).Stream(),
			Values: map[string]any{pipeline.FieldDocID: id, pipeline.FieldBodyHash: pipeline.BodyHash(body), pipeline.FieldURL: u}}).Err(); err != nil {
			t.Fatal(err)
		}
	}
	e.Run(streamkit.Config{Stage: pipeline.Render, Group: pipeline.RendererGroup, Version: render.Version, Key: render.Key,
		Concurrency: 2, Visibility: 30 * time.Second}, render.NewStage(e.Pool, r, 2, nil, nil))
	type row struct {
		hash, errText string
		tries         int
	}
	got := map[string]row{}
	e.Eventually("both pages rendered or labelled", 60*time.Second, func() bool {
		rows, err := e.Pool.Query(ctx, `SELECT doc_id, rendered_hash, error, tries FROM rendered`)
		if err != nil {
			return false
		}
		defer rows.Close()
		for rows.Next() {
			var id string
			var x row
			rows.Scan(&id, &x.hash, &x.errText, &x.tries)
			got[id] = x
		}
		return len(got) == 2
	})
	if g := got["good"]; g.hash == "" || g.errText != "" || g.tries < 1 || g.tries > 2 {
		t.Errorf("the good page: %+v, want rendered within its two tries", g)
	}
	if g := got["endless"]; g.hash != "" || !strings.HasPrefix(g.errText, render.FailDeadline+":") || g.tries != 2 {
		t.Errorf("the endless page: %+v, want two tries and the deadline as its label", g)
	}
	if n := e.RDB.XLen(ctx, e.Keys(pipeline.Render).DLQ()).Val(); n != 0 {
		t.Errorf("%d dead letters: what the browser did is never the message's fault", n)
	}
	msgs := e.RDB.XRange(ctx, e.Keys(pipeline.Clean).Stream(), "-", "+").Val()
	if len(msgs) != 1 || msgs[0].Values[pipeline.FieldDocID] != "good" || msgs[0].Values[pipeline.FieldRendered] != "1" ||
		msgs[0].Values[pipeline.FieldBodyHash] != got["good"].hash {
		t.Errorf("sent to the cleaner: %v, want the good page's DOM alone, marked rendered", msgs)
	}
}
