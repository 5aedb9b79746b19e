package chunk

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// A unit is the smallest piece chunks are packed from: a paragraph, or a
// sentence of a long paragraph, or a run of words of a long sentence.
// start and end are byte offsets into the text, whitespace trimmed.
type unit struct {
	start, end int
	tokens     int
}

// units splits text into units of at most target estimated tokens.
func units(text string, target int) []unit {
	var out []unit
	for _, p := range spans(text, 0, len(text), paragraphEnd) {
		if p.tokens(text) <= target {
			out = append(out, p.unit(text))
			continue
		}
		for _, s := range spans(text, p.start, p.end, sentenceEnd) {
			if s.tokens(text) <= target {
				out = append(out, s.unit(text))
				continue
			}
			out = append(out, splitWords(text, s, target)...)
		}
	}
	return out
}

// A span is a trimmed, non-empty byte range of the text.
type span struct{ start, end int }

func (s span) tokens(text string) int { return EstimateTokens(text[s.start:s.end]) }
func (s span) unit(text string) unit  { return unit{s.start, s.end, s.tokens(text)} }

// spans cuts text[from:to] after every boundary that isEnd reports and
// returns the trimmed, non-empty pieces. isEnd gets the rune at i and its
// successor and returns the offset just past the boundary, or -1.
func spans(text string, from, to int, isEnd func(text string, i, to int) int) []span {
	var out []span
	start := from
	for i := from; i < to; {
		_, size := utf8.DecodeRuneInString(text[i:])
		if cut := isEnd(text, i, to); cut > 0 {
			out = appendTrimmed(out, text, start, cut)
			start, i = cut, cut
			continue
		}
		i += size
	}
	return appendTrimmed(out, text, start, to)
}

func appendTrimmed(out []span, text string, start, end int) []span {
	for start < end {
		r, size := utf8.DecodeRuneInString(text[start:end])
		if !unicode.IsSpace(r) {
			break
		}
		start += size
	}
	for end > start {
		r, size := utf8.DecodeLastRuneInString(text[start:end])
		if !unicode.IsSpace(r) {
			break
		}
		end -= size
	}
	if start < end {
		out = append(out, span{start, end})
	}
	return out
}

// paragraphEnd ends a paragraph at every line break.
func paragraphEnd(text string, i, to int) int {
	if text[i] == '\n' {
		return i + 1
	}
	return -1
}

// sentenceEnd ends a sentence after . ! ? … (and closing quotes or
// brackets) followed by whitespace, or right after a CJK full stop.
func sentenceEnd(text string, i, to int) int {
	r, size := utf8.DecodeRuneInString(text[i:to])
	switch r {
	case '。', '！', '？':
		return i + size
	case '.', '!', '?', '…':
	default:
		return -1
	}
	j := i + size
	for j < to {
		c, n := utf8.DecodeRuneInString(text[j:to])
		if strings.ContainsRune(`"'”’)]»`, c) {
			j += n
			continue
		}
		if unicode.IsSpace(c) {
			return j
		}
		return -1
	}
	return -1
}

// splitWords cuts a too-long sentence into runs of whole words of at most
// target tokens; a single word over target is cut between runes. Token
// counts are kept incrementally, so this is linear in the sentence.
func splitWords(text string, s span, target int) []unit {
	var out []unit
	words := spans(text, s.start, s.end, func(text string, i, to int) int {
		r, size := utf8.DecodeRuneInString(text[i:to])
		if unicode.IsSpace(r) {
			return i + size
		}
		return -1
	})
	cur := unit{start: -1}
	var curQ, curW int
	flush := func() {
		if cur.start >= 0 {
			cur.tokens = tokens(curQ, curW)
			out = append(out, cur)
		}
		cur, curQ, curW = unit{start: -1}, 0, 0
	}
	for _, w := range words {
		q, n := count(text[w.start:w.end])
		if tokens(q, n) > target {
			flush()
			out = append(out, splitRunes(text, w, target)...)
			continue
		}
		if cur.start >= 0 && tokens(curQ+q, curW+n) > target {
			flush()
		}
		if cur.start < 0 {
			cur.start = w.start
		}
		cur.end = w.end
		curQ, curW = curQ+q, curW+n
	}
	flush()
	return out
}

// splitRunes cuts one over-long word into pieces of at most target tokens.
func splitRunes(text string, w span, target int) []unit {
	var out []unit
	start, quarter := w.start, 0
	for i := w.start; i < w.end; {
		r, size := utf8.DecodeRuneInString(text[i:w.end])
		q := 1
		if dense(r) {
			q = 4
		}
		if quarter+q > 4*target && i > start {
			out = append(out, unit{start, i, EstimateTokens(text[start:i])})
			start, quarter = i, 0
		}
		quarter += q
		i += size
	}
	return append(out, unit{start, w.end, EstimateTokens(text[start:w.end])})
}
