package article

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/newscrawl/newscrawl/internal/quickre"
	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/unicode"
)

// Declared-charset patterns, searched only in the head of the document.
var (
	reMetaCharset = quickre.MustCompile(`(?i)<meta[^>]+charset\s*=\s*["']?\s*([a-zA-Z0-9_:.\-]+)`)
	reXMLEncoding = quickre.MustCompile(`(?i)^\s*<\?xml[^>]+encoding\s*=\s*["']([a-zA-Z0-9_.\-]+)`)
)

// binaryMagic lists prefixes of common non-HTML formats.
var binaryMagic = [][]byte{
	[]byte("\x89PNG"), []byte("GIF8"), []byte("\xff\xd8\xff"), []byte("%PDF"),
	[]byte("PK\x03\x04"), []byte("\x1f\x8b"), []byte("\x7fELF"), []byte("RIFF"),
	[]byte("OggS"), []byte("ID3"), []byte("\x00\x00\x01\x00"), []byte("BZh"),
	[]byte("\xfd7zXZ"), []byte("7z\xbc\xaf"), []byte("wOFF"), []byte("wOF2"),
}

// toUTF8 converts raw page bytes to valid UTF-8, honouring a BOM, then a
// declared charset (meta / XML), and correcting common mislabelling.
func toUTF8(b []byte) (string, error) {
	if enc, n := bomEncoding(b); enc != nil {
		out, err := enc.NewDecoder().Bytes(b[n:])
		if err != nil {
			return "", fmt.Errorf("%w: undecodable %s text", ErrNotHTML, "BOM-marked")
		}
		return strings.ToValidUTF8(string(out), "\uFFFD"), checkMarkup(out)
	}
	if err := checkBinary(b); err != nil {
		return "", err
	}
	if err := checkMarkup(b); err != nil {
		return "", err
	}
	validUTF8 := utf8.Valid(b)
	if validUTF8 && bytes.IndexByte(b, 0x1b) < 0 {
		// Without an escape byte no ISO-2022 text differs from its bytes,
		// so the declared label need not be looked for (2% of the time).
		return string(b), nil
	}
	enc, name := lookupEncoding(declaredCharset(b))
	switch {
	case validUTF8 && !strings.HasPrefix(name, "iso-2022"):
		// Valid UTF-8 with multibyte sequences is almost never a legacy
		// encoding whatever the label says, and pure ASCII decodes alike.
		return string(b), nil
	case enc == nil || name == "utf-8":
		// Declared (or assumed) UTF-8 but invalid: keep UTF-8 if it mostly
		// is, else the bytes are most likely windows-1252.
		if mostlyUTF8(b) {
			return strings.ToValidUTF8(string(b), "\uFFFD"), nil
		}
		enc, _ = charset.Lookup("windows-1252")
	}
	out, err := enc.NewDecoder().Bytes(b)
	if err != nil {
		return strings.ToValidUTF8(string(b), "\uFFFD"), nil
	}
	return strings.ToValidUTF8(string(out), "\uFFFD"), nil
}

// bomEncoding returns the encoding announced by a byte-order mark and its length.
func bomEncoding(b []byte) (encoding.Encoding, int) {
	switch {
	case bytes.HasPrefix(b, []byte("\xef\xbb\xbf")):
		return unicode.UTF8, 3
	case bytes.HasPrefix(b, []byte("\xfe\xff")):
		return unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM), 2
	case bytes.HasPrefix(b, []byte("\xff\xfe")):
		return unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM), 2
	}
	return nil, 0
}

// checkBinary rejects known binary formats and byte soup with many control bytes.
func checkBinary(b []byte) error {
	if len(bytes.TrimSpace(b)) == 0 {
		return fmt.Errorf("%w: empty input", ErrNotHTML)
	}
	for _, m := range binaryMagic {
		if bytes.HasPrefix(b, m) {
			return fmt.Errorf("%w: binary signature %q", ErrNotHTML, m)
		}
	}
	head := b
	if len(head) > 8192 {
		head = head[:8192]
	}
	ctrl := 0
	for _, c := range head {
		if c == 0 {
			return fmt.Errorf("%w: NUL byte in input", ErrNotHTML)
		}
		if c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != '\f' {
			ctrl++
		}
	}
	if ctrl*50 > len(head) {
		return fmt.Errorf("%w: %d control bytes in first %d", ErrNotHTML, ctrl, len(head))
	}
	return nil
}

// checkMarkup requires at least one tag-like sequence: plain text is not a page.
func checkMarkup(b []byte) error {
	for i := 0; i+1 < len(b); i++ {
		if b[i] != '<' {
			continue
		}
		c := b[i+1]
		if c == '!' || c == '?' || c == '/' || (c|0x20 >= 'a' && c|0x20 <= 'z') {
			return nil
		}
	}
	return fmt.Errorf("%w: no markup found", ErrNotHTML)
}

// declaredCharset finds a charset label in the first 16 KiB (meta or XML prolog).
func declaredCharset(b []byte) string {
	head := b
	if len(head) > 16384 {
		head = head[:16384]
	}
	if m := reXMLEncoding.FindSubmatch(head); m != nil {
		return string(m[1])
	}
	if m := reMetaCharset.FindSubmatch(head); m != nil {
		return string(m[1])
	}
	return ""
}

// lookupEncoding resolves a WHATWG label; unknown labels give nil.
func lookupEncoding(label string) (encoding.Encoding, string) {
	if label == "" {
		return nil, ""
	}
	enc, name := charset.Lookup(label)
	if enc == nil {
		return nil, ""
	}
	// A meta tag cannot truthfully declare UTF-16 in an ASCII-compatible file.
	if strings.HasPrefix(name, "utf-16") {
		return nil, "utf-8"
	}
	return enc, name
}

// mostlyUTF8 reports whether valid multibyte sequences clearly outnumber
// invalid bytes, i.e. the page is UTF-8 with a few corrupt bytes.
func mostlyUTF8(b []byte) bool {
	good, bad := 0, 0
	for i := 0; i < len(b); {
		if b[i] < 0x80 {
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			bad++
			i++
			continue
		}
		good++
		i += n
	}
	return good > 4*bad
}
