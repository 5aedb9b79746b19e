package article

import (
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"
)

// repairMojibake undoes UTF-8 that was read as Windows-1252 and written
// out again as UTF-8 ("letâ€™s" for "let’s", "cafÃ©" for "café"), as a
// page's own source sometimes holds it. Each run of a lead letter and the
// characters that stand for continuation bytes is turned back into its
// bytes and kept as the character they spell, where they spell one a
// page of text holds (mojibakeResult): an accented letter after which a
// quote or a dash is typed ("CAFÉ”") spells none. Every lead letter
// (U+00C2–U+00EF) is written with the byte 0xC3, so the scan jumps from
// one to the next.
func repairMojibake(s string) string {
	var b strings.Builder
	done := 0 // s[:done] is in b
	for i := 0; ; {
		k := strings.IndexByte(s[i:], 0xC3)
		if k < 0 {
			break
		}
		i += k
		r, size := utf8.DecodeRuneInString(s[i:])
		if d, end := mojibakeAt(s, i, r, size); end > 0 {
			if done == 0 {
				b.Grow(len(s))
			}
			b.WriteString(s[done:i])
			b.WriteRune(d)
			done, i = end, end
			continue
		}
		i += size
	}
	if done == 0 {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}

// mojibakeAt reads the run that opens at s[i] with the rune r: the
// character its bytes spell and where the run ends, or 0 for the end
// where it is no mojibake.
func mojibakeAt(s string, i int, r rune, size int) (rune, int) {
	if r < 0xC2 || r > 0xEF { // a UTF-8 lead byte read as a Latin-1 letter
		return 0, 0
	}
	need := 1
	if r >= 0xE0 {
		need = 2
	}
	buf := [3]byte{byte(r)}
	j := i + size
	for k := 1; k <= need; k++ {
		if j >= len(s) {
			return 0, 0
		}
		c, n := utf8.DecodeRuneInString(s[j:])
		cb, ok := cp1252Byte(c)
		if !ok || cb < 0x80 || cb > 0xBF {
			return 0, 0
		}
		buf[k] = cb
		j += n
	}
	d, n := utf8.DecodeRune(buf[:need+1])
	if d == utf8.RuneError || n != need+1 || !mojibakeResult(d) {
		return 0, 0
	}
	return d, j
}

// cp1252Byte is the Windows-1252 byte a character stands for; the five
// bytes that code has no character for come through as C1 controls.
func cp1252Byte(c rune) (byte, bool) {
	if c >= 0x80 && c <= 0x9F {
		return byte(c), true
	}
	return charmap.Windows1252.EncodeRune(c)
}

// mojibakeResult reports a character that mojibake of a page's text
// stands for: Latin letters with their accents, and the punctuation and
// symbols of U+2000–U+2BFF (quotes, dashes, zero-width joiners, €, ™, ℃,
// arrows, ≤, ⟨).
func mojibakeResult(d rune) bool {
	return d >= 0xA0 && d <= 0x17F || d >= 0x2000 && d <= 0x2BFF
}
