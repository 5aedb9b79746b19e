// Package clean is the cleaner stage: raw page → article text and metadata
// in the cleaned table, exact and near duplicates linked to the first-seen
// document, articles forwarded to the extractor.
package clean

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/newscrawl/newscrawl/internal/article"
	"github.com/newscrawl/newscrawl/internal/forget"
	"github.com/newscrawl/newscrawl/internal/pipeline"
	"github.com/newscrawl/newscrawl/internal/store"
	"github.com/newscrawl/newscrawl/pkg/streamkit"
)

// Defaults of Config.
const (
	DefaultMaxHamming = 3
)

// Config tunes the cleaner stage.
type Config struct {
	Extract           article.Options // limits per page
	MaxTextChars      int             // longer texts are cut at a paragraph break (DefaultMaxTextChars)
	MaxHamming        int             // near-duplicate threshold (SimHash bits)
	ForwardDuplicates bool            // send duplicates to extraction and embedding anyway
	// Render (RENDER: off, auto, always) sends script-built pages to the
	// renderer; RenderHosts are hosts every page of which goes under auto.
	Render      string
	RenderHosts []string
	// Registry, when set, gets newscrawl_clean_pages_total{outcome}: every
	// page counted as forwarded or by the reason it was set aside.
	Registry prometheus.Registerer
}

// A Stage cleans fetched pages; it is the cleaner's streamkit handler.
type Stage struct {
	db          *pgxpool.Pool
	cfg         Config
	log         *slog.Logger
	pages       *prometheus.CounterVec
	renderHosts map[string]bool
	grown       *store.Growth // cleaned and simhash_bands, analyzed as they grow
}

// outcomes of a cleaned page: forwarded, a duplicate, or the kind of page
// that is not an article (article.Kind*).
var outcomes = []string{"forwarded", "duplicate", "rendering", article.KindListing, article.KindGallery, article.KindVideo, article.KindEmpty, article.KindOther,
	article.KindService, article.KindProduct, article.KindCollection, article.KindForum, article.KindDocumentation}

// NewStage returns the cleaner handler over db.
func NewStage(db *pgxpool.Pool, cfg Config, log *slog.Logger) *Stage {
	if cfg.MaxHamming <= 0 {
		cfg.MaxHamming = DefaultMaxHamming
	}
	if cfg.MaxTextChars <= 0 {
		cfg.MaxTextChars = DefaultMaxTextChars
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	pages := prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "newscrawl", Subsystem: "clean", Name: "pages_total",
		Help: "Cleaned pages: forwarded to extraction, or set aside as a duplicate or by page kind."}, []string{"outcome"})
	for _, o := range outcomes {
		pages.WithLabelValues(o)
	}
	if cfg.Registry != nil {
		cfg.Registry.MustRegister(pages)
	}
	hosts := map[string]bool{}
	for _, h := range cfg.RenderHosts {
		if h = strings.ToLower(strings.TrimSpace(h)); h != "" {
			hosts[h] = true
		}
	}
	return &Stage{db: db, cfg: cfg, log: log, pages: pages, renderHosts: hosts,
		grown: store.NewGrowth(db, log, "cleaned", "simhash_bands")}
}

// Handle cleans the document named by the message. A missing document or a
// page that is not HTML is a permanent error (dead letter with its reason);
// a database error is retryable.
func (s *Stage) Handle(ctx context.Context, m *streamkit.Message) (streamkit.Result, error) {
	docID, err := m.Require(pipeline.FieldDocID)
	if err != nil {
		return streamkit.Result{}, err
	}
	wantHash, err := pipeline.MessageHash(m, pipeline.FieldBodyHash)
	if err != nil {
		return streamkit.Result{}, err
	}
	var pageURL, bodyHash string
	var body []byte
	var firstSeen, fetched time.Time
	rendered := m.Get(pipeline.FieldRendered) == "1"
	if rendered { // the renderer's DOM of the page, named by its own hash
		err = s.db.QueryRow(ctx, `SELECT d.url, coalesce(r.rendered_hash, ''), r.body, d.first_seen_at, coalesce(d.fetched_at, d.first_seen_at) FROM documents d
			LEFT JOIN rendered r ON r.doc_id = d.doc_id AND r.rendered_hash = $2 WHERE d.doc_id = $1`, docID, wantHash).
			Scan(&pageURL, &bodyHash, &body, &firstSeen, &fetched)
	} else {
		err = s.db.QueryRow(ctx, `SELECT url, body_hash, body, first_seen_at, coalesce(fetched_at, first_seen_at) FROM documents WHERE doc_id = $1`, docID).
			Scan(&pageURL, &bodyHash, &body, &firstSeen, &fetched)
	}
	if errors.Is(err, pgx.ErrNoRows) {
		switch gone, ferr := forget.Was(ctx, s.db, docID); {
		case ferr != nil:
			return streamkit.Result{}, streamkit.Retryable("database", ferr)
		case gone: // forgotten while in flight: nothing to do
			return streamkit.Result{}, nil
		}
		return streamkit.Result{}, streamkit.Permanent("missing_input", fmt.Errorf("document %s is not in the documents table", docID))
	}
	if err != nil {
		return streamkit.Result{}, streamkit.Retryable("database", fmt.Errorf("load document %s: %w", docID, err))
	}
	if bodyHash != wantHash {
		// A newer fetch replaced this body; its own message cleans it.
		s.log.Info("document changed since this message; skipping", "doc_id", docID)
		return streamkit.Result{DocID: docID}, nil
	}

	started := time.Now()
	opt := s.cfg.Extract
	opt.FetchedAt = fetched // an archived page's capture time: no day after it
	a, err := article.Extract(body, pageURL, opt)
	if err != nil {
		return streamkit.Result{}, classify(err, time.Since(started))
	}
	var textCutFrom int
	if cut, from := cutText(a.Text, s.cfg.MaxTextChars); from > 0 {
		s.log.Warn("article text cut to the limit", "doc_id", docID, "chars", from, "kept", utf8.RuneCountInString(cut))
		a.Text, textCutFrom = cut, from
	}
	c := cleanedRow(docID, bodyHash, pageURL, a)
	c.FirstSeenAt = firstSeen
	c.TextCutFrom = textCutFrom
	render := !rendered && s.wantsRender(c.Host, body, a)
	var locks []int64 // held for save by streamkit: the whole batch's, taken first, in order
	if c.IsArticle {
		locks = dedupeLocks(c)
	}
	return streamkit.Result{DocID: docID, Locks: locks, Commit: func(ctx context.Context, tx pgx.Tx) error {
		return s.save(ctx, tx, c)
	}, EmitFunc: func() []streamkit.Emit {
		// Counted here, after the commit decided: a page not forwarded is
		// never dropped silently. (A batch rerun after a failed Commit can
		// count a page twice.) A page sent to the renderer comes back as
		// its DOM; a story the static page already had goes on meanwhile,
		// so a render that fails loses nothing.
		s.grown.Added(1)
		var emits []streamkit.Emit
		if render {
			s.pages.WithLabelValues("rendering").Inc()
			emits = append(emits, streamkit.Emit{Stage: pipeline.Render, Fields: map[string]string{
				pipeline.FieldDocID: docID, pipeline.FieldBodyHash: bodyHash, pipeline.FieldURL: pageURL}})
		}
		switch {
		case !c.IsArticle && render:
			return emits
		case !c.IsArticle:
			s.pages.WithLabelValues(c.PageKind).Inc()
			return nil
		case c.DuplicateOf != "" && !s.cfg.ForwardDuplicates:
			s.pages.WithLabelValues("duplicate").Inc()
			return emits
		}
		s.pages.WithLabelValues("forwarded").Inc()
		return append(emits, streamkit.Emit{Stage: pipeline.Extract, Fields: map[string]string{
			pipeline.FieldDocID: docID, pipeline.FieldTextHash: c.TextHash, pipeline.FieldURL: pageURL,
		}})
	}}, nil
}

// Version names the cleaning algorithm in the stage's idempotency keys:
// bump it to re-clean everything on replay.
const Version = "clean-v1"

// Key is the stage's streamkit.KeyFunc: clean:doc_id:body_hash:version,
// the body hash read from the message's body_hash or, in a message sent
// before the fields were renamed, from content_hash (the same value, so
// the same key).
var Key = pipeline.HashKey(pipeline.FieldBodyHash)

// save links the document to its first-seen copy and writes the row, in
// the ledger transaction. Two copies committed at once must not both
// believe they are the first, so it runs holding transaction-level
// advisory locks on what two copies would share — the text hash, and each
// SimHash band value (near duplicates within three bits share a band):
// dedupeLocks, named in the Result, which streamkit takes for the whole
// batch before any Commit, in key order. Copies queue behind each other,
// unrelated documents never wait.
// When this document was seen before the copy already stored (cleaning
// order is not crawl order), it becomes the original and the copy's group
// is relinked to it.
func (s *Stage) save(ctx context.Context, tx pgx.Tx, c *Cleaned) error {
	c.DuplicateOf = ""
	if c.IsArticle {
		orig, err := s.findDuplicate(ctx, tx, c)
		if err != nil {
			return err
		}
		switch {
		case orig == nil:
		case orig.before(c):
			c.DuplicateOf = orig.docID
		default:
			if err := relink(ctx, tx, orig.docID, c.DocID); err != nil {
				return err
			}
		}
	}
	return c.save(ctx, tx)
}

// dedupeLocks are the advisory lock keys of what a copy of c would share
// with it: its text hash and its four band values, each in a key space of
// its own.
func dedupeLocks(c *Cleaned) []int64 {
	h := fnv.New64a()
	h.Write([]byte("clean:text:" + c.TextHash))
	keys := []int64{int64(h.Sum64())}
	for band, v := range BandValues(c.SimHash) {
		keys = append(keys, int64(0x6e63<<48|uint64(band)<<32|uint64(uint32(v))))
	}
	return keys
}

// relink makes newOrig the original of from's whole group.
func relink(ctx context.Context, tx pgx.Tx, from, newOrig string) error {
	if _, err := tx.Exec(ctx, `UPDATE cleaned SET duplicate_of = $2 WHERE (doc_id = $1 OR duplicate_of = $1) AND doc_id <> $2`, from, newOrig); err != nil {
		return fmt.Errorf("relink duplicates of %s to %s: %w", from, newOrig, err)
	}
	if _, err := tx.Exec(ctx, `DELETE FROM simhash_bands WHERE doc_id = $1`, from); err != nil {
		return fmt.Errorf("drop simhash bands of %s: %w", from, err)
	}
	return nil
}

// candidate is a stored original that a document duplicates.
type candidate struct {
	docID     string
	firstSeen time.Time
}

func (o *candidate) before(c *Cleaned) bool {
	return o.firstSeen.Before(c.FirstSeenAt) || (o.firstSeen.Equal(c.FirstSeenAt) && o.docID < c.DocID)
}

// classify turns an extraction error into streamkit's terms: the limits on
// bytes, nodes and work are verdicts on the page (dead letters), the time
// guard is not (a runaway: back later, no attempt spent).
func classify(err error, took time.Duration) error {
	switch {
	case errors.Is(err, article.ErrRunaway):
		return streamkit.Runaway(took, err)
	case errors.Is(err, article.ErrNotHTML):
		return streamkit.Permanent("not_html", err)
	case errors.Is(err, article.ErrTooLarge):
		return streamkit.Permanent("too_large", err)
	case errors.Is(err, article.ErrTooComplex):
		return streamkit.Permanent("too_complex", err)
	}
	return streamkit.Permanent("extract_failed", err)
}

// findDuplicate returns the stored original with the same normalized
// text, or else the first-seen one whose SimHash is within MaxHamming bits,
// found through the band index; nil when there is none.
func (s *Stage) findDuplicate(ctx context.Context, tx pgx.Tx, c *Cleaned) (*candidate, error) {
	var o candidate
	err := tx.QueryRow(ctx, `SELECT doc_id, first_seen_at FROM cleaned WHERE text_hash = $1 AND doc_id <> $2 AND duplicate_of IS NULL
		ORDER BY first_seen_at, doc_id LIMIT 1`, c.TextHash, c.DocID).Scan(&o.docID, &o.firstSeen)
	if err == nil {
		return &o, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("look up exact duplicates: %w", err)
	}
	bands := BandValues(c.SimHash)
	rows, err := tx.Query(ctx, `
		SELECT c.doc_id, c.simhash, c.first_seen_at FROM cleaned c
		WHERE c.doc_id IN (SELECT doc_id FROM simhash_bands WHERE (band, value) IN ((0,$1),(1,$2),(2,$3),(3,$4)))
		  AND c.doc_id <> $5 AND c.duplicate_of IS NULL
		ORDER BY c.first_seen_at, c.doc_id`, bands[0], bands[1], bands[2], bands[3], c.DocID)
	if err != nil {
		return nil, fmt.Errorf("look up near duplicates: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var h int64
		if err := rows.Scan(&o.docID, &h, &o.firstSeen); err != nil {
			return nil, fmt.Errorf("scan near duplicate: %w", err)
		}
		if Hamming(uint64(h), c.SimHash) <= s.cfg.MaxHamming {
			return &o, rows.Err()
		}
	}
	return nil, rows.Err()
}

// Cleaned is one row of the cleaned table.
type Cleaned struct {
	*article.Article
	DocID, URL, Host, DuplicateOf string
	BodyHash                      string // pipeline.BodyHash of the page it was cleaned from
	TextHash                      string // pipeline.TextHash of the text
	SimHash                       uint64
	FirstSeenAt                   time.Time
	TextCutFrom                   int // characters before the cut, 0 when whole
}

func cleanedRow(docID, bodyHash, pageURL string, a *article.Article) *Cleaned {
	host := ""
	if u, err := url.Parse(pageURL); err == nil {
		host = strings.ToLower(u.Hostname())
	}
	return &Cleaned{Article: a, DocID: docID, BodyHash: bodyHash, URL: pageURL, Host: host,
		TextHash: pipeline.TextHash(a.Text), SimHash: SimHash(a.Text)}
}

// save upserts the row and replaces its SimHash bands; it runs inside the
// ledger transaction, so an updated article is re-checked atomically.
func (c *Cleaned) save(ctx context.Context, tx pgx.Tx) error {
	var dup *string
	if c.DuplicateOf != "" {
		dup = &c.DuplicateOf
	}
	_, err := tx.Exec(ctx, `
		INSERT INTO cleaned (doc_id, body_hash, text_hash, simhash, url, canonical_url, host, title, text,
			description, site_name, language, authors, published_at, modified_at, top_image, section, tags,
			is_article, page_kind, word_count, duplicate_of, first_seen_at, text_cut_from, paywalled, cleaned_at)
		VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18,$19,$20,$21,$22,$23,$24,$25, now())
		ON CONFLICT (doc_id) DO UPDATE SET body_hash = EXCLUDED.body_hash, text_hash = EXCLUDED.text_hash,
			simhash = EXCLUDED.simhash, url = EXCLUDED.url, canonical_url = EXCLUDED.canonical_url, host = EXCLUDED.host,
			title = EXCLUDED.title, text = EXCLUDED.text, description = EXCLUDED.description, site_name = EXCLUDED.site_name,
			language = EXCLUDED.language, authors = EXCLUDED.authors, published_at = EXCLUDED.published_at,
			modified_at = EXCLUDED.modified_at, top_image = EXCLUDED.top_image, section = EXCLUDED.section,
			tags = EXCLUDED.tags, is_article = EXCLUDED.is_article, page_kind = EXCLUDED.page_kind,
			word_count = EXCLUDED.word_count, duplicate_of = EXCLUDED.duplicate_of, text_cut_from = EXCLUDED.text_cut_from,
			paywalled = EXCLUDED.paywalled, cleaned_at = now()`,
		c.DocID, c.BodyHash, c.TextHash, int64(c.SimHash), c.URL, c.CanonicalURL, c.Host, c.Title, c.Text,
		c.Description, c.SiteName, c.Language, store.NonNil(c.Authors), c.PublishedAt, c.ModifiedAt, c.TopImage, c.Section,
		store.NonNil(c.Tags), c.IsArticle, c.PageKind, c.WordCount, dup, c.FirstSeenAt, c.TextCutFrom, c.Paywalled)
	if err != nil {
		return fmt.Errorf("save cleaned %s: %w", c.DocID, err)
	}
	if _, err := tx.Exec(ctx, `DELETE FROM simhash_bands WHERE doc_id = $1`, c.DocID); err != nil {
		return fmt.Errorf("clear simhash bands of %s: %w", c.DocID, err)
	}
	if !c.IsArticle || c.DuplicateOf != "" {
		return nil // only originals are candidates for later documents
	}
	b := BandValues(c.SimHash)
	_, err = tx.Exec(ctx, `INSERT INTO simhash_bands (band, value, doc_id) VALUES (0,$1,$5),(1,$2,$5),(2,$3,$5),(3,$4,$5)
		ON CONFLICT DO NOTHING`, b[0], b[1], b[2], b[3], c.DocID)
	if err != nil {
		return fmt.Errorf("index simhash bands of %s: %w", c.DocID, err)
	}
	return nil
}

// DefaultMaxTextChars bounds one article's text: about 30,000 words, past
// the longest news features, so one huge page cannot become thousands of
// chunks and a commit that overruns its deadline.
const DefaultMaxTextChars = 200_000

// cutText returns text cut to at most max characters at the last paragraph
// break (or, failing one in the second half, the last space), and the
// original length in characters; that is 0 when text is within max.
func cutText(text string, max int) (string, int) {
	n := utf8.RuneCountInString(text)
	if n <= max {
		return text, 0
	}
	end := 0
	for i := range text { // byte offset of rune number max
		if max == 0 {
			end = i
			break
		}
		max--
	}
	head := text[:end]
	if i := strings.LastIndex(head, "\n"); i > len(head)/2 {
		return strings.TrimRight(head[:i], " \n"), n
	}
	if i := strings.LastIndex(head, " "); i > len(head)/2 {
		return head[:i], n
	}
	return head, n
}
