// Package reconcile rebuilds the work still owed from PostgreSQL and
// publishes it: after Redis lost state (a restore, a failover, a FLUSHALL,
// a stream trimmed past pending work), every document is brought to the
// end of the pipeline again. PostgreSQL knows how far each document got:
// the frontier (urls), the raw pages (documents), the cleaned rows and the
// idempotency ledger of each stage.
package reconcile

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"

	"github.com/newscrawl/newscrawl/internal/crawl"
	"github.com/newscrawl/newscrawl/internal/pipeline"
	"github.com/newscrawl/newscrawl/pkg/streamkit"
)

// Versions are the stage versions in force (the parts of their idempotency
// keys after the content hash): the cleaner's algorithm, the configured
// extractor and the configured embedding model.
type Versions struct {
	Clean, Extract, Embed string
}

// A Count is what reconcile found for one stage.
type Count struct {
	Stage     string `json:"stage"`
	Owed      int    `json:"owed"`      // work PostgreSQL says is not done
	Queued    int    `json:"queued"`    // of it, already on the stage's stream, retry set or DLQ
	Published int    `json:"published"` // published now (crawl: handed back to the feeder, which publishes through the window)
}

// Reconciler publishes what each stage still owes.
type Reconciler struct {
	Pool   *pgxpool.Pool
	Redis  redis.UniversalClient
	Prefix string
	// Partitions are the stages' partition counts: every partition's
	// stream, retry sets and DLQ are searched for queued work.
	Partitions streamkit.Partitions
	Versions   Versions
	Pub        pipeline.Publisher // with backpressure; nil: count only (dry run)
}

// Run counts, and unless dry, publishes, the owed work of every stage, in
// pipeline order. Work whose message is already on its stage's stream, in
// its retry set or its DLQ is left alone; anything else is published, and
// the stage's ledger absorbs a message whose work finished meanwhile. Safe
// while the pipeline runs, and idempotent.
func (r *Reconciler) Run(ctx context.Context) ([]Count, error) {
	steps := []struct {
		stage string
		owed  func(context.Context) ([]owed, error)
	}{
		{pipeline.Crawl, r.frontier},
		{pipeline.Clean, r.uncleaned},
		{pipeline.Extract, r.unextracted},
		{pipeline.Embed, r.unembedded},
	}
	var out []Count
	for _, st := range steps {
		c := Count{Stage: st.stage}
		work, err := st.owed(ctx)
		if err != nil {
			return out, err
		}
		c.Owed = len(work)
		queued, err := r.queued(ctx, st.stage)
		if err != nil {
			return out, err
		}
		var lost []string // crawl requests: handed back to the feeder, which publishes through the window
		for _, w := range work {
			if queued[w.ref] {
				c.Queued++
				continue
			}
			if r.Pub == nil {
				continue
			}
			if st.stage == pipeline.Crawl {
				lost = append(lost, w.ref)
				continue
			}
			if _, err := r.Pub.Publish(ctx, st.stage, w.fields); err != nil {
				out = append(out, c)
				return out, fmt.Errorf("publish to %s: %w", st.stage, err)
			}
			c.Published++
		}
		if len(lost) > 0 {
			n, err := crawl.Unpublish(ctx, r.Pool, lost)
			c.Published += n
			if err != nil {
				out = append(out, c)
				return out, err
			}
		}
		out = append(out, c)
	}
	return out, nil
}

// owed is one message a stage should get: its fields, and the reference
// (URL for the crawler, doc_id for the others) by which a message already
// queued is recognised.
type owed struct {
	ref    string
	fields map[string]string
}

// frontier is every request the frontier says is on the crawl stream and
// not handled yet, unless the crawler's ledger has it finished. (Requests
// not published yet are the crawlers' feeder's to send.)
func (r *Reconciler) frontier(ctx context.Context) ([]owed, error) {
	reqs, err := crawl.PublishedOwed(ctx, r.Pool)
	if err != nil {
		return nil, err
	}
	out := make([]owed, len(reqs))
	for i, f := range reqs {
		out[i] = owed{ref: f[crawl.FieldURL], fields: f}
	}
	return r.notInLedger(ctx, pipeline.Crawl, out, func(o owed) string {
		return crawl.LedgerKey(o.ref, o.fields[crawl.FieldNonce])
	})
}

// The owed queries build each stage's ledger keys in SQL as the stages do
// in Go (pipeline.LedgerKey): stage:doc_id:hash:version, the hash being the
// one the stage's messages carry (pipeline.HashField) — the body hash for
// the cleaner, the text hash for the extractor and the embedder.

// uncleaned is every stored page whose current body the cleaner has not
// finished.
func (r *Reconciler) uncleaned(ctx context.Context) ([]owed, error) {
	return r.docs(ctx, pipeline.Clean, `SELECT d.doc_id, d.body_hash, d.url FROM documents d
		WHERE NOT EXISTS (SELECT 1 FROM stage_results s WHERE s.key = 'clean:' || d.doc_id || ':' || d.body_hash || ':' || $1)`,
		r.Versions.Clean)
}

// unextracted is every article (an original, not a copy) whose current
// text the configured extractor has not finished. Like every stage after
// the first, it owes only what its upstream stage finished: a page still
// owed to the cleaner reaches the extractor through the cleaner.
func (r *Reconciler) unextracted(ctx context.Context) ([]owed, error) {
	return r.docs(ctx, pipeline.Extract, `SELECT c.doc_id, c.text_hash, c.url FROM cleaned c
		WHERE c.searchable
		  AND EXISTS (SELECT 1 FROM stage_results s WHERE s.key = 'clean:' || c.doc_id || ':' || c.body_hash || ':' || $2)
		  AND NOT EXISTS (SELECT 1 FROM stage_results s WHERE s.key = 'extract:' || c.doc_id || ':' || c.text_hash || ':' || $1)`,
		r.Versions.Extract, r.Versions.Clean)
}

// unembedded is every article extracted by the configured extractor but
// not embedded with the configured model.
func (r *Reconciler) unembedded(ctx context.Context) ([]owed, error) {
	return r.docs(ctx, pipeline.Embed, `SELECT c.doc_id, c.text_hash, c.url FROM cleaned c
		WHERE c.searchable
		  AND EXISTS (SELECT 1 FROM stage_results s WHERE s.key = 'extract:' || c.doc_id || ':' || c.text_hash || ':' || $2)
		  AND NOT EXISTS (SELECT 1 FROM stage_results s WHERE s.key = 'embed:' || c.doc_id || ':' || c.text_hash || ':' || $1)`,
		r.Versions.Embed, r.Versions.Extract)
}

// docs reads (doc_id, hash, url) claim checks for stage, the hash going
// in the field the stage's messages carry it in.
func (r *Reconciler) docs(ctx context.Context, stage, sql string, args ...any) ([]owed, error) {
	rows, err := r.Pool.Query(ctx, sql, args...)
	if err != nil {
		return nil, fmt.Errorf("read owed documents: %w", err)
	}
	defer rows.Close()
	var out []owed
	for rows.Next() {
		var doc, hash, url string
		if err := rows.Scan(&doc, &hash, &url); err != nil {
			return nil, fmt.Errorf("read owed documents: %w", err)
		}
		out = append(out, owed{ref: doc, fields: map[string]string{
			pipeline.FieldDocID: doc, pipeline.HashField(stage): hash, pipeline.FieldURL: url}})
	}
	return out, rows.Err()
}

// notInLedger drops the work whose key the stage's ledger has.
func (r *Reconciler) notInLedger(ctx context.Context, stage string, work []owed, key func(owed) string) ([]owed, error) {
	if len(work) == 0 {
		return nil, nil
	}
	keys := make([]string, len(work))
	for i, w := range work {
		keys[i] = key(w)
	}
	rows, err := r.Pool.Query(ctx, `SELECT key FROM stage_results WHERE key = ANY($1)`, keys)
	if err != nil {
		return nil, fmt.Errorf("read the %s ledger: %w", stage, err)
	}
	defer rows.Close()
	done := map[string]bool{}
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			return nil, fmt.Errorf("read the %s ledger: %w", stage, err)
		}
		done[k] = true
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := work[:0]
	for i, w := range work {
		if !done[keys[i]] {
			out = append(out, w)
		}
	}
	return out, nil
}

// queued is the set of references (doc_id, or the URL of a crawl request)
// of the messages on stage's stream, in its retry set and in its DLQ.
func (r *Reconciler) queued(ctx context.Context, stage string) (map[string]bool, error) {
	field := pipeline.FieldDocID
	if stage == pipeline.Crawl {
		field = crawl.FieldURL
	}
	refs := map[string]bool{}
	keys, err := r.Partitions.Layout(ctx, r.Redis, r.Prefix, stage)
	if err != nil {
		return nil, err
	}
	for _, k := range keys {
		if err := r.queuedIn(ctx, k, field, refs); err != nil {
			return nil, err
		}
	}
	return refs, nil
}

// queuedIn adds the references on one partition of a stage to refs.
func (r *Reconciler) queuedIn(ctx context.Context, k streamkit.Keys, field string, refs map[string]bool) error {
	for _, stream := range []string{k.Stream(), k.DLQ()} {
		start := "-"
		for {
			msgs, err := r.Redis.XRangeN(ctx, stream, start, "+", 1000).Result()
			if err != nil && !errors.Is(err, redis.Nil) {
				return fmt.Errorf("read %s: %w", stream, err)
			}
			for _, m := range msgs {
				if v, ok := m.Values[field].(string); ok {
					refs[ref(k.Stage, v)] = true
				}
			}
			if len(msgs) < 1000 {
				break
			}
			start = "(" + msgs[len(msgs)-1].ID
		}
	}
	var members []string
	for _, set := range []string{k.Retry(), k.Deferred()} {
		m, err := r.Redis.ZRange(ctx, set, 0, -1).Result()
		if err != nil && !errors.Is(err, redis.Nil) {
			return fmt.Errorf("read %s: %w", set, err)
		}
		members = append(members, m...)
	}
	for _, raw := range members {
		var m struct {
			Fields map[string]string `json:"f"`
		}
		if json.Unmarshal([]byte(raw), &m) == nil && m.Fields[field] != "" {
			refs[ref(k.Stage, m.Fields[field])] = true
		}
	}
	return nil
}

// ref normalises a crawl request's URL as the frontier stores it.
func ref(stage, v string) string {
	if stage == pipeline.Crawl {
		return crawl.NormalizedURL(v)
	}
	return v
}
