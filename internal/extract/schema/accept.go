package schema

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"golang.org/x/text/language"
	"golang.org/x/text/language/display"
)

// An Invalid is an optional field of a model's answer that did not
// validate even after coercion: it was set to null (or emptied) rather than
// stored invalid, and is recorded with why.
type Invalid struct {
	Field  string `json:"field"`
	Reason string `json:"reason"`
}

func (i Invalid) String() string { return i.Field + ": " + i.Reason }

// Accept is the tolerant reading of a model's answer: it validates field by
// field. An answer that is a JSON object with a usable core — a non-empty
// summary — is accepted; each optional field that does not validate is
// first coerced where the mistake is harmless (case of an enum value, a
// language name for its ISO code, a date in another common format, a single
// string where a list is expected), and otherwise dropped and reported in
// invalid. Only an answer without JSON or without a summary is an
// *InvalidError: the one case worth a repair request.
func Accept(answer string) (e Extraction, invalid []Invalid, err error) {
	if len(answer) > maxAnswerBytes {
		return e, nil, invalidf(nil, "the answer is %d bytes, over the %d-byte limit", len(answer), maxAnswerBytes)
	}
	raw, err := FindObject(answer)
	if err != nil {
		return e, nil, invalidf(err, "the answer must be a single JSON object and nothing else")
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return e, nil, invalidf(err, "the JSON does not parse as an object: %v", err)
	}
	a := accepter{fields: fields}
	e.Summary = a.text("summary")
	if e.Summary == nil {
		return Extraction{}, nil, invalidf(nil, `at /summary: a non-empty summary is required`)
	}
	e.Title = a.text("title")
	e.Language = a.language()
	e.PublishedAt = a.date()
	e.Sentiment = a.enum("sentiment", Sentiments)
	e.Authors = a.list("authors")
	e.People = a.list("people")
	e.Organizations = a.list("organizations")
	e.Locations = a.list("locations")
	e.Keywords = a.list("keywords")
	e.Topics = a.topics()
	e.Quotes = a.quotes()
	if err := e.normalise(); err != nil { // coerced above, so it cannot fail; kept as a guard
		return Extraction{}, nil, err
	}
	sort.Slice(a.invalid, func(i, j int) bool { return a.invalid[i].Field < a.invalid[j].Field })
	return e, a.invalid, nil
}

func invalidf(err error, format string, args ...any) error { return invalid(err, format, args...) }

// accepter reads fields one by one, recording what it drops.
type accepter struct {
	fields  map[string]json.RawMessage
	invalid []Invalid
}

func (a *accepter) drop(field, format string, args ...any) {
	a.invalid = append(a.invalid, Invalid{Field: field, Reason: fmt.Sprintf(format, args...)})
}

// value decodes a field into v; absent and null fields are (false, nil).
func (a *accepter) value(field string, v any) bool {
	raw, ok := a.fields[field]
	if !ok || string(raw) == "null" {
		return false
	}
	return json.Unmarshal(raw, v) == nil
}

// text is a string field; a number is taken as its text, anything else dropped.
func (a *accepter) text(field string) *string {
	raw, ok := a.fields[field]
	if !ok || string(raw) == "null" {
		return nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		var n json.Number
		if json.Unmarshal(raw, &n) != nil {
			a.drop(field, "not a string")
			return nil
		}
		s = n.String()
	}
	s = strings.TrimSpace(s)
	if s == "" || placeholder(s) {
		if s != "" {
			a.drop(field, "placeholder %q", clip(s, 60))
		}
		return nil
	}
	return &s
}

// placeholder reports the filler small models put in fields they do not
// know ("Sample language", "N/A", "unknown", "string").
func placeholder(s string) bool {
	l := strings.ToLower(strings.Trim(s, " .<>[]()\"'"))
	switch l {
	case "n/a", "na", "none", "null", "unknown", "string", "example", "tbd", "-", "?", "not available", "not specified", "not mentioned":
		return true
	}
	for _, p := range []string{"sample ", "example ", "placeholder", "your ", "insert ", "lorem ipsum"} {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	return false
}

// list is a list of strings; a single string becomes a one-item list and
// non-string items are dropped.
func (a *accepter) list(field string) []string {
	raw, ok := a.fields[field]
	if !ok || string(raw) == "null" {
		return []string{}
	}
	var one string
	if json.Unmarshal(raw, &one) == nil {
		if one = strings.TrimSpace(one); one == "" || placeholder(one) {
			return []string{}
		}
		return []string{one}
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		a.drop(field, "not a list")
		return []string{}
	}
	out := make([]string, 0, len(items))
	bad := 0
	for _, it := range items {
		var s string
		if json.Unmarshal(it, &s) != nil || placeholder(s) {
			bad++
			continue
		}
		out = append(out, s)
	}
	if bad > 0 {
		a.drop(field, "%d of %d items not usable strings", bad, len(items))
	}
	return out
}

// enum is a string field that must be one of allowed, case-insensitively.
func (a *accepter) enum(field string, allowed []string) *string {
	s := a.text(field)
	if s == nil {
		return nil
	}
	for _, v := range allowed {
		if strings.EqualFold(strings.TrimSpace(*s), v) {
			return &v
		}
	}
	a.drop(field, "%q is not one of %s", clip(*s, 60), strings.Join(allowed, ", "))
	return nil
}

// language is an ISO 639-1 code; a tag with a region (en-GB) or an
// unambiguous English language name (German) is turned into its code.
func (a *accepter) language() *string {
	s := a.text("language")
	if s == nil {
		return nil
	}
	l := strings.ToLower(strings.TrimSpace(*s))
	if i := strings.IndexAny(l, "-_"); i == 2 {
		l = l[:2]
	}
	if langCode.MatchString(l) {
		if _, err := language.ParseBase(l); err == nil {
			return &l
		}
	}
	if code, ok := languageNames()[l]; ok {
		return &code
	}
	a.drop("language", "%q is not an ISO 639-1 code or a language name", clip(*s, 60))
	return nil
}

var (
	namesOnce sync.Once
	names     map[string]string
)

// languageNames maps lower-case English names of the ISO 639-1 languages
// ("german") and their own names ("deutsch") to their codes.
func languageNames() map[string]string {
	namesOnce.Do(func() {
		names = map[string]string{}
		for a := 'a'; a <= 'z'; a++ {
			for b := 'a'; b <= 'z'; b++ {
				code := string([]rune{a, b})
				base, err := language.ParseBase(code)
				if err != nil || base.String() != code {
					continue
				}
				tag := language.Make(code)
				for _, n := range []string{display.English.Languages().Name(tag), display.Self.Name(tag)} {
					if n = strings.ToLower(n); n != "" {
						if _, taken := names[n]; !taken {
							names[n] = code
						}
					}
				}
			}
		}
	})
	return names
}

// moreDateLayouts are other common forms a model writes a date in.
var moreDateLayouts = []string{time.RFC1123Z, time.RFC1123, time.RFC850, "January 2, 2006", "2 January 2006",
	"Jan 2, 2006", "2 Jan 2006", "2006/01/02", "2006.01.02", "20060102"}

// date is published_at as ISO 8601; other common layouts are converted.
func (a *accepter) date() *string {
	s := a.text("published_at")
	if s == nil {
		return nil
	}
	if t, ok := ParseDate(*s); ok {
		v := t.Format(time.RFC3339)
		return &v
	}
	for _, l := range moreDateLayouts {
		if t, err := time.Parse(l, strings.TrimSpace(*s)); err == nil {
			v := t.UTC().Format(time.RFC3339)
			return &v
		}
	}
	a.drop("published_at", "%q is not a date", clip(*s, 60))
	return nil
}

// topics keeps the items that name a topic code, case-insensitively.
func (a *accepter) topics() []string {
	items := a.list("topics")
	codes := TopicCodes()
	out := make([]string, 0, len(items))
	bad := 0
	for _, it := range items {
		k := strings.ReplaceAll(strings.ToLower(strings.TrimSpace(it)), " ", "_")
		found := false
		for _, c := range codes {
			if k == c {
				out = append(out, c)
				found = true
				break
			}
		}
		if !found {
			bad++
		}
	}
	if bad > 0 {
		a.drop("topics", "%d of %d not among the topic codes", bad, len(items))
	}
	return out
}

// quotes keeps {speaker, text} objects with a text; a bare string is a
// quote without a speaker.
func (a *accepter) quotes() []Quote {
	var items []json.RawMessage
	if !a.value("quotes", &items) {
		if _, ok := a.fields["quotes"]; ok && string(a.fields["quotes"]) != "null" {
			a.drop("quotes", "not a list")
		}
		return []Quote{}
	}
	out := make([]Quote, 0, len(items))
	bad := 0
	for _, it := range items {
		var q struct {
			Speaker any    `json:"speaker"`
			Text    string `json:"text"`
		}
		var s string
		switch {
		case json.Unmarshal(it, &s) == nil && strings.TrimSpace(s) != "":
			out = append(out, Quote{Text: s})
		case json.Unmarshal(it, &q) == nil && strings.TrimSpace(q.Text) != "":
			quote := Quote{Text: q.Text}
			if sp, ok := q.Speaker.(string); ok && !placeholder(sp) {
				quote.Speaker = &sp
			}
			out = append(out, quote)
		default:
			bad++
		}
	}
	if bad > 0 {
		a.drop("quotes", "%d of %d not usable quotes", bad, len(items))
	}
	return out
}
