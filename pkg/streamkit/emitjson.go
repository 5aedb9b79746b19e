package streamkit

import (
	"unicode/utf8"
)

// appendEmits encodes emits as the JSON that json.Unmarshal reads back into
// []Emit. It is on the hot path of every commit, where encoding/json's
// reflection cost more than the ledger insert's own encoding.
func appendEmits(dst []byte, emits []Emit) []byte {
	dst = append(dst, '[')
	for i, e := range emits {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"stage":`...)
		dst = appendJSONString(dst, e.Stage)
		dst = append(dst, `,"fields":{`...)
		first := true
		for k, v := range e.Fields {
			if !first {
				dst = append(dst, ',')
			}
			first = false
			dst = appendJSONString(dst, k)
			dst = append(dst, ':')
			dst = appendJSONString(dst, v)
		}
		dst = append(dst, "}}"...)
	}
	return append(dst, ']')
}

const hexDigits = "0123456789abcdef"

// appendJSONString quotes s as a JSON string; invalid UTF-8 becomes U+FFFD,
// as with encoding/json.
func appendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				dst = append(dst, '\\', c)
			case c < 0x20:
				switch c {
				case '\n':
					dst = append(dst, '\\', 'n')
				case '\r':
					dst = append(dst, '\\', 'r')
				case '\t':
					dst = append(dst, '\\', 't')
				default:
					dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
				}
			default:
				dst = append(dst, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, `\ufffd`...)
		} else {
			dst = append(dst, s[i:i+size]...)
		}
		i += size
	}
	return append(dst, '"')
}
