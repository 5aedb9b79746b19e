// Package urlnorm puts URLs into one canonical spelling so that variants of
// the same page (case, default ports, dot segments, fragments, tracking
// parameters, parameter order) share one doc_id and are fetched once.
package urlnorm

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/net/idna"
)

// Errors returned by Normalize; callers classify them as bad URLs.
var (
	ErrUnsupportedScheme = errors.New("unsupported scheme")
	ErrNoHost            = errors.New("no host")
	ErrTooLong           = errors.New("url too long")
	ErrBadPort           = errors.New("bad port")
)

// MaxLength is the longest URL accepted (raw input and result).
const MaxLength = 4096

// trackingParams are query keys that only say where a click came from.
var trackingParams = map[string]bool{
	"fbclid": true, "gclid": true, "dclid": true, "gbraid": true, "wbraid": true, "msclkid": true,
	"yclid": true, "twclid": true, "igshid": true, "mc_cid": true, "mc_eid": true, "_ga": true,
	"_gl": true, "_hsenc": true, "_hsmi": true, "mkt_tok": true, "oly_anon_id": true,
	"oly_enc_id": true, "vero_id": true, "vero_conv": true, "ref_src": true, "ref_url": true,
	"s_cid": true, "cmpid": true, "ito": true, "ns_mchannel": true, "ns_source": true,
	"ns_campaign": true, "ns_linkname": true, "ns_fee": true, "__twitter_impression": true,
}

// IsTracking reports whether a query key is a tracking parameter
// (utm_*, fbclid, gclid, …), compared case-insensitively.
func IsTracking(key string) bool {
	k := strings.ToLower(key)
	return strings.HasPrefix(k, "utm_") || trackingParams[k]
}

// Normalize returns the canonical form of an absolute http(s) URL: scheme and
// host lower-cased (IDN hosts in punycode), default port and userinfo
// dropped, dot segments resolved, percent-encoding normalised, fragment
// removed, tracking parameters removed and the remaining parameters sorted.
// It returns an error wrapping ErrUnsupportedScheme, ErrNoHost or ErrTooLong,
// or url.Parse's error, for input that is not a crawlable URL.
func Normalize(raw string) (string, error) {
	u, err := Parse(raw)
	if err != nil {
		return "", err
	}
	return u.String(), nil
}

// Parse is Normalize returning the parsed URL.
func Parse(raw string) (*url.URL, error) {
	raw = strings.TrimSpace(raw)
	if len(raw) > MaxLength {
		return nil, fmt.Errorf("normalize %.64q…: %w", raw, ErrTooLong)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("normalize %q: %w", raw, err)
	}
	n, err := normalizeURL(u, raw)
	if err != nil {
		return nil, err
	}
	if len(n.String()) > MaxLength {
		return nil, fmt.Errorf("normalize %.64q…: %w", raw, ErrTooLong)
	}
	return n, nil
}

// Resolve resolves href against base and normalizes the result. It returns
// ok=false for links that are not crawlable (empty, fragment-only,
// javascript:, mailto:, other schemes, malformed).
func Resolve(base *url.URL, href string) (string, bool) {
	href = strings.TrimSpace(href)
	if href == "" || strings.HasPrefix(href, "#") || len(href) > MaxLength {
		return "", false
	}
	ref, err := url.Parse(href)
	if err != nil {
		return "", false
	}
	u, err := normalizeURL(base.ResolveReference(ref), href)
	if err != nil {
		return "", false
	}
	s := u.String()
	if len(s) > MaxLength {
		return "", false
	}
	return s, true
}

func normalizeURL(in *url.URL, raw string) (*url.URL, error) {
	scheme := strings.ToLower(in.Scheme)
	if scheme != "http" && scheme != "https" {
		return nil, fmt.Errorf("normalize %q: %w %q", raw, ErrUnsupportedScheme, in.Scheme)
	}
	host, err := normalizeHost(in.Hostname())
	if err != nil {
		return nil, fmt.Errorf("normalize %q: %w", raw, err)
	}
	hostport := host
	if strings.Contains(host, ":") { // IPv6 literal
		hostport = "[" + host + "]"
	}
	if p := in.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n <= 0 || n > 65535 {
			return nil, fmt.Errorf("normalize %q: %w %q", raw, ErrBadPort, p)
		}
		if !(scheme == "http" && n == 80) && !(scheme == "https" && n == 443) {
			hostport += ":" + strconv.Itoa(n)
		}
	}
	out := &url.URL{Scheme: scheme, Host: hostport}
	p := removeDotSegments(normalizeEscapes(in.EscapedPath(), false))
	if p == "" {
		p = "/"
	}
	if err := setPath(out, p); err != nil {
		return nil, fmt.Errorf("normalize %q: %w", raw, err)
	}
	out.RawQuery = normalizeQuery(in.RawQuery)
	return out, nil
}

func normalizeHost(h string) (string, error) {
	h = strings.TrimSuffix(strings.ToLower(h), ".")
	if h == "" || strings.HasPrefix(h, ".") || strings.HasSuffix(h, ".") || strings.Contains(h, "..") {
		return "", fmt.Errorf("host %q: %w", h, ErrNoHost)
	}
	if ip := net.ParseIP(h); ip != nil {
		if v4 := ip.To4(); v4 != nil {
			return v4.String(), nil
		}
		return ip.String(), nil
	}
	if plainLDH(h) { // what IDNA would return unchanged: most hosts, and most of its cost on a page of links
		return h, nil
	}
	a, err := idna.Lookup.ToASCII(h)
	if err != nil {
		return "", fmt.Errorf("host %q: %w", h, err)
	}
	if a == "" || strings.HasPrefix(a, ".") || strings.HasSuffix(a, ".") || strings.Contains(a, "..") {
		return "", fmt.Errorf("host %q: %w", h, ErrNoHost)
	}
	return a, nil
}

// plainLDH reports a lower-case host of ASCII letters, digits and hyphens
// in labels of 1–63 bytes, none starting or ending with a hyphen or
// holding "--" (so no punycode to check): the hosts IDNA's lookup profile
// passes unchanged.
func plainLDH(h string) bool {
	if len(h) > 253 {
		return false
	}
	label := 0
	for i := 0; i < len(h); i++ {
		c := h[i]
		switch {
		case c == '.':
			if label == 0 || h[i-1] == '-' {
				return false
			}
			label = 0
			continue
		case c == '-':
			if label == 0 || h[i-1] == '-' {
				return false
			}
		case (c < 'a' || c > 'z') && (c < '0' || c > '9'):
			return false
		}
		if label++; label > 63 {
			return false
		}
	}
	return label > 0 && h[len(h)-1] != '-'
}

// setPath sets an escaped path on u, keeping its spelling.
func setPath(u *url.URL, escaped string) error {
	p, err := url.PathUnescape(escaped)
	if err != nil {
		return fmt.Errorf("path %q: %w", escaped, err)
	}
	u.Path = p
	u.RawPath = escaped
	if u.EscapedPath() != escaped {
		u.RawPath = ""
	}
	return nil
}

// normalizeEscapes upper-cases percent-escapes, decodes escaped unreserved
// characters and escapes bytes that must not appear raw.
func normalizeEscapes(s string, query bool) string {
	if escapesNormal(s, query) {
		return s // most paths and queries: nothing to copy
	}
	return rewriteEscapes(s, query)
}

// rewriteEscapes is normalizeEscapes's copy, byte by byte.
func rewriteEscapes(s string, query bool) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			v := unhex(s[i+1])<<4 | unhex(s[i+2])
			if isUnreserved(v) {
				b.WriteByte(v)
			} else {
				b.WriteByte('%')
				b.WriteByte(upper(s[i+1]))
				b.WriteByte(upper(s[i+2]))
			}
			i += 2
		case c == '%' || mustEscape(c, query):
			fmt.Fprintf(&b, "%%%02X", c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// escapesNormal reports s holding nothing normalizeEscapes would change:
// no byte to escape and no escape but an upper-case one of a reserved byte.
func escapesNormal(s string, query bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%':
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) || isUnreserved(unhex(s[i+1])<<4|unhex(s[i+2])) ||
				s[i+1] != upper(s[i+1]) || s[i+2] != upper(s[i+2]) {
				return false
			}
			i += 2
		case mustEscape(c, query):
			return false
		}
	}
	return true
}

// mustEscape reports a byte that may not appear raw in a path (query
// false) or a query.
func mustEscape(c byte, query bool) bool {
	return c <= ' ' || c >= 0x7f || c == '"' || c == '<' || c == '>' || c == '\\' ||
		c == '^' || c == '`' || c == '{' || c == '|' || c == '}' || (!query && (c == '?' || c == '#'))
}

// removeDotSegments resolves "." and ".." segments (RFC 3986 5.2.4).
func removeDotSegments(p string) string {
	if p == "" {
		return ""
	}
	if strings.HasPrefix(p, "/") && !strings.Contains(p, "/.") {
		return p // no dot segment: most paths
	}
	return resolveDots(p)
}

// resolveDots is removeDotSegments's walk through the segments.
func resolveDots(p string) string {
	segs := strings.Split(p, "/")
	out := make([]string, 0, len(segs))
	for i, s := range segs {
		last := i == len(segs)-1
		switch s {
		case ".":
			if last {
				out = append(out, "")
			}
		case "..":
			if len(out) > 1 {
				out = out[:len(out)-1]
			}
			if last {
				out = append(out, "")
			}
		default:
			out = append(out, s)
		}
	}
	r := strings.Join(out, "/")
	if !strings.HasPrefix(r, "/") {
		r = "/" + r
	}
	return r
}

type param struct{ key, value, raw string }

// normalizeQuery drops empty pieces and tracking parameters, normalises each
// key and value's escaping and sorts by key, then value.
func normalizeQuery(q string) string {
	if q == "" {
		return ""
	}
	var ps []param
	for _, piece := range strings.Split(q, "&") {
		if piece == "" {
			continue
		}
		k, v, hasValue := strings.Cut(piece, "=")
		dk, err := url.QueryUnescape(k)
		if err != nil {
			dk = k
		}
		if IsTracking(dk) {
			continue
		}
		nk := strings.ReplaceAll(normalizeEscapes(k, true), "%20", "+")
		raw := nk
		if hasValue {
			nv := strings.ReplaceAll(normalizeEscapes(v, true), "%20", "+")
			raw += "=" + nv
			v = nv
		}
		ps = append(ps, param{key: nk, value: v, raw: raw})
	}
	sort.SliceStable(ps, func(i, j int) bool {
		if ps[i].key != ps[j].key {
			return ps[i].key < ps[j].key
		}
		return ps[i].value < ps[j].value
	})
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = p.raw
	}
	return strings.Join(parts, "&")
}

func isHex(c byte) bool {
	return ('0' <= c && c <= '9') || ('a' <= c && c <= 'f') || ('A' <= c && c <= 'F')
}

func unhex(c byte) byte {
	switch {
	case '0' <= c && c <= '9':
		return c - '0'
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10
	default:
		return c - 'A' + 10
	}
}

func upper(c byte) byte {
	if 'a' <= c && c <= 'f' {
		return c - 'a' + 'A'
	}
	return c
}

func isUnreserved(c byte) bool {
	return ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9') ||
		c == '-' || c == '.' || c == '_' || c == '~'
}
