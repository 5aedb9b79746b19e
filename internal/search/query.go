// Package search answers queries over the embedded chunks: vector (HNSW or
// an exact scan, chosen by the filters' selectivity), lexical (full text on
// the chunks' tsvector) and hybrid (both fused with reciprocal rank
// fusion), grouped per document with the best chunk as the snippet.
package search

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Limits of a query.
const (
	DefaultK      = 10
	MaxK          = 100
	MaxQueryLen   = 500 // characters
	maxHostLen    = 253
	maxParamBytes = 4 * MaxQueryLen // a query's characters are up to 4 bytes
	dateOnlySpan  = 24 * time.Hour
)

// Mode selects how candidates are found.
type Mode string

// Modes.
const (
	Hybrid  Mode = "hybrid"
	Vector  Mode = "vector"
	Lexical Mode = "lexical"
)

// A Query is one validated search request.
type Query struct {
	Text  string
	K     int
	Mode  Mode
	Since *time.Time // published at or after
	Until *time.Time // published before
	Host  string
	Lang  string
	// Facets keeps documents whose extraction names every value given, by
	// field: "topics", "people", "organizations", "locations".
	Facets map[string]string
	Exact  bool // force exact vector scans (benchmarks' ground truth)
	// Undated keeps documents without a publication date whatever Since
	// and Until say, for a caller that judges them by another date.
	Undated bool
}

// FacetFields are the extraction's entity lists a query can filter on, with
// the URL parameter of each.
var FacetFields = []struct{ Field, Param string }{
	{"topics", "topic"}, {"people", "person"}, {"organizations", "org"}, {"locations", "place"},
}

// An InvalidError is a query that fails validation; its message is meant
// for the user.
type InvalidError struct{ Msg string }

func (e *InvalidError) Error() string { return e.Msg }

func invalid(format string, args ...any) error {
	return &InvalidError{Msg: fmt.Sprintf(format, args...)}
}

// IsInvalid reports whether err is a validation error.
func IsInvalid(err error) bool {
	var e *InvalidError
	return errors.As(err, &e)
}

var langPattern = regexp.MustCompile(`^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$`)

// hasControl reports a control character; they are refused in every field
// (in the text, line breaks and tabs become spaces first: a pasted query).
func hasControl(s string) bool {
	return strings.ContainsFunc(s, unicode.IsControl)
}

// Normalize fills defaults and validates q, returning an *InvalidError.
func (q *Query) Normalize() error {
	q.Text = strings.TrimSpace(strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' || r == '\t' {
			return ' '
		}
		return r
	}, q.Text))
	for name, v := range map[string]string{"the query": q.Text, "host": q.Host, "lang": q.Lang, "mode": string(q.Mode)} {
		if hasControl(v) {
			return invalid("%s contains a control character", name)
		}
	}
	for field, v := range q.Facets {
		if !isFacet(field) {
			return invalid("%q is not a facet (topics, people, organizations, locations)", field)
		}
		if v = strings.TrimSpace(v); v == "" || len(v) > maxParamBytes || hasControl(v) || !utf8.ValidString(v) {
			return invalid("%s %q is not a name", field, v)
		}
		q.Facets[field] = v
	}
	switch n := utf8.RuneCountInString(q.Text); {
	case n == 0:
		return invalid("the query is empty")
	case n > MaxQueryLen:
		return invalid("the query has %d characters; the limit is %d", n, MaxQueryLen)
	case !utf8.ValidString(q.Text):
		return invalid("the query is not valid UTF-8")
	}
	if q.K == 0 {
		q.K = DefaultK
	}
	if q.K < 1 || q.K > MaxK {
		return invalid("k must be between 1 and %d, got %d", MaxK, q.K)
	}
	if q.Mode == "" {
		q.Mode = Hybrid
	}
	switch q.Mode {
	case Hybrid, Vector, Lexical:
	default:
		return invalid("mode must be hybrid, vector or lexical, got %q", q.Mode)
	}
	if q.Since != nil && q.Until != nil && !q.Since.Before(*q.Until) {
		return invalid("since (%s) must be before until (%s)", q.Since.Format(time.RFC3339), q.Until.Format(time.RFC3339))
	}
	q.Host = strings.ToLower(strings.TrimSpace(q.Host))
	if h, _, err := net.SplitHostPort(q.Host); err == nil {
		q.Host = h // hosts are stored without their port: "127.0.0.1:18600" means 127.0.0.1
	}
	if len(q.Host) > maxHostLen || strings.ContainsAny(q.Host, " /?#") {
		return invalid("host %q is not a host name", q.Host)
	}
	q.Lang = strings.ToLower(strings.TrimSpace(q.Lang))
	if q.Lang != "" && !langPattern.MatchString(q.Lang) {
		return invalid("lang %q is not a language code like en or pt-br", q.Lang)
	}
	return nil
}

// CheckParams refuses parameters (names or values) that are not valid
// UTF-8 or hold a NUL: no API takes them, and PostgreSQL cannot store a NUL.
// The error is an invalid-query error (HTTP 400).
func CheckParams(v url.Values) error {
	for name, vals := range v {
		if !utf8.ValidString(name) || strings.IndexByte(name, 0) >= 0 {
			return invalid("a parameter name is not valid UTF-8 or holds a NUL: %q", name)
		}
		for _, val := range vals {
			if !utf8.ValidString(val) || strings.IndexByte(val, 0) >= 0 {
				return invalid("parameter %q is not valid UTF-8 or holds a NUL", name)
			}
		}
	}
	return nil
}

// ParseDate reads 2006-01-02 or an RFC 3339 time. A bare date as an upper
// bound (endOfDay) means the end of that day, so --until 2024-05-01
// includes articles of May 1st.
func ParseDate(s string, endOfDay bool) (*time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		if endOfDay {
			t = t.Add(dateOnlySpan)
		}
		return &t, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return &t, nil
	}
	return nil, invalid("date %q is not YYYY-MM-DD or RFC 3339 (2006-01-02T15:04:05Z)", s)
}

// ParseValues reads a query from URL parameters q, k, mode, since, until,
// host and lang, and validates it.
func ParseValues(v url.Values) (Query, error) {
	if err := CheckParams(v); err != nil {
		return Query{}, err
	}
	for name, vals := range v {
		if len(vals) > 1 {
			return Query{}, invalid("parameter %q is given %d times", name, len(vals))
		}
		if len(vals[0]) > maxParamBytes {
			return Query{}, invalid("parameter %q is longer than %d bytes", name, maxParamBytes)
		}
	}
	q := Query{Text: v.Get("q"), Mode: Mode(strings.ToLower(v.Get("mode"))), Host: v.Get("host"), Lang: v.Get("lang")}
	for _, f := range FacetFields {
		if val := v.Get(f.Param); val != "" {
			if q.Facets == nil {
				q.Facets = map[string]string{}
			}
			q.Facets[f.Field] = val
		}
	}
	if raw := v.Get("k"); raw != "" {
		k, err := strconv.Atoi(raw)
		if err != nil {
			return q, invalid("k must be an integer, got %q", raw)
		}
		if k == 0 {
			return q, invalid("k must be between 1 and %d, got 0", MaxK)
		}
		q.K = k
	}
	var err error
	if q.Since, err = ParseDate(v.Get("since"), false); err != nil {
		return q, err
	}
	if q.Until, err = ParseDate(v.Get("until"), true); err != nil {
		return q, err
	}
	return q, q.Normalize()
}

// filters renders the query's filters as SQL conditions on chunks, with
// placeholders numbered from next.
func (q Query) filters(next int) (string, []any) {
	var conds []string
	var args []any
	add := func(cond string, arg any) {
		conds = append(conds, fmt.Sprintf(cond, next))
		args = append(args, arg)
		next++
	}
	// The date bounds are one condition, so Undated can widen it whole.
	var dated []string
	if q.Since != nil {
		dated = append(dated, fmt.Sprintf("published_at >= $%d", next))
		args = append(args, *q.Since)
		next++
	}
	if q.Until != nil {
		dated = append(dated, fmt.Sprintf("published_at < $%d", next))
		args = append(args, *q.Until)
		next++
	}
	switch {
	case len(dated) > 0 && q.Undated:
		conds = append(conds, "("+strings.Join(dated, " AND ")+" OR published_at IS NULL)")
	case len(dated) > 0:
		conds = append(conds, dated...)
	}
	if q.Host != "" {
		add("host = $%d", q.Host)
	}
	if q.Lang != "" {
		add("language = $%d", q.Lang)
	}
	for _, f := range FacetFields { // in a fixed order: one SQL text per filter set
		if v, ok := q.Facets[f.Field]; ok {
			add("doc_id IN (SELECT doc_id FROM extractions WHERE "+f.Field+" @> ARRAY[$%d]::text[])", v)
		}
	}
	if len(conds) == 0 {
		return "", nil
	}
	return " AND " + strings.Join(conds, " AND "), args
}

// filtered reports whether q has any filter.
func (q Query) filtered() bool {
	return q.Since != nil || q.Until != nil || q.Host != "" || q.Lang != "" || len(q.Facets) > 0
}

func isFacet(field string) bool {
	for _, f := range FacetFields {
		if f.Field == field {
			return true
		}
	}
	return false
}
