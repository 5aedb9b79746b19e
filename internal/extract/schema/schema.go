// Package schema defines the versioned JSON Schema of an extraction, the Go
// type it decodes to, and the parser that turns a model's answer into a
// validated, normalised Extraction (or an error a repair prompt can quote).
package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Version is the schema's version; it is part of every extraction's
// idempotency key, so a new version re-extracts on replay.
const Version = 1

// Name names the schema in response_format.json_schema.name.
const Name = "news_extraction_v1"

// Limits applied when normalising; longer lists and strings are cut, not rejected.
const (
	MaxEntities   = 50
	MaxKeywords   = 20
	MaxQuotes     = 10
	MaxTopics     = 5
	MaxShortChars = 200  // a name, a keyword
	MaxTitleChars = 500  // a title
	MaxLongChars  = 2000 // a summary, a quote
)

// Sentiments allowed in the sentiment field.
var Sentiments = []string{"negative", "neutral", "positive"}

// Document returns the JSON Schema as sent to the model and used for
// validation: flat, every property required, optional values as null
// unions, no $ref and no keyword that strict structured-output modes reject.
func Document() []byte { return []byte(document()) }

func document() string {
	docOnce.Do(func() {
		topics, _ := json.Marshal(TopicCodes())
		docText = strings.NewReplacer("@TOPICS@", string(topics)).Replace(documentTemplate)
	})
	return docText
}

var (
	docOnce sync.Once
	docText string
)

const documentTemplate = `{
  "title": "News article extraction, schema version 1",
  "type": "object",
  "additionalProperties": false,
  "required": ["title", "summary", "language", "published_at", "authors", "people", "organizations", "locations", "topics", "keywords", "sentiment", "quotes"],
  "properties": {
    "title":         {"type": ["string", "null"], "description": "The article's headline, or null."},
    "summary":       {"type": ["string", "null"], "description": "A neutral 2-3 sentence summary of the article, or null if there is no article text."},
    "language":      {"type": ["string", "null"], "description": "ISO 639-1 two-letter code of the article's language, lower case, or null."},
    "published_at":  {"type": ["string", "null"], "description": "Publication date-time in ISO 8601 (2024-03-05T14:00:00Z or 2024-03-05), or null if the text does not say."},
    "authors":       {"type": "array", "items": {"type": "string"}, "description": "Bylined authors; empty if none."},
    "people":        {"type": "array", "items": {"type": "string"}, "description": "Full names of people mentioned in the article."},
    "organizations": {"type": "array", "items": {"type": "string"}, "description": "Organizations mentioned in the article."},
    "locations":     {"type": "array", "items": {"type": "string"}, "description": "Places mentioned in the article."},
    "topics":        {"type": "array", "items": {"type": "string", "enum": @TOPICS@}, "description": "1-3 IPTC media topics that fit the article."},
    "keywords":      {"type": "array", "items": {"type": "string"}, "description": "Up to 10 key phrases, most important first."},
    "sentiment":     {"type": ["string", "null"], "enum": ["negative", "neutral", "positive", null], "description": "Overall tone of the article."},
    "quotes": {
      "type": "array",
      "description": "Notable direct quotes, copied verbatim from the article.",
      "items": {
        "type": "object",
        "additionalProperties": false,
        "required": ["speaker", "text"],
        "properties": {
          "speaker": {"type": ["string", "null"], "description": "Who said it, or null if the article does not say."},
          "text":    {"type": "string", "description": "The quoted words, verbatim."}
        }
      }
    }
  }
}`

// An Extraction is the structured data of one article (schema version 1).
// Unsupported fields are nil or empty, never invented.
type Extraction struct {
	Title         *string  `json:"title"`
	Summary       *string  `json:"summary"`
	Language      *string  `json:"language"`
	PublishedAt   *string  `json:"published_at"`
	Authors       []string `json:"authors"`
	People        []string `json:"people"`
	Organizations []string `json:"organizations"`
	Locations     []string `json:"locations"`
	Topics        []string `json:"topics"`
	Keywords      []string `json:"keywords"`
	Sentiment     *string  `json:"sentiment"`
	Quotes        []Quote  `json:"quotes"`
}

// A Quote is a verbatim quotation and its speaker when the text names one.
type Quote struct {
	Speaker *string `json:"speaker"`
	Text    string  `json:"text"`
}

var (
	compileOnce sync.Once
	compiled    *jsonschema.Schema
	compileErr  error
)

// validator compiles the schema document once.
func validator() (*jsonschema.Schema, error) {
	compileOnce.Do(func() {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(Document()))
		if err != nil {
			compileErr = fmt.Errorf("decode extraction schema: %w", err)
			return
		}
		c := jsonschema.NewCompiler()
		if err := c.AddResource("extraction.json", doc); err != nil {
			compileErr = fmt.Errorf("add extraction schema: %w", err)
			return
		}
		compiled, compileErr = c.Compile("extraction.json")
		if compileErr != nil {
			compileErr = fmt.Errorf("compile extraction schema: %w", compileErr)
		}
	})
	return compiled, compileErr
}
