package crawl

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/newscrawl/newscrawl/internal/crawl/discover"
	"github.com/newscrawl/newscrawl/internal/crawl/fetch"
	"github.com/newscrawl/newscrawl/internal/crawl/urlnorm"
	"github.com/newscrawl/newscrawl/internal/forget"
	"github.com/newscrawl/newscrawl/internal/pipeline"
	"github.com/newscrawl/newscrawl/internal/store"
)

// A Capture is a page from a web archive: stored as the crawler would have
// stored its fetch, at the time it was captured.
type Capture struct {
	URL    string    // WARC-Target-URI
	Date   time.Time // WARC-Date: the fetch time
	Status int
	Header http.Header
	Body   []byte // the payload, decoded

	// Provenance: where the record lives.
	Source           string
	Offset, Length   int64
	RecordID         string
	Truncated        string
	AlreadyStoredRun bool // read again after a resume: its clean message may never have been sent
}

// Outcomes of a capture, the keys of an ingest's counts.
const (
	ArchivedStored    = "stored"
	ArchivedDuplicate = "duplicate"   // the document holds this body, or a newer capture
	ArchivedNotHTML   = "not_html"    // by Content-Type or by its bytes
	ArchivedNoIndex   = "noindex"     // meta robots noindex
	ArchivedBadURL    = "bad_url"     // the target URI does not normalize
	ArchivedCharset   = "bad_charset" // a body that does not convert to UTF-8
	ArchivedForgotten = "forgotten"   // taken down: never stored again
)

// An Archived is what storing one capture did.
type Archived struct {
	Outcome string
	DocID   string
	URL     string // the document's URL (its canonical when allowed)
	Send    bool   // the cleaner's message is owed: a new or changed document, or one stored before a resume
	Hash    string // body hash
}

// An Archiver stores archive captures into documents and the frontier,
// with the crawler's keys and canonical-URL rules: it is the crawl stage's
// store, the one owner of those tables, fed from a file instead of the
// network.
type Archiver struct {
	c *Crawler
	// Discover puts the pages' links in the frontier, owed a live fetch
	// (within their host's registrable domain and the caps), as a crawl
	// would; off, an archive enqueues nothing.
	Discover bool

	grown *store.Growth // urls and documents, analyzed as they grow
}

// NewArchiver stores captures with cfg's depth and host caps.
func NewArchiver(pool *pgxpool.Pool, cfg Config) *Archiver {
	cfg.setDefaults()
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Archiver{c: &Crawler{cfg: cfg, pool: pool, log: cfg.Logger}, grown: store.NewGrowth(pool, cfg.Logger, "urls", "documents")}
}

// Wait returns once an ANALYZE that Store started has ended.
func (a *Archiver) Wait() { a.grown.Wait() }

// A Prepared is a capture judged and turned into rows (Archiver.Prepare),
// ready for Store.
type Prepared struct {
	cap   *Capture
	out   Archived
	doc   *document
	req   *request
	links []link
}

// Store writes prepared captures in one transaction and reports, in
// their order, what each did. Of several captures of one document the
// newest wins; a capture older than what the document holds is a
// duplicate. An error is the database's: nothing of the batch is stored.
func (a *Archiver) Store(ctx context.Context, preps []*Prepared) ([]Archived, error) {
	var linked []link
	for _, p := range preps {
		linked = append(linked, p.links...)
	}
	if a.Discover && len(linked) > 0 {
		kept, err := a.c.capLinks(ctx, uniqueLinks(linked))
		if err != nil {
			return nil, err
		}
		keep := make(map[string]bool, len(kept))
		for _, l := range kept {
			keep[l.URL] = true
		}
		for _, p := range preps {
			p.links = filterLinks(p.links, keep)
		}
	}
	err := pgx.BeginFunc(ctx, a.c.pool, func(tx pgx.Tx) error { return a.store(ctx, tx, preps) })
	if err != nil {
		return nil, fmt.Errorf("store %d archived pages: %w", len(preps), err)
	}
	out := make([]Archived, len(preps))
	stored := 0
	for i, p := range preps {
		out[i] = p.out
		if p.out.Outcome == ArchivedStored {
			stored++
		}
	}
	a.grown.Added(stored)
	return out, nil
}

func filterLinks(links []link, keep map[string]bool) []link {
	out := links[:0]
	for _, l := range links {
		if keep[l.URL] {
			out = append(out, l)
			delete(keep, l.URL) // a link once, to the first page naming it
		}
	}
	return out
}

// Prepare judges a capture and builds its document as htmlOutcome does a
// fetched page's: CPU work alone (the page's head is parsed), which a
// caller can do beside a Store of the batch before.
func (a *Archiver) Prepare(c *Capture) *Prepared {
	p := &Prepared{cap: c}
	n, err := urlnorm.Normalize(c.URL)
	if err != nil {
		p.out.Outcome = ArchivedBadURL
		return p
	}
	u, _ := url.Parse(n)
	ct := c.Header.Get("Content-Type")
	mt, _, _ := mime.ParseMediaType(ct)
	mt = strings.ToLower(mt)
	if (mt != "" && mt != "text/html" && mt != "application/xhtml+xml") || discover.Sniff(mt, c.Body) != discover.KindHTML {
		p.out.Outcome = ArchivedNotHTML
		return p
	}
	body, cs, err := fetch.ToUTF8(c.Body, ct)
	if err != nil {
		p.out.Outcome = ArchivedCharset
		return p
	}
	p.req = &request{URL: n, u: u, DocID: pipeline.DocID(n), Host: u.Host, MaxDepth: a.c.cfg.MaxDepth,
		Hosts: []string{DefaultHost(u.Hostname())}, Nonce: "archive"}
	page := discover.Meta(u, body)
	if a.Discover {
		page = discover.HTML(u, body)
	}
	docURL := n
	if page.Canonical != "" && a.c.allowed(p.req, page.Canonical) {
		docURL = page.Canonical
	}
	if page.NoIndex {
		p.out.Outcome = ArchivedNoIndex
		return p
	}
	du, _ := url.Parse(docURL)
	hash := pipeline.BodyHash(body)
	p.out = Archived{DocID: pipeline.DocID(docURL), URL: docURL, Hash: hash}
	p.doc = &document{DocID: p.out.DocID, RequestedAs: p.req.DocID, URL: docURL, FinalURL: n, Host: du.Host,
		ContentType: ct, Kind: discover.KindHTML, Charset: cs, BodyHash: hash, ETag: c.Header.Get("ETag"),
		LastModified: c.Header.Get("Last-Modified"), Status: c.Status, Body: body, Headers: keptHeaders(c.Header)}
	if a.Discover {
		for _, l := range page.Links {
			p.links = a.c.addLink(p.links, p.req, l, 1, "")
		}
	}
	return p
}

// store writes the prepared captures, in one round trip for the batch
// (a pgx.Batch): for each, the document (unless it holds this body or a
// newer capture already), the frontier rows of its URLs as fetched at the
// capture's time, and its links.
func (a *Archiver) store(ctx context.Context, tx pgx.Tx, preps []*Prepared) error {
	var ids []string
	for _, p := range preps {
		if p.doc != nil {
			ids = append(ids, p.doc.DocID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	forgotten, err := forget.Which(ctx, tx, ids)
	if err != nil {
		return err
	}
	b := &pgx.Batch{}
	for _, p := range preps {
		if p.doc == nil {
			continue
		}
		if forgotten[p.doc.DocID] {
			p.out.Outcome = ArchivedForgotten
			continue
		}
		a.queue(b, p)
	}
	return tx.SendBatch(ctx, b).Close()
}

// queue adds one capture's statements to b, with what reads their answers.
func (a *Archiver) queue(b *pgx.Batch, p *Prepared) {
	d, c := p.doc, p.cap
	headers, _ := json.Marshal(d.Headers)
	b.Queue(`
		INSERT INTO documents (doc_id, url, final_url, host, status, content_type, kind, charset, body,
		                       body_hash, etag, last_modified, headers, fetched_at, first_seen_at,
		                       origin, warc_file, warc_offset, warc_length, warc_record_id, warc_date, warc_truncated)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14,
		        least($14, coalesce((SELECT min(first_seen_at) FROM urls WHERE doc_id IN ($1, $15)), $14)),
		        'archive', $16, $17, $18, $19, $14, $20)
		ON CONFLICT (doc_id) DO UPDATE SET
			url = EXCLUDED.url, final_url = EXCLUDED.final_url, host = EXCLUDED.host, status = EXCLUDED.status,
			content_type = EXCLUDED.content_type, kind = EXCLUDED.kind, charset = EXCLUDED.charset,
			body = EXCLUDED.body, body_hash = EXCLUDED.body_hash, etag = EXCLUDED.etag,
			last_modified = EXCLUDED.last_modified, headers = EXCLUDED.headers, fetched_at = EXCLUDED.fetched_at,
			first_seen_at = least(documents.first_seen_at, EXCLUDED.first_seen_at),
			origin = 'archive', warc_file = EXCLUDED.warc_file, warc_offset = EXCLUDED.warc_offset,
			warc_length = EXCLUDED.warc_length, warc_record_id = EXCLUDED.warc_record_id,
			warc_date = EXCLUDED.warc_date, warc_truncated = EXCLUDED.warc_truncated
		WHERE documents.body_hash IS DISTINCT FROM EXCLUDED.body_hash
		  AND (documents.fetched_at IS NULL OR documents.fetched_at < EXCLUDED.fetched_at)
		RETURNING true`,
		d.DocID, d.URL, d.FinalURL, d.Host, d.Status, d.ContentType, d.Kind, d.Charset, d.Body,
		d.BodyHash, d.ETag, d.LastModified, headers, c.Date, d.RequestedAs,
		c.Source, c.Offset, c.Length, c.RecordID, c.Truncated).QueryRow(func(row pgx.Row) error {
		var stored bool
		switch err := row.Scan(&stored); {
		case errors.Is(err, pgx.ErrNoRows):
			p.out.Outcome = ArchivedDuplicate
		case err != nil:
			return fmt.Errorf("store archived document %s: %w", d.URL, err)
		default:
			p.out.Outcome, p.out.Send = ArchivedStored, true
		}
		return nil
	})
	if c.AlreadyStoredRun { // read again after a resume: the body it holds may be ours, its message unsent
		b.Queue(`SELECT body_hash = $2 AND warc_file = $3 AND warc_offset = $4 FROM documents WHERE doc_id = $1`,
			d.DocID, d.BodyHash, c.Source, c.Offset).QueryRow(func(row pgx.Row) error {
			var same bool
			if err := row.Scan(&same); err != nil {
				return fmt.Errorf("look up document %s: %w", d.URL, err)
			}
			if same && p.out.Outcome == ArchivedDuplicate {
				p.out.Outcome, p.out.Send = ArchivedStored, true
			}
			return nil
		})
	}
	urls := []string{p.req.URL}
	if d.URL != p.req.URL {
		urls = append(urls, d.URL)
	}
	for _, u := range urls {
		pu, _ := url.Parse(u)
		b.Queue(`
			INSERT INTO urls (url, doc_id, host, state, hosts, kind, status, final_url, content_type, body_hash,
			                  discovered_from, fetch_count, fetched_at, first_seen_at, updated_at)
			VALUES ($1, $2, $3, 'fetched', $4, 'html', $5, $6, $7, $8, 'archive', 1, $9, $9, now())
			ON CONFLICT (url) DO UPDATE SET
				state = 'fetched', status = EXCLUDED.status, final_url = EXCLUDED.final_url,
				content_type = EXCLUDED.content_type, body_hash = EXCLUDED.body_hash,
				fetch_count = urls.fetch_count + 1, fetched_at = EXCLUDED.fetched_at, updated_at = now()
			WHERE urls.fetched_at IS NULL OR urls.fetched_at < EXCLUDED.fetched_at`,
			u, pipeline.DocID(u), pu.Host, p.req.Hosts, d.Status, p.req.URL, d.ContentType, d.BodyHash, c.Date)
	}
	if len(p.links) > 0 {
		b.Queue(insertLinksSQL, linkArgs(p.req, p.links, StateQueued, nil)...)
	}
}

// Capture is the capture p was prepared from.
func (p *Prepared) Capture() *Capture { return p.cap }
