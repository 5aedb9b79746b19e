package crawl

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/newscrawl/newscrawl/internal/forget"
)

// prior is what the urls table knows of a URL before it is fetched again.
type prior struct {
	ETag, LastModified, BodyHash string
	IsHub                        bool
	// FetchedSince: the URL's document was stored after the URL entered the
	// frontier, through another URL (a redirect followed while this link
	// was being queued).
	FetchedSince bool
}

// A priorLoader looks up the prior state of the requests the handlers are
// about to fetch, many in one query: a handler that asks while a query is
// out joins the next one, which carries every request that came meanwhile.
// None waits for a batch to fill — the first asks at once, on its own
// handler's goroutine — so a lone request pays what one query of its own
// did, and sixteen handlers busy at once share round trips (a lookup per
// page was a quarter of the crawler's PostgreSQL statements).
type priorLoader struct {
	pool    *pgxpool.Pool
	mu      sync.Mutex
	waiting []*priorCall
	busy    bool // a batch is being looked up; the waiting go next
	queries int  // batches looked up (tests read it)
}

type priorCall struct {
	url, docID string
	prior      prior
	forgotten  bool
	err        error
	done       chan struct{}
}

const (
	maxPriorBatch = 100
	// priorTimeout bounds one batch's query, which no single handler's
	// context may cancel for the others.
	priorTimeout = 10 * time.Second
)

// lookup returns the URL's prior (zero when the frontier has no row) and
// whether its document was forgotten.
func (l *priorLoader) lookup(ctx context.Context, url, docID string) (prior, bool, error) {
	c := &priorCall{url: url, docID: docID, done: make(chan struct{})}
	l.mu.Lock()
	l.waiting = append(l.waiting, c)
	runner := !l.busy
	l.busy = true
	l.mu.Unlock()
	if runner {
		l.next() // holds c: the first waiting
		if l.more() {
			go l.drain()
		}
	}
	select {
	case <-c.done:
		return c.prior, c.forgotten, c.err
	case <-ctx.Done():
		return prior{}, false, ctx.Err()
	}
}

// drain looks up batches until none is waiting.
func (l *priorLoader) drain() {
	for {
		l.next()
		if !l.more() {
			return
		}
	}
}

// more reports whether calls wait for another batch; when none do, the
// loader is idle and the next lookup asks at once.
func (l *priorLoader) more() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.busy = len(l.waiting) > 0
	return l.busy
}

// next looks up the waiting calls, up to a batch, and answers them.
func (l *priorLoader) next() {
	l.mu.Lock()
	n := min(len(l.waiting), maxPriorBatch)
	batch := l.waiting[:n:n]
	l.waiting = l.waiting[n:]
	l.queries++
	l.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), priorTimeout)
	defer cancel()
	err := lookupPriors(ctx, l.pool, batch)
	for _, c := range batch {
		if err != nil {
			c.err = err
		}
		close(c.done)
	}
}

// lookupPriorsSQL reads each request's urls row, its document's fetch time
// and whether its doc id was forgotten, in the order given.
// QueryExecModeExec plans it with the real batch each time: a generic plan
// guesses the unnested rows' count.
var lookupPriorsSQL = `SELECT r.i, ` + forget.WasSQL("r.doc_id") + `, COALESCE(u.etag, ''), COALESCE(u.last_modified, ''),
	COALESCE(u.body_hash, ''), COALESCE(u.is_hub, false), COALESCE(d.fetched_at > u.first_seen_at, false)
	FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS r(url, doc_id, i)
	LEFT JOIN urls u ON u.url = r.url LEFT JOIN documents d ON d.doc_id = u.doc_id`

// lookupPriors fills each call's prior and forgotten in one round trip.
func lookupPriors(ctx context.Context, pool *pgxpool.Pool, calls []*priorCall) error {
	urls, docs := make([]string, len(calls)), make([]string, len(calls))
	for i, c := range calls {
		urls[i], docs[i] = c.url, c.docID
	}
	rows, err := pool.Query(ctx, lookupPriorsSQL, pgx.QueryExecModeExec, urls, docs)
	if err != nil {
		return fmt.Errorf("look up %d urls: %w", len(calls), err)
	}
	defer rows.Close()
	for rows.Next() {
		var i int64
		var p prior
		var forgotten bool
		if err := rows.Scan(&i, &forgotten, &p.ETag, &p.LastModified, &p.BodyHash, &p.IsHub, &p.FetchedSince); err != nil {
			return fmt.Errorf("scan a url's prior: %w", err)
		}
		if i < 1 || int(i) > len(calls) {
			return fmt.Errorf("look up urls: row %d of %d", i, len(calls))
		}
		calls[i-1].prior, calls[i-1].forgotten = p, forgotten
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("look up %d urls: %w", len(calls), err)
	}
	return nil
}
