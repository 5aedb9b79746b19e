package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// ErrNoJSON means the answer holds no JSON object at all.
var ErrNoJSON = errors.New("no JSON object in the answer")

// An InvalidError says why an answer was rejected, in words a repair prompt
// can show the model.
type InvalidError struct {
	Reason string
	Err    error
}

func (e *InvalidError) Error() string { return "invalid extraction: " + e.Reason }
func (e *InvalidError) Unwrap() error { return e.Err }

func invalid(err error, format string, args ...any) error {
	return &InvalidError{Reason: fmt.Sprintf(format, args...), Err: err}
}

// maxAnswerBytes bounds what Parse looks at; a larger answer is rejected.
const maxAnswerBytes = 1 << 20

// Parse finds the JSON object in a model's answer (tolerating <think>
// blocks, Markdown fences and text before or after it), validates it
// against the schema and returns it normalised. Every failure is an
// *InvalidError.
func Parse(answer string) (Extraction, error) {
	if len(answer) > maxAnswerBytes {
		return Extraction{}, invalid(nil, "the answer is %d bytes, over the %d-byte limit", len(answer), maxAnswerBytes)
	}
	raw, err := FindObject(answer)
	if err != nil {
		return Extraction{}, invalid(err, "the answer must be a single JSON object and nothing else")
	}
	return Validate(raw)
}

// Validate checks one JSON object against the schema and returns it normalised.
func Validate(raw []byte) (Extraction, error) {
	sch, err := validator()
	if err != nil {
		return Extraction{}, err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return Extraction{}, invalid(err, "the JSON does not parse: %v", err)
	}
	if err := sch.Validate(doc); err != nil {
		var ve *jsonschema.ValidationError
		if errors.As(err, &ve) {
			return Extraction{}, invalid(err, "the JSON does not match the schema: %s", violationText(ve))
		}
		return Extraction{}, invalid(err, "the JSON does not match the schema: %v", err)
	}
	var e Extraction
	if err := json.Unmarshal(raw, &e); err != nil {
		return Extraction{}, invalid(err, "the JSON does not decode: %v", err)
	}
	if err := e.normalise(); err != nil {
		return Extraction{}, err
	}
	return e, nil
}

// violationText flattens a validation error into one line per leaf cause.
func violationText(ve *jsonschema.ValidationError) string {
	var leaves []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			loc := "/" + strings.Join(e.InstanceLocation, "/")
			leaves = append(leaves, fmt.Sprintf("at %s: %s", loc, e.ErrorKind.LocalizedString(printer)))
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	if len(leaves) > 10 {
		leaves = append(leaves[:10], fmt.Sprintf("and %d more", len(leaves)-10))
	}
	return strings.Join(leaves, "; ")
}

var printer = message.NewPrinter(language.English)

var thinkBlock = regexp.MustCompile(`(?s)<think>.*?</think>`)

// maxCandidates bounds how many '{' FindObject tries, keeping it linear.
const maxCandidates = 32

// FindObject returns the first complete top-level JSON object in s, after
// removing <think>…</think> blocks. Text around it (fences, prose) is
// ignored; a truncated object is ErrNoJSON.
func FindObject(s string) ([]byte, error) {
	s = thinkBlock.ReplaceAllString(s, "")
	tries := 0
	for start := strings.IndexByte(s, '{'); start >= 0 && tries < maxCandidates; tries++ {
		end := objectEnd(s[start:])
		if end > 0 {
			cand := s[start : start+end]
			if json.Valid([]byte(cand)) {
				return []byte(cand), nil
			}
		}
		next := strings.IndexByte(s[start+1:], '{')
		if next < 0 {
			break
		}
		start += 1 + next
	}
	return nil, ErrNoJSON
}

// objectEnd returns the length of the balanced {...} at the start of s,
// skipping braces inside strings, or 0 when it never closes.
func objectEnd(s string) int {
	depth, inStr, esc := 0, false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case esc:
			esc = false
		case inStr && c == '\\':
			esc = true
		case c == '"':
			inStr = !inStr
		case inStr:
		case c == '{':
			depth++
		case c == '}':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return 0
}

var langCode = regexp.MustCompile(`^[a-z]{2}$`)

// dateLayouts are the ISO 8601 forms accepted for published_at.
var dateLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02 15:04:05", "2006-01-02"}

// ParseDate parses an ISO 8601 date or date-time; zone-less values are UTC.
func ParseDate(s string) (time.Time, bool) {
	for _, l := range dateLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}

// normalise trims, de-duplicates and bounds every field and checks the
// formats the schema leaves to us (language code, ISO date).
func (e *Extraction) normalise() error {
	e.Title = clipPtr(e.Title, MaxTitleChars)
	e.Summary = clipPtr(e.Summary, MaxLongChars)
	e.Language = clipPtr(e.Language, MaxShortChars)
	if e.Language != nil {
		l := strings.ToLower(*e.Language)
		if i := strings.IndexAny(l, "-_"); i == 2 { // en-GB → en
			l = l[:2]
		}
		if !langCode.MatchString(l) {
			return invalid(nil, "at /language: %q is not a two-letter ISO 639-1 code (use null if unknown)", *e.Language)
		}
		e.Language = &l
	}
	e.PublishedAt = clipPtr(e.PublishedAt, MaxShortChars)
	if e.PublishedAt != nil {
		t, ok := ParseDate(*e.PublishedAt)
		if !ok {
			return invalid(nil, "at /published_at: %q is not an ISO 8601 date (use null if the text gives none)", *e.PublishedAt)
		}
		s := t.Format(time.RFC3339)
		e.PublishedAt = &s
	}
	e.Sentiment = clipPtr(e.Sentiment, MaxShortChars)
	e.Authors = cleanList(e.Authors, MaxEntities, MaxShortChars)
	e.People = cleanList(e.People, MaxEntities, MaxShortChars)
	e.Organizations = cleanList(e.Organizations, MaxEntities, MaxShortChars)
	e.Locations = cleanList(e.Locations, MaxEntities, MaxShortChars)
	e.Topics = cleanList(e.Topics, MaxTopics, MaxShortChars)
	e.Keywords = cleanList(e.Keywords, MaxKeywords, MaxShortChars)
	quotes := make([]Quote, 0, len(e.Quotes))
	seen := map[string]bool{}
	for _, q := range e.Quotes {
		q.Text = clip(strings.TrimSpace(q.Text), MaxLongChars)
		q.Speaker = clipPtr(q.Speaker, MaxShortChars)
		if q.Text == "" || seen[q.Text] || len(quotes) == MaxQuotes {
			continue
		}
		seen[q.Text] = true
		quotes = append(quotes, q)
	}
	e.Quotes = quotes
	return nil
}

// Normalise applies Validate's normalisation to an Extraction built in Go
// (the heuristic provider) so both providers store the same shapes.
func (e *Extraction) Normalise() error { return e.normalise() }

func clipPtr(p *string, n int) *string {
	if p == nil {
		return nil
	}
	s := clip(strings.TrimSpace(*p), n)
	if s == "" {
		return nil
	}
	return &s
}

// clip cuts s to at most n bytes on a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n]
	for len(s) > 0 && !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s
}

// cleanList trims, drops empties and case-insensitive duplicates, and
// bounds the list; it never returns nil.
func cleanList(in []string, maxItems, maxChars int) []string {
	out := make([]string, 0, min(len(in), maxItems))
	seen := map[string]bool{}
	for _, s := range in {
		s = clip(strings.Join(strings.Fields(s), " "), maxChars)
		k := strings.ToLower(s)
		if s == "" || seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, s)
		if len(out) == maxItems {
			break
		}
	}
	return out
}
