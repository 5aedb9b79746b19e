package schema_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/newscrawl/newscrawl/internal/extract/schema"
)

const validAnswer = `{"title":"Storm hits coast","summary":"A storm hit the coast. Thousands lost power.","language":"EN","published_at":"2024-03-05","authors":["Jane Roe"],"people":["Ann Lee","Ann Lee"],"organizations":["Red Cross"],"locations":["Brest"],"topics":["weather","disaster_accident_emergency"],"keywords":["storm"],"sentiment":"negative","quotes":[{"speaker":"Ann Lee","text":"We were not ready."}]}`

func TestParse_AcceptsWrappedAnswers(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		answer string
	}{
		{"bare", validAnswer},
		{"fenced", "```json\n" + validAnswer + "\n```"},
		{"prose around", "Here is the JSON you asked for:\n" + validAnswer + "\nLet me know if you need more {details}."},
		{"think block", "<think>The user wants {json}. Let me think.</think>\n" + validAnswer},
		{"brace in string", strings.Replace(validAnswer, "Storm hits coast", "Storm } hits { coast", 1)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e, err := schema.Parse(tc.answer)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if e.Language == nil || *e.Language != "en" {
				t.Errorf("language = %v, want en (normalised)", e.Language)
			}
			if e.PublishedAt == nil || *e.PublishedAt != "2024-03-05T00:00:00Z" {
				t.Errorf("published_at = %v, want 2024-03-05T00:00:00Z", e.PublishedAt)
			}
			if len(e.People) != 1 {
				t.Errorf("people = %q, want the duplicate removed", e.People)
			}
		})
	}
}

func TestParse_RejectsInvalid(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name       string
		answer     string
		wantReason string
	}{
		{"no json", "I cannot help with that.", "single JSON object"},
		{"truncated", validAnswer[:len(validAnswer)-20], "single JSON object"},
		{"extra field", strings.Replace(validAnswer, `"title"`, `"exec":"rm -rf /","title"`, 1), "additional"},
		{"missing field", strings.Replace(validAnswer, `"sentiment":"negative",`, ``, 1), "sentiment"},
		{"bad sentiment", strings.Replace(validAnswer, `"negative"`, `"ecstatic"`, 1), "/sentiment"},
		{"unknown topic", strings.Replace(validAnswer, `"weather"`, `"gossip"`, 1), "/topics/0"},
		{"bad date", strings.Replace(validAnswer, `"2024-03-05"`, `"last Tuesday"`, 1), "published_at"},
		{"bad language", strings.Replace(validAnswer, `"EN"`, `"English"`, 1), "language"},
		{"wrong type", strings.Replace(validAnswer, `"authors":["Jane Roe"]`, `"authors":"Jane Roe"`, 1), "/authors"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := schema.Parse(tc.answer)
			var ie *schema.InvalidError
			if !errors.As(err, &ie) {
				t.Fatalf("Parse error = %v, want *InvalidError", err)
			}
			if !strings.Contains(ie.Reason, tc.wantReason) {
				t.Errorf("reason %q does not mention %q", ie.Reason, tc.wantReason)
			}
		})
	}
}

func TestDocument_IsStrictModeShaped(t *testing.T) {
	t.Parallel()
	var doc map[string]any
	if err := json.Unmarshal(schema.Document(), &doc); err != nil {
		t.Fatal(err)
	}
	props := doc["properties"].(map[string]any)
	req := doc["required"].([]any)
	if len(req) != len(props) {
		t.Fatalf("%d required for %d properties: strict mode needs all", len(req), len(props))
	}
	if doc["additionalProperties"] != false {
		t.Fatal("additionalProperties must be false")
	}
	if strings.Contains(string(schema.Document()), "$ref") {
		t.Fatal("schema must be flat (no $ref)")
	}
}

// FuzzParse checks that no answer crashes the parser and that whatever it
// accepts is bounded and re-validates.
func FuzzParse(f *testing.F) {
	f.Add(validAnswer)
	f.Add("```json\n" + validAnswer + "\n```trailing")
	f.Add(`{"a":{"b":"}"}} {"title":null}`)
	f.Add(`<think>{</think>{"x":1}`)
	f.Add(`{"title":"\u0000\ud800"}`)
	f.Fuzz(func(t *testing.T, answer string) {
		e, err := schema.Parse(answer)
		if err != nil {
			var ie *schema.InvalidError
			if !errors.As(err, &ie) {
				t.Fatalf("error %v is not an *InvalidError", err)
			}
			return
		}
		if len(e.People) > schema.MaxEntities || len(e.Quotes) > schema.MaxQuotes || len(e.Keywords) > schema.MaxKeywords {
			t.Fatalf("unbounded lists: %d people, %d quotes, %d keywords", len(e.People), len(e.Quotes), len(e.Keywords))
		}
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := schema.Validate(b); err != nil {
			t.Fatalf("accepted extraction does not re-validate: %v\n%s", err, b)
		}
	})
}
