// Package pipeline names the four stages, their streams and groups, and the
// fields of the messages that flow between them (claim checks: payloads
// live in Postgres, messages carry references).
package pipeline

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/newscrawl/newscrawl/pkg/streamkit"
)

// Stages, in pipeline order. A stage's name names its input stream.
const (
	Crawl   = "crawl"   // crawl requests: URLs to fetch (seeds and discovered links)
	Clean   = "clean"   // fetched pages to clean
	Extract = "extract" // cleaned articles to extract facts from
	Embed   = "embed"   // extracted articles to chunk and embed
	// Render is off the main line: pages the cleaner found script-built go
	// to the renderer, whose DOM comes back to Clean (RENDER, docs/RENDERER.md).
	Render = "render"
)

// Consumer groups, one per binary.
const (
	CrawlerGroup   = "crawler"
	CleanerGroup   = "cleaner"
	ExtractorGroup = "extractor"
	EmbedderGroup  = "embedder"
	RendererGroup  = "renderer"
)

// Message fields shared between stages (streamkit adds "attempt"). A
// document has two hashes, each with its own name everywhere (fields,
// columns, Go names): the clean stream's messages carry the body hash,
// the extract and embed streams' the text hash.
const (
	FieldDocID    = streamkit.FieldDocID // stable id derived from the normalized URL
	FieldBodyHash = "body_hash"          // BodyHash of the fetched body: on clean messages
	FieldTextHash = "text_hash"          // TextHash of the cleaned text: on extract and embed messages
	FieldURL      = "url"
	// FieldRendered marks a clean message whose body_hash names a rendered
	// DOM (the rendered table), not the fetched body: "1". Such a page is
	// never sent to the renderer again.
	FieldRendered = "rendered"

	// FieldLegacyHash is the name both hashes had before they were told
	// apart. It is read, never written: messages sent before the rename
	// (entries in flight, retry sets, dead letters replayed) still carry
	// it, with the value the new field now holds (see MessageHash).
	FieldLegacyHash = "content_hash"
)

// Stages lists every stage with its group, in pipeline order, the
// renderer's (off the main line) last.
func Stages() []streamkit.StageRef {
	return []streamkit.StageRef{
		{Stage: Crawl, Group: CrawlerGroup},
		{Stage: Clean, Group: CleanerGroup},
		{Stage: Extract, Group: ExtractorGroup},
		{Stage: Embed, Group: EmbedderGroup},
		{Stage: Render, Group: RendererGroup},
	}
}

// DocID derives a document's stable id from its normalized URL:
// the first 128 bits of SHA-256, hex.
func DocID(normalizedURL string) string {
	sum := sha256.Sum256([]byte(normalizedURL))
	return hex.EncodeToString(sum[:16])
}

// BodyHash is the hash of a fetched body (documents.body_hash): its
// SHA-256, hex. A refetch that returns the same bytes has the same one.
func BodyHash(body []byte) string { return sha256Hex(body) }

// TextHash is the hash of an article's cleaned text (cleaned.text_hash):
// the SHA-256, hex, of the text lower-cased with its runs of white space
// made one space, so copies that differ only there share it (the cleaner's
// exact duplicates).
func TextHash(text string) string {
	return sha256Hex([]byte(strings.Join(strings.Fields(strings.ToLower(text)), " ")))
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// HashField names the hash field of stage's messages: FieldBodyHash for
// Clean (the page to clean), FieldTextHash for Extract and Embed (the
// text to extract from or embed); "" for Crawl, whose requests carry none.
func HashField(stage string) string {
	switch stage {
	case Clean, Render:
		return FieldBodyHash
	case Extract, Embed:
		return FieldTextHash
	}
	return ""
}

// MessageHash returns the hash a message carries in field (FieldBodyHash
// or FieldTextHash) or, for a message sent before the rename, in
// FieldLegacyHash. Without either it returns a bad-message error naming
// both, which dead-letters the message.
func MessageHash(m *streamkit.Message, field string) (string, error) {
	if v := m.Get(field); v != "" {
		return v, nil
	}
	if v := m.Get(FieldLegacyHash); v != "" {
		return v, nil
	}
	return "", streamkit.Permanent(streamkit.ErrorTypeBadMessage,
		fmt.Errorf("message %s: missing field %q (or its old name %q)", m.ID, field, FieldLegacyHash))
}

// LedgerKey is the idempotency key of stage's work on a document's content
// with hash: stage:doc_id:hash, then :version when there is one. The live
// path's messages from before the hash fields were renamed have the same
// keys: the values did not change. (reconcile builds them in SQL.)
func LedgerKey(stage, docID, hash, version string) string {
	k := stage + ":" + docID + ":" + hash
	if version != "" {
		k += ":" + version
	}
	return k
}

// HashKey returns the streamkit.KeyFunc of a stage whose messages carry
// their hash in field: LedgerKey of the message's doc_id and MessageHash.
// A message without a doc_id or a hash is a bad message.
func HashKey(field string) streamkit.KeyFunc {
	return func(stage, version string, m *streamkit.Message) (string, error) {
		doc, err := m.Require(FieldDocID)
		if err != nil {
			return "", err
		}
		hash, err := MessageHash(m, field)
		if err != nil {
			return "", err
		}
		return LedgerKey(stage, doc, hash, version), nil
	}
}
