// Package pipeline names the four stages, their streams and groups, and the
// fields of the messages that flow between them (claim checks: payloads
// live in Postgres, messages carry references).
package pipeline

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/newscrawl/newscrawl/pkg/streamkit"
)

// Stages, in pipeline order. A stage's name names its input stream.
const (
	Crawl   = "crawl"   // crawl requests: URLs to fetch (seeds and discovered links)
	Clean   = "clean"   // fetched pages to clean
	Extract = "extract" // cleaned articles to extract facts from
	Embed   = "embed"   // extracted articles to chunk and embed
)

// Consumer groups, one per binary.
const (
	CrawlerGroup   = "crawler"
	CleanerGroup   = "cleaner"
	ExtractorGroup = "extractor"
	EmbedderGroup  = "embedder"
)

// Message fields shared between stages (streamkit adds "attempt").
const (
	FieldDocID       = streamkit.FieldDocID       // stable id derived from the normalized URL
	FieldContentHash = streamkit.FieldContentHash // hash of the stage's input content
	FieldURL         = "url"
)

// Stages lists every stage with its group, in pipeline order.
func Stages() []streamkit.StageRef {
	return []streamkit.StageRef{
		{Stage: Crawl, Group: CrawlerGroup},
		{Stage: Clean, Group: CleanerGroup},
		{Stage: Extract, Group: ExtractorGroup},
		{Stage: Embed, Group: EmbedderGroup},
	}
}

// DocID derives a document's stable id from its normalized URL:
// the first 128 bits of SHA-256, hex.
func DocID(normalizedURL string) string {
	sum := sha256.Sum256([]byte(normalizedURL))
	return hex.EncodeToString(sum[:16])
}

// ContentHash is the SHA-256 of content, hex.
func ContentHash(content []byte) string {
	sum := sha256.Sum256(content)
	return hex.EncodeToString(sum[:])
}
