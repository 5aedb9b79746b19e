package fetch

import (
	"bytes"
	"fmt"
	"unicode/utf8"

	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding/htmlindex"
)

// ToUTF8 converts an HTML body to UTF-8 and names the source charset. The
// charset comes from a BOM, the Content-Type header, a <meta> declaration,
// or a guess; a page labelled UTF-8 whose bytes are not UTF-8 is decoded by
// its <meta> charset or else as windows-1252, and a page labelled with a
// legacy single-byte charset whose bytes are valid multi-byte UTF-8 is
// taken as UTF-8. Invalid bytes become U+FFFD; it fails only when the
// named decoder does.
func ToUTF8(body []byte, contentType string) ([]byte, string, error) {
	_, name, certain := charset.DetermineEncoding(body, contentType)
	valid := utf8.Valid(body)
	switch {
	case valid && (name == "utf-8" || !certain): // undeclared and valid UTF-8 (ASCII included)
		return body, "utf-8", nil
	case name == "utf-8" && mostlyUTF8(body):
		// Declared UTF-8 with a few bad bytes: decode as UTF-8 with those
		// replaced, as browsers do, rather than re-read the page as
		// windows-1252 and turn every accented letter into mojibake.
		return bytes.ToValidUTF8(body, []byte("\uFFFD")), "utf-8", nil
	case name == "utf-8":
		if _, meta, _ := charset.DetermineEncoding(body, ""); meta != "utf-8" {
			name = meta
		} else {
			name = "windows-1252"
		}
	case valid && singleByte(name) && hasMultibyte(body):
		return body, "utf-8", nil
	}
	enc, err := htmlindex.Get(name)
	if err != nil {
		return nil, name, fmt.Errorf("charset %q: %w", name, err)
	}
	out, err := enc.NewDecoder().Bytes(body)
	if err != nil {
		return nil, name, fmt.Errorf("decode %s: %w", name, err)
	}
	return out, name, nil
}

// mostlyUTF8 reports a body whose multibyte sequences are mostly valid
// UTF-8: at least one valid one, and more valid than invalid. A page
// declared UTF-8 but written in a single-byte charset has invalid bytes
// and no valid multibyte sequence.
func mostlyUTF8(b []byte) bool {
	valid, invalid := 0, 0
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		switch {
		case r == utf8.RuneError && size == 1:
			invalid++
		case size > 1:
			valid++
		}
		b = b[size:]
	}
	return valid > 0 && valid > invalid
}

func singleByte(name string) bool {
	switch name {
	case "windows-1252", "iso-8859-1", "iso-8859-15", "windows-1250", "windows-1251", "iso-8859-2", "koi8-r":
		return true
	}
	return false
}

func hasMultibyte(b []byte) bool {
	return bytes.IndexFunc(b, func(r rune) bool { return r >= 0x80 }) >= 0
}
