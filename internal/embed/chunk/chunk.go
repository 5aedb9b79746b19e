// Package chunk splits article text into overlapping, paragraph- and
// sentence-aware chunks sized for an embedding model's context window.
package chunk

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Defaults, sized for 512-token embedding models: a chunk plus its title
// prefix stays well under 512 tokens.
const (
	DefaultTargetTokens  = 350
	DefaultOverlapTokens = 50
	minTargetTokens      = 16
)

// Config sizes chunks. A zero TargetTokens takes DefaultTargetTokens; a
// zero OverlapTokens is no overlap (DefaultOverlapTokens is what the
// embedder's EMBED_CHUNK_OVERLAP starts from). Overlap is clamped below
// half of Target.
type Config struct {
	TargetTokens  int // estimated tokens per chunk body (title excluded)
	OverlapTokens int // estimated tokens repeated from the end of the previous chunk; 0: none
}

func (c Config) withDefaults() Config {
	if c.TargetTokens <= 0 {
		c.TargetTokens = DefaultTargetTokens
	}
	c.TargetTokens = max(c.TargetTokens, minTargetTokens)
	c.OverlapTokens = min(max(c.OverlapTokens, 0), c.TargetTokens/2)
	return c
}

// A Chunk is one piece of an article's text.
type Chunk struct {
	Index int    // position in the article, from 0
	Start int    // offset of the first character in the article text, in runes
	End   int    // offset just past the last character, in runes
	Text  string // the body: the article text between Start and End
	Input string // what is embedded: the title, a blank line, then Text
}

// Split cuts text into chunks of about cfg.TargetTokens estimated tokens,
// never splitting inside a sentence unless the sentence alone is too long
// (then inside a word only when the word alone is too long). Each chunk's
// Input is prefixed with title. Text that is empty or only whitespace
// yields no chunks.
func Split(cfg Config, title, text string) []Chunk {
	cfg = cfg.withDefaults()
	us := units(text, cfg.TargetTokens)
	if len(us) == 0 {
		return nil
	}
	var chunks []Chunk
	var runes runeCounter
	first := 0 // first unit of the chunk being built
	for first < len(us) {
		last, tokens := first, us[first].tokens
		for last+1 < len(us) && tokens+us[last+1].tokens <= cfg.TargetTokens {
			last++
			tokens += us[last].tokens
		}
		chunks = append(chunks, makeChunk(len(chunks), title, text, us[first], us[last], &runes))
		if last == len(us)-1 {
			break
		}
		// Start the next chunk with the trailing units that fit the overlap,
		// but always move forward by at least one unit.
		next, overlap := last+1, 0
		for next-1 > first && overlap+us[next-1].tokens <= cfg.OverlapTokens {
			next--
			overlap += us[next].tokens
		}
		first = next
	}
	return chunks
}

func makeChunk(i int, title, text string, from, to unit, runes *runeCounter) Chunk {
	body := text[from.start:to.end]
	input := body
	if t := strings.TrimSpace(title); t != "" {
		input = t + "\n\n" + body
	}
	start := runes.at(text, from.start)
	return Chunk{
		Index: i,
		Start: start,
		End:   start + utf8.RuneCountInString(body),
		Text:  body,
		Input: input,
	}
}

// A runeCounter converts increasing byte offsets to rune offsets in one
// pass over the text.
type runeCounter struct{ byteOff, runeOff int }

func (c *runeCounter) at(text string, byteOff int) int {
	if byteOff < c.byteOff { // overlap stepped back: count from the start
		c.byteOff, c.runeOff = 0, 0
	}
	c.runeOff += utf8.RuneCountInString(text[c.byteOff:byteOff])
	c.byteOff = byteOff
	return c.runeOff
}

// EstimateTokens approximates a subword tokenizer's count: about four
// characters per token for alphabetic scripts, one per character for
// scripts written without spaces (CJK, Thai), at least one per word.
func EstimateTokens(s string) int {
	return tokens(count(s))
}

// count returns s's size in quarter tokens and its number of words.
func count(s string) (quarter, words int) {
	inWord := false
	for _, r := range s {
		switch {
		case unicode.IsSpace(r):
			inWord = false
			continue
		case dense(r):
			quarter += 4
		default:
			quarter++
		}
		if !inWord {
			words++
			inWord = true
		}
	}
	return quarter, words
}

func tokens(quarter, words int) int { return max((quarter+3)/4, words) }

// dense reports runes that tokenizers count about one token each.
func dense(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul, unicode.Thai, unicode.Lao, unicode.Khmer, unicode.Myanmar)
}
