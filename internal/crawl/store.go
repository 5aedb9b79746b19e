package crawl

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/newscrawl/newscrawl/internal/archive"
)

// URL states recorded in the urls table.
const (
	StateQueued        = "queued"
	StateFetched       = "fetched"      // stored (HTML) or parsed (feed, sitemap), new or changed
	StateUnchanged     = "unchanged"    // 200 with the same content hash
	StateNotModified   = "not_modified" // 304
	StateGone          = "gone"         // 404, 410
	StateDisallowed    = "disallowed"   // robots.txt
	StateTooLarge      = "too_large"
	StateSkipped       = "skipped"        // content type or kind not crawled
	StateNoIndex       = "noindex"        // meta robots noindex: links followed, not published
	StateRedirectError = "redirect_error" // loop or too many hops
	StateClientError   = "client_error"   // other 4xx
	StateParseError    = "parse_error"    // a feed or sitemap that does not parse
	StateAlias         = "alias"          // a canonical or redirect target of a fetched URL
)

// document is a fetched HTML page to store.
type document struct {
	DocID, URL, FinalURL, Host, ContentType, Kind, Charset, BodyHash, ETag, LastModified string
	RequestedAs                                                                          string // doc id of the URL fetched (the page's own URL may be its canonical)
	Status                                                                               int
	Body                                                                                 []byte
	Headers                                                                              map[string]string
	WARC                                                                                 *archive.Location // where the crawler archived the fetch, when it does
	Captured                                                                             time.Time
}

// link is a discovered URL to enqueue if unseen.
type link struct {
	URL, DocID, Host, Hint string
	Depth                  int
	Hubs                   int // hubs in a row that led here (sitemap index → sitemap → …), 0 for a page
	Hub                    bool
}

// outcome is the result of one crawl request, written by commit.
type outcome struct {
	State, Kind, ContentType, FinalURL, BodyHash, ETag, LastModified, Err string
	Status                                                                int
	Fetched                                                               bool // a request was sent (counts, fetched_at)
	Hub                                                                   bool
	Doc                                                                   *document
	Aliases                                                               []link // canonical / final URLs recorded as seen
	Links                                                                 []link
	release                                                               func() // returns Doc's body to the memory budget
}

// commit writes an outcome inside the ledger transaction and reports
// whether the document row was inserted or its content changed, so that
// only new documents go to the cleaner. The page's discovered links are
// already in the frontier (addLinks, before the commit).
//
// streamkit group-commits several requests in one transaction, and several
// such transactions run at once (and in every crawler process). What they
// write here is the page's own rows (its document, its URL), which only
// a second delivery of the same request shares; the rare deadlock or lock
// timeout is run again at once by streamkit, without a refetch and without
// spending an attempt; the server ends a stalled transaction after a few
// seconds (streamkit's transaction limits), releasing its rows
// (TestCrawler_ConcurrentCommitsDoNotRefetch). Aliases (rare) are still
// written here, in URL order.
func commit(ctx context.Context, tx pgx.Tx, r *request, o *outcome) (changed bool, err error) {
	// The state is decided in the statement, not written back: streamkit
	// may run a Commit twice.
	if changed, err = upsertPage(ctx, tx, r, o); err != nil {
		return false, err
	}
	if len(o.Aliases) > 0 {
		if _, err := insertLinks(ctx, tx, r, o.Aliases, StateAlias, nil); err != nil {
			return false, err
		}
	}
	return changed, nil
}

// addLinks records a page's discovered links in the frontier before the
// page's own commit, as a transaction of their own, and returns how many
// were new. In the ledger transaction beside the other pages of its batch
// they deadlocked: two batches discovering the same new URLs each held
// some of them while waiting for the other's (one statement per page is in
// URL order, a batch of pages is not), and a batch that lost its retries
// fetched every one of its pages again (bench-crawler, no delay, 2,000
// pages: 100-121 duplicate fetches). One statement in URL order cannot
// close such a cycle. Links stored for a page whose commit then fails are
// harmless: the page is fetched again and finds them known. The commit is
// asynchronous: the page's own, synchronous commit, later on the same
// server, flushes the WAL past it.
func addLinks(ctx context.Context, pool *pgxpool.Pool, r *request, links []link, recrawl *time.Duration) (int, error) {
	var b pgx.Batch // one round trip, one implicit transaction
	b.Queue(`SELECT set_config('synchronous_commit', 'off', true)`)
	var fresh map[string]bool
	b.Queue(insertLinksSQL, linkArgs(r, links, StateQueued, recrawl)...).Query(func(rows pgx.Rows) error {
		var err error
		fresh, err = freshLinks(rows, len(links))
		return err
	})
	if err := pool.SendBatch(ctx, &b).Close(); err != nil {
		return 0, fmt.Errorf("record %d discovered urls: %w", len(links), err)
	}
	return len(fresh), nil
}

// upsertPage records a request's outcome in urls and, for a fetched page,
// the page in documents — one statement, so one round trip of the group
// commit (which holds the crawler's lock) where it was two. A document
// whose body is unchanged is not rewritten, and its URL's state says so:
// "fetched" becomes "unchanged". It reports whether the document was
// stored new or changed.
func upsertPage(ctx context.Context, tx pgx.Tx, r *request, o *outcome) (changed bool, err error) {
	var recrawlMS *int64
	if o.Hub && r.Recrawl > 0 {
		ms := r.Recrawl.Milliseconds()
		recrawlMS = &ms
	}
	fetched := 0
	if o.Fetched {
		fetched = 1
	}
	args := []any{r.URL, r.DocID, r.Host, o.State, r.Depth, r.MaxDepth, r.Hosts, r.Seed, o.Hub, o.Kind, o.Status,
		o.FinalURL, o.ContentType, o.BodyHash, o.ETag, o.LastModified, o.Err, r.From, recrawlMS, fetched, r.Nonce}
	if o.Doc == nil {
		if _, err := tx.Exec(ctx, upsertURLSQL, args...); err != nil {
			return false, fmt.Errorf("record %s in urls: %w", r.URL, err)
		}
		return false, nil
	}
	d := o.Doc
	headers, _ := json.Marshal(d.Headers)
	var wfile, wrecord string
	var woffset, wlength *int64
	var wdate *time.Time
	if d.WARC != nil {
		wfile, wrecord, woffset, wdate = d.WARC.File, d.WARC.RecordID, &d.WARC.Offset, &d.Captured
		if d.WARC.Length > 0 {
			wlength = &d.WARC.Length
		}
	}
	args = append(args, d.DocID, d.URL, d.FinalURL, d.Host, d.Status, d.ContentType, d.Kind, d.Charset, d.Body,
		d.BodyHash, d.ETag, d.LastModified, headers, d.RequestedAs, wfile, woffset, wlength, wrecord, wdate)
	if err := tx.QueryRow(ctx, upsertDocumentAndURLSQL, args...).Scan(&changed); err != nil {
		return false, fmt.Errorf("store document %s: %w", d.URL, err)
	}
	return changed, nil
}

// upsertDocumentSQL stores a fetched page ($22–$40: its parameters follow
// the URL's, as upsertDocumentAndURLSQL runs both), and returns a row when
// it was new or its body changed. Its first_seen_at is when its URL was
// discovered, not fetched: which of two copies is the original then
// follows the order the crawler learnt of them, not the order the hosts'
// politeness queues happened to release them in.
const upsertDocumentSQL = `
	INSERT INTO documents (doc_id, url, final_url, host, status, content_type, kind, charset, body,
	                       body_hash, etag, last_modified, headers, fetched_at, first_seen_at,
	                       origin, warc_file, warc_offset, warc_length, warc_record_id, warc_date, warc_truncated)
	VALUES ($22, $23, $24, $25, $26, $27, $28, $29, $30, $31, $32, $33, $34, now(),
	        coalesce((SELECT min(first_seen_at) FROM urls WHERE doc_id IN ($22, $35)), now()),
	        'crawl', $36, $37, $38, $39, $40, '')
	ON CONFLICT (doc_id) DO UPDATE SET
		url = EXCLUDED.url, final_url = EXCLUDED.final_url, host = EXCLUDED.host, status = EXCLUDED.status,
		content_type = EXCLUDED.content_type, kind = EXCLUDED.kind, charset = EXCLUDED.charset,
		body = EXCLUDED.body, body_hash = EXCLUDED.body_hash, etag = EXCLUDED.etag,
		last_modified = EXCLUDED.last_modified, headers = EXCLUDED.headers, fetched_at = now(),
		origin = 'crawl', warc_file = EXCLUDED.warc_file, warc_offset = EXCLUDED.warc_offset,
		warc_length = EXCLUDED.warc_length, warc_record_id = EXCLUDED.warc_record_id,
		warc_date = EXCLUDED.warc_date, warc_truncated = ''
	WHERE documents.body_hash IS DISTINCT FROM EXCLUDED.body_hash
	RETURNING doc_id`

// urlSQL records a request's outcome in urls ($1–$21); %s is the state.
const urlSQL = `
	INSERT INTO urls (url, doc_id, host, state, depth, max_depth, hosts, is_seed, is_hub, kind, status,
	                  final_url, content_type, body_hash, etag, last_modified, error, discovered_from,
	                  recrawl_interval, next_crawl_at, fetch_count, fetched_at, updated_at)
	VALUES ($1, $2, $3, %s, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18,
	        $19::bigint * interval '1 millisecond', now() + $19::bigint * interval '1 millisecond',
	        $20, CASE WHEN $20 > 0 THEN now() END, now())
	ON CONFLICT (url) DO UPDATE SET
		state = EXCLUDED.state, depth = LEAST(urls.depth, EXCLUDED.depth),
		max_depth = GREATEST(urls.max_depth, EXCLUDED.max_depth), hosts = EXCLUDED.hosts,
		is_seed = urls.is_seed OR EXCLUDED.is_seed, is_hub = urls.is_hub OR EXCLUDED.is_hub,
		kind = CASE WHEN EXCLUDED.kind <> '' THEN EXCLUDED.kind ELSE urls.kind END,
		status = EXCLUDED.status, final_url = EXCLUDED.final_url,
		content_type = EXCLUDED.content_type,
		body_hash = CASE WHEN EXCLUDED.body_hash <> '' THEN EXCLUDED.body_hash ELSE urls.body_hash END,
		etag = EXCLUDED.etag, last_modified = EXCLUDED.last_modified, error = EXCLUDED.error,
		recrawl_interval = COALESCE(EXCLUDED.recrawl_interval, urls.recrawl_interval),
		next_crawl_at = COALESCE(EXCLUDED.next_crawl_at, urls.next_crawl_at),
		fetch_count = urls.fetch_count + EXCLUDED.fetch_count,
		fetched_at = COALESCE(EXCLUDED.fetched_at, urls.fetched_at), updated_at = now(),
		-- the request owed is handled; one owed with another nonce (a new seeding) stays
		pending_nonce = CASE WHEN urls.pending_nonce = $21 THEN NULL ELSE urls.pending_nonce END,
		published_at = CASE WHEN urls.pending_nonce = $21 THEN NULL ELSE urls.published_at END`

var (
	upsertURLSQL = fmt.Sprintf(urlSQL, "$4")
	// upsertDocumentAndURLSQL: the document first, then the URL,
	// "unchanged" when the document was not rewritten; its one row says
	// whether the document was.
	upsertDocumentAndURLSQL = "WITH doc AS (" + upsertDocumentSQL + ")" +
		fmt.Sprintf(urlSQL, fmt.Sprintf("CASE WHEN $4 = '%s' AND NOT EXISTS (SELECT 1 FROM doc) THEN '%s' ELSE $4 END", StateFetched, StateUnchanged)) +
		" RETURNING EXISTS (SELECT 1 FROM doc)"
)

// insertLinks adds unseen URLs to the seen-set and returns those inserted.
// Queued ones are owed a fetch (pending, unpublished) with the nonce the
// crawler's request for them carries; aliases are owed nothing.
// URLs already stored are filtered out by a plain read first: an insert
// that met one of them while another transaction updates its row would
// wait for that transaction, and such waits, crossing, deadlock. What is
// left (URLs two transactions discover at once) is inserted in URL order.
func insertLinks(ctx context.Context, tx pgx.Tx, r *request, links []link, state string, recrawl *time.Duration) (map[string]bool, error) {
	rows, err := tx.Query(ctx, insertLinksSQL, linkArgs(r, links, state, recrawl)...)
	if err != nil {
		return nil, fmt.Errorf("insert %d discovered urls: %w", len(links), err)
	}
	return freshLinks(rows, len(links))
}

// linkArgs are insertLinksSQL's arguments for links found by r.
func linkArgs(r *request, links []link, state string, recrawl *time.Duration) []any {
	urls := make([]string, len(links))
	docs := make([]string, len(links))
	hosts := make([]string, len(links))
	depths := make([]int32, len(links))
	hubs := make([]bool, len(links))
	hints := make([]string, len(links))
	inRow := make([]int32, len(links))
	nonces := make([]*string, len(links))
	for i, l := range links {
		urls[i], docs[i], hosts[i], depths[i], hubs[i] = l.URL, l.DocID, l.Host, int32(l.Depth), l.Hub
		hints[i], inRow[i] = l.Hint, int32(l.Hubs)
		if state == StateQueued {
			n := LinkNonce(r.URL, l.URL)
			nonces[i] = &n
		}
	}
	var recrawlMS *int64
	if recrawl != nil {
		ms := recrawl.Milliseconds()
		recrawlMS = &ms
	}
	return []any{urls, docs, hosts, depths, hubs, state, r.MaxDepth, r.Hosts, r.URL, hints, inRow, nonces, recrawlMS}
}

// insertLinksSQL inserts the links the seen-set lacks and returns them.
// first_seen_at is the discovery order the feeder follows: the links of
// one page a microsecond apart, in the page's order (WITH ORDINALITY).
const insertLinksSQL = `
		INSERT INTO urls (url, doc_id, host, state, depth, max_depth, hosts, is_hub, discovered_from,
		                  hint, hubs, pending_nonce, recrawl_interval, first_seen_at)
		SELECT u, d, h, $6, dep, $7, $8, hub, $9, hint, hubs, nonce, $13::bigint * interval '1 millisecond',
		       now() + ord * interval '1 microsecond'
		FROM unnest($1::text[], $2::text[], $3::text[], $4::int[], $5::bool[], $10::text[], $11::int[], $12::text[])
		     WITH ORDINALITY AS t(u, d, h, dep, hub, hint, hubs, nonce, ord)
		WHERE NOT EXISTS (SELECT 1 FROM urls WHERE urls.url = t.u)
		ORDER BY u
		ON CONFLICT (url) DO NOTHING
		RETURNING url`

// freshLinks reads insertLinksSQL's answer.
func freshLinks(rows pgx.Rows, n int) (map[string]bool, error) {
	fresh, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("insert %d discovered urls: %w", n, err)
	}
	out := make(map[string]bool, len(fresh))
	for _, u := range fresh {
		out[u] = true
	}
	return out, nil
}
