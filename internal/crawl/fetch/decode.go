package fetch

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/andybalholm/brotli"
)

// readCapped reads r to the end, failing with ErrTooLarge past limit bytes,
// so neither a large body nor a decompression bomb can exhaust memory.
func readCapped(r io.Reader, limit int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%w (%d bytes)", ErrTooLarge, limit)
	}
	return b, nil
}

// decodeBody undoes Content-Encoding (gzip, deflate, br; identity) and, when
// the payload itself is a gzip file (a sitemap.xml.gz), unwraps it. Every
// stage reads at most limit bytes.
func decodeBody(r io.Reader, encoding string, limit int64) ([]byte, error) {
	raw, err := readCapped(r, limit)
	if err != nil {
		return nil, err
	}
	body := raw
	for _, enc := range strings.Split(encoding, ",") {
		enc = strings.ToLower(strings.TrimSpace(enc))
		if enc == "" || enc == "identity" {
			continue
		}
		if body, err = decodeOne(body, enc, limit); err != nil {
			return nil, err
		}
	}
	if isGzip(body) { // a gzip'd file served as such (sitemap.xml.gz)
		if body, err = decodeOne(body, "gzip", limit); err != nil {
			return nil, err
		}
	}
	return body, nil
}

// Decode is decodeBody for bodies read from elsewhere (a web archive's
// payload): encoding is the Content-Encoding header; more than limit bytes,
// compressed or decoded, is ErrTooLarge.
func Decode(r io.Reader, encoding string, limit int64) ([]byte, error) {
	return decodeBody(r, encoding, limit)
}

// decodePrefix is decodeBody for a caller that wants at most the first
// limit bytes of the decoded body, however long the body is: it reads a
// bounded amount of the (possibly compressed) stream and stops there.
func decodePrefix(r io.Reader, encoding string, limit int64) ([]byte, error) {
	var rd io.Reader = io.LimitReader(r, 8*limit) // a compressed prefix is smaller than what it decodes to
	switch enc := strings.ToLower(strings.TrimSpace(encoding)); enc {
	case "", "identity":
	case "gzip", "x-gzip":
		zr, err := gzip.NewReader(rd)
		if err != nil {
			return nil, fmt.Errorf("decode gzip body: %w", err)
		}
		defer zr.Close()
		rd = zr
	case "deflate":
		fr := flate.NewReader(rd)
		defer fr.Close()
		rd = fr
	case "br":
		rd = brotli.NewReader(rd)
	default:
		return nil, fmt.Errorf("unsupported content encoding %q", enc)
	}
	b, err := io.ReadAll(io.LimitReader(rd, limit))
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return b, fmt.Errorf("read body prefix: %w", err)
	}
	return b, nil
}

func decodeOne(body []byte, enc string, limit int64) ([]byte, error) {
	var r io.Reader
	switch enc {
	case "gzip", "x-gzip":
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			return nil, fmt.Errorf("decode gzip body: %w", err)
		}
		defer zr.Close()
		r = zr
	case "deflate":
		// "deflate" is zlib-wrapped by the spec, raw deflate in practice.
		if zr, err := zlib.NewReader(bytes.NewReader(body)); err == nil {
			defer zr.Close()
			r = zr
		} else {
			fr := flate.NewReader(bytes.NewReader(body))
			defer fr.Close()
			r = fr
		}
	case "br":
		r = brotli.NewReader(bytes.NewReader(body))
	default:
		return nil, fmt.Errorf("unsupported content encoding %q", enc)
	}
	out, err := readCapped(r, limit)
	if err != nil {
		return nil, fmt.Errorf("decode %s body: %w", enc, err)
	}
	return out, nil
}

func isGzip(b []byte) bool { return len(b) > 2 && b[0] == 0x1f && b[1] == 0x8b && b[2] == 8 }
