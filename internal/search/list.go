package search

import (
	"context"
	"encoding/base64"
	"fmt"
	"strings"
	"time"
)

// MaxListLimit bounds one page of GET /api/documents.
const MaxListLimit = 500

// A ListQuery selects searchable documents, newest first.
type ListQuery struct {
	Host, Lang   string
	Since, Until *time.Time
	After        string // a Cursor from the previous page
	Limit        int    // 0: no limit (export)
	WithText     bool   // include the cleaned text
}

// A Listed document: its metadata and its latest extraction.
type Listed struct {
	DocID         string     `json:"doc_id"`
	URL           string     `json:"url"`
	Title         string     `json:"title"`
	Host          string     `json:"host"`
	Language      string     `json:"language"`
	PublishedAt   *time.Time `json:"published_at"`
	Authors       []string   `json:"authors"`
	Section       string     `json:"section"`
	Tags          []string   `json:"tags"`
	WordCount     int        `json:"word_count"`
	Summary       string     `json:"summary"`
	Sentiment     string     `json:"sentiment"`
	Topics        []string   `json:"topics"`
	People        []string   `json:"people"`
	Organizations []string   `json:"organizations"`
	Locations     []string   `json:"locations"`
	ExtractedBy   string     `json:"extracted_by"` // provider/model, "" when not extracted
	Capture       Capture    `json:"capture"`      // where the page came from and where its WARC record is
	Text          string     `json:"text,omitempty"`
	Cursor        string     `json:"-"` // where the next page starts
}

// List calls visit for each selected document in order (newest published
// first, undated last), streaming rows: memory stays constant however many
// there are. visit's error stops the listing and is returned.
func (s *Searcher) List(ctx context.Context, q ListQuery, visit func(Listed) error) error {
	conds := []string{"c.searchable"}
	var args []any
	add := func(cond string, arg any) {
		args = append(args, arg)
		conds = append(conds, fmt.Sprintf(cond, len(args)))
	}
	if h := strings.ToLower(strings.TrimSpace(q.Host)); h != "" {
		add("c.host = $%d", h)
	}
	if l := strings.ToLower(strings.TrimSpace(q.Lang)); l != "" {
		add("c.language = $%d", l)
	}
	if q.Since != nil {
		add("c.published_at >= $%d", *q.Since)
	}
	if q.Until != nil {
		add("c.published_at < $%d", *q.Until)
	}
	if q.After != "" {
		at, doc, err := parseCursor(q.After)
		if err != nil {
			return err
		}
		if at == nil { // the previous page ended among the undated
			add("(c.published_at IS NULL AND c.doc_id < $%d)", doc)
		} else {
			args = append(args, *at, doc)
			conds = append(conds, fmt.Sprintf("(c.published_at < $%[1]d OR (c.published_at = $%[1]d AND c.doc_id < $%[2]d) OR c.published_at IS NULL)",
				len(args)-1, len(args)))
		}
	}
	limit := ""
	if q.Limit > 0 {
		limit = fmt.Sprintf(" LIMIT %d", min(q.Limit, MaxListLimit))
	}
	text := "''"
	if q.WithText {
		text = "c.text"
	}
	rows, err := s.pool.Query(ctx, `SELECT c.doc_id, c.url, c.title, c.host, c.language, c.published_at, c.authors, c.section,
		c.tags, c.word_count, coalesce(e.data->>'summary', ''), coalesce(e.sentiment, ''), coalesce(e.topics, '{}'),
		coalesce(e.people, '{}'), coalesce(e.organizations, '{}'), coalesce(e.locations, '{}'),
		coalesce(e.provider || '/' || e.model, ''), coalesce(doc.origin, ''), doc.fetched_at, coalesce(doc.warc_file, ''),
		doc.warc_offset, doc.warc_length, coalesce(doc.warc_record_id, ''), doc.warc_date, coalesce(doc.warc_truncated, ''), `+text+`
		FROM cleaned c LEFT JOIN latest_extractions e ON e.doc_id = c.doc_id LEFT JOIN documents doc ON doc.doc_id = c.doc_id
		WHERE `+strings.Join(conds, " AND ")+`
		ORDER BY c.published_at DESC NULLS LAST, c.doc_id DESC`+limit, args...)
	if err != nil {
		return fmt.Errorf("list documents: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var d Listed
		if err := rows.Scan(&d.DocID, &d.URL, &d.Title, &d.Host, &d.Language, &d.PublishedAt, &d.Authors, &d.Section,
			&d.Tags, &d.WordCount, &d.Summary, &d.Sentiment, &d.Topics, &d.People, &d.Organizations, &d.Locations,
			&d.ExtractedBy, &d.Capture.Origin, &d.Capture.FetchedAt, &d.Capture.WARCFile, &d.Capture.Offset, &d.Capture.Length,
			&d.Capture.RecordID, &d.Capture.Date, &d.Capture.Truncated, &d.Text); err != nil {
			return fmt.Errorf("read a listed document: %w", err)
		}
		d.Cursor = cursor(d.PublishedAt, d.DocID)
		if err := visit(d); err != nil {
			return err
		}
	}
	return rows.Err()
}

func cursor(at *time.Time, doc string) string {
	stamp := "-"
	if at != nil {
		stamp = at.UTC().Format(time.RFC3339Nano)
	}
	return base64.RawURLEncoding.EncodeToString([]byte(stamp + "," + doc))
}

func parseCursor(c string) (*time.Time, string, error) {
	b, err := base64.RawURLEncoding.DecodeString(c)
	stamp, doc, ok := strings.Cut(string(b), ",")
	if err != nil || !ok || doc == "" {
		return nil, "", invalid("after %q is not a cursor from a previous page", c)
	}
	if stamp == "-" {
		return nil, doc, nil
	}
	t, err := time.Parse(time.RFC3339Nano, stamp)
	if err != nil {
		return nil, "", invalid("after %q is not a cursor from a previous page", c)
	}
	return &t, doc, nil
}
