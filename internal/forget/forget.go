// Package forget removes documents from everywhere the pipeline keeps them
// (raw fetch, cleaned text, extractions and kept model answers, chunks,
// SimHash bands, ledger keys and, as asked, the frontier), for takedown
// requests and for news that has aged out. It owns the forgotten table: a
// tombstone per document, which the stages read to drop messages still in
// flight, so forgetting is safe while the pipeline runs.
package forget

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// batchSize is how many documents one transaction removes.
const batchSize = 500

// A Selector chooses documents; its fields are combined with AND, and at
// least one must be set.
type Selector struct {
	DocIDs []string  // exact documents (newsctl derives them from URLs)
	Host   string    // every document of a host
	Before time.Time // published (or, without a date, first seen) before
}

// Frontier says what happens to the URLs of forgotten documents.
type Frontier string

const (
	// Keep leaves the URL known, so discovery never queues it again, and
	// writes the tombstone: the document never comes back.
	Keep Frontier = "keep"
	// Drop removes the URL and writes no tombstone: a later discovery
	// crawls it again like a new one.
	Drop Frontier = "drop"
)

// Counts are the rows a forget removed (or, in a dry run, would remove).
type Counts struct {
	Documents   int64 `json:"documents"`   // distinct doc_ids selected
	Fetched     int64 `json:"fetched"`     // raw pages (documents)
	Cleaned     int64 `json:"cleaned"`     // cleaned rows
	Extractions int64 `json:"extractions"` // extraction rows
	Chunks      int64 `json:"chunks"`      // embedded chunks
	Bands       int64 `json:"bands"`       // SimHash band rows
	Ledger      int64 `json:"ledger"`      // stage_results keys
	URLs        int64 `json:"urls"`        // frontier rows removed (Drop)
}

func (c *Counts) add(o Counts) {
	c.Documents += o.Documents
	c.Fetched += o.Fetched
	c.Cleaned += o.Cleaned
	c.Extractions += o.Extractions
	c.Chunks += o.Chunks
	c.Bands += o.Bands
	c.Ledger += o.Ledger
	c.URLs += o.URLs
}

func (s Selector) where() (string, []any, error) {
	var conds []string
	var args []any
	add := func(cond string, arg any) {
		args = append(args, arg)
		conds = append(conds, fmt.Sprintf(cond, len(args)))
	}
	if len(s.DocIDs) > 0 {
		add("d.doc_id = ANY($%d)", s.DocIDs)
	}
	if s.Host != "" {
		add("d.host = $%d", strings.ToLower(strings.SplitN(s.Host, ":", 2)[0]))
	}
	if !s.Before.IsZero() {
		add("d.at < $%d", s.Before)
	}
	if len(conds) == 0 {
		return "", nil, errors.New("forget needs a URL, a host or a date: refusing to select every document")
	}
	return strings.Join(conds, " AND "), args, nil
}

// Documents the pipeline holds, each with the host and the date a selector
// matches against: stored ones, and (for Drop) URLs the frontier alone has.
const (
	storedDocs = `
	SELECT doc_id, split_part(host, ':', 1) AS host, coalesce(published_at, first_seen_at) AS at FROM cleaned
	UNION ALL
	SELECT doc_id, split_part(host, ':', 1), first_seen_at FROM documents WHERE doc_id NOT IN (SELECT doc_id FROM cleaned)`
	frontierOnly = `
	UNION ALL
	SELECT doc_id, split_part(host, ':', 1), first_seen_at FROM urls
		WHERE doc_id NOT IN (SELECT doc_id FROM cleaned) AND doc_id NOT IN (SELECT doc_id FROM documents)`
)

// selectBatch returns up to batchSize selected doc_ids after the given one.
func selectBatch(ctx context.Context, q pgxQuerier, s Selector, after string, withURLs bool) ([]string, error) {
	where, args, err := s.where()
	if err != nil {
		return nil, err
	}
	src := storedDocs
	if withURLs { // Drop: a frontier row alone is something to remove too
		src += frontierOnly
	}
	args = append(args, after, batchSize)
	rows, err := q.Query(ctx, fmt.Sprintf(`SELECT DISTINCT d.doc_id FROM (%s) d WHERE %s AND d.doc_id > $%d ORDER BY d.doc_id LIMIT $%d`,
		src, where, len(args)-1, len(args)), args...)
	if err != nil {
		return nil, fmt.Errorf("select documents to forget: %w", err)
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

type pgxQuerier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// Options of a forget.
type Options struct {
	Frontier Frontier
	Reason   string // stored with the tombstone
	DryRun   bool   // count only
}

// Run removes the selected documents in batches (each batch one
// transaction: a document is gone everywhere or nowhere) and returns what
// it removed; with DryRun it counts what it would remove. Running it again
// removes nothing more.
func Run(ctx context.Context, pool *pgxpool.Pool, s Selector, o Options) (Counts, error) {
	if o.Frontier == "" {
		o.Frontier = Keep
	}
	if o.Frontier != Keep && o.Frontier != Drop {
		return Counts{}, fmt.Errorf("frontier must be keep or drop, got %q", o.Frontier)
	}
	var total Counts
	after := ""
	for {
		ids, err := selectBatch(ctx, pool, s, after, o.Frontier == Drop)
		if err != nil {
			return total, err
		}
		if len(ids) == 0 {
			return total, nil
		}
		var c Counts
		err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
			var err error
			c, err = removeBatch(ctx, tx, ids, o)
			if err == nil && o.DryRun {
				return errDryRun // roll the batch back: the counts are what it would remove
			}
			return err
		})
		if err != nil && !errors.Is(err, errDryRun) {
			return total, err
		}
		total.add(c)
		after = ids[len(ids)-1]
	}
}

var errDryRun = errors.New("dry run")

func removeBatch(ctx context.Context, tx pgx.Tx, ids []string, o Options) (Counts, error) {
	c := Counts{Documents: int64(len(ids))}
	exec := func(n *int64, sql string, args ...any) error {
		tag, err := tx.Exec(ctx, sql, args...)
		if err != nil {
			return fmt.Errorf("forget: %s: %w", strings.Fields(sql)[2], err)
		}
		if n != nil {
			*n = tag.RowsAffected()
		}
		return nil
	}
	if o.Frontier == Keep {
		if err := exec(nil, `INSERT INTO forgotten (doc_id, url, reason)
			SELECT i, coalesce((SELECT url FROM urls WHERE doc_id = i LIMIT 1), ''), $2 FROM unnest($1::text[]) i
			ON CONFLICT (doc_id) DO NOTHING`, ids, o.Reason); err != nil {
			return c, err
		}
	}
	type step struct {
		n   *int64 // where the row count goes, nil: not counted
		sql string
	}
	steps := []step{
		{&c.Chunks, `DELETE FROM chunks WHERE doc_id = ANY($1)`},
		{&c.Bands, `DELETE FROM simhash_bands WHERE doc_id = ANY($1)`},
		{&c.Extractions, `DELETE FROM extractions WHERE doc_id = ANY($1)`},
		{nil, `DELETE FROM extract_answers WHERE split_part(key, ':', 2) = ANY($1)`},
		{&c.Cleaned, `DELETE FROM cleaned WHERE doc_id = ANY($1)`},
		{&c.Fetched, `DELETE FROM documents WHERE doc_id = ANY($1)`},
		{&c.Ledger, `DELETE FROM stage_results WHERE doc_id = ANY($1)`},
	}
	if o.Frontier == Drop {
		steps = append(steps, step{&c.URLs, `DELETE FROM urls WHERE doc_id = ANY($1)`},
			step{nil, `DELETE FROM forgotten WHERE doc_id = ANY($1)`})
	}
	for _, st := range steps {
		if err := exec(st.n, st.sql, ids); err != nil {
			return c, err
		}
	}
	return c, nil
}

// WasSQL is Was as an SQL expression on the doc id in param ("$2"), for a
// stage that asks it in the same round trip as its own lookup.
func WasSQL(param string) string {
	return "EXISTS (SELECT 1 FROM forgotten WHERE doc_id = " + param + ")"
}

// Was reports whether docID was forgotten (a tombstone exists): a stage
// drops a message for it instead of storing the document again.
func Was(ctx context.Context, q interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}, docID string) (bool, error) {
	var ok bool
	err := q.QueryRow(ctx, "SELECT "+WasSQL("$1"), docID).Scan(&ok)
	if err != nil {
		return false, fmt.Errorf("look up forgotten %s: %w", docID, err)
	}
	return ok, nil
}

// Which returns those of docIDs that were forgotten (Was for a batch).
func Which(ctx context.Context, q interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}, docIDs []string) (map[string]bool, error) {
	rows, err := q.Query(ctx, `SELECT doc_id FROM forgotten WHERE doc_id = ANY($1)`, docIDs)
	if err != nil {
		return nil, fmt.Errorf("look up forgotten documents: %w", err)
	}
	gone, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("look up forgotten documents: %w", err)
	}
	out := make(map[string]bool, len(gone))
	for _, id := range gone {
		out[id] = true
	}
	return out, nil
}
