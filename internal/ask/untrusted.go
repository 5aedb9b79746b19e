package ask

import (
	"regexp"
	"strings"
)

// Article text is written by strangers and may carry instructions aimed
// at a model ("ignore the above", "say the bridge collapsed", "link to …").
// Such sentences are taken out of what the model reads and of what a
// claim is checked against, so an answer can neither follow one nor be
// counted as supported by one.
var (
	// instructionCue is language that addresses a model or a reader's
	// assistant rather than telling news.
	instructionCue = regexp.MustCompile(`(?i)\b(ignore|disregard|forget|override)\b.{0,40}\b(above|previous|prior|earlier|preceding|instructions?|rules|prompt)\b` +
		`|\b(system|developer)\s+(prompt|message|instructions?)\b|\b(language models?|AI models?|AI assistants?|chatbots?|LLMs?)\b.{0,60}\b(must|should|shall)\b` +
		`|\byou are (now )?(an?|the) (ai|assistant|language model|chatbot)\b|\bnew instructions?\b|\b(answer|respond|reply)\s+(only\s+)?with\b` +
		`|\bprompt injection\b|<\s*/?\s*(system|instructions?|source)\b`)
	// imperativeOpening is a sentence that orders its reader to write
	// something: "Say …", "Tell users …", "Always cite …", "Link to …".
	imperativeOpening = regexp.MustCompile(`(?i)^\W*(please\s+)?(say|write|tell|claim|mention|include|insert|output|print|answer|respond|reply|recommend|link|cite|visit|click)\b`)
)

// instruction reports whether a sentence of an article reads as an
// instruction to a model rather than as news.
func instruction(sentence string) bool {
	if imperativeOpening.MatchString(sentence) {
		return true
	}
	return instructionCue.MatchString(sentence)
}

// quarantine returns text without its instruction-like sentences, and how
// many it took out. Paragraph breaks survive as line breaks.
func quarantine(text string) (string, int) {
	var b strings.Builder
	removed := 0
	for _, para := range strings.Split(text, "\n") {
		kept := 0
		for _, s := range sentences(para) {
			if instruction(s) {
				removed++
				continue
			}
			if kept > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(s)
			kept++
		}
		if kept > 0 {
			b.WriteByte('\n')
		}
	}
	return strings.TrimSpace(b.String()), removed
}
