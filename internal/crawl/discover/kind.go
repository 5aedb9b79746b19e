// Package discover recognises what a fetched body is (HTML page, RSS/Atom
// feed, sitemap) from its content type and its bytes, and pulls the URLs
// out of it: links, canonical and alternate feeds from HTML, items from
// feeds, pages and child sitemaps from sitemaps (news sitemaps included).
package discover

import (
	"bytes"
	"strings"
)

// Kinds of fetched bodies.
const (
	KindHTML    = "html"
	KindFeed    = "feed"
	KindSitemap = "sitemap"
	KindOther   = "other"
)

// sniffLen is how much of a body is inspected to recognise it.
const sniffLen = 2048

// Sniff tells a body's kind from its media type and its first bytes; the
// bytes win over the header, since servers mislabel feeds and sitemaps.
func Sniff(mediaType string, body []byte) string {
	head := body[:min(len(body), sniffLen)]
	head = bytes.TrimPrefix(head, []byte("\xef\xbb\xbf"))
	if root := xmlRoot(head); root != "" {
		switch root {
		case "rss", "feed", "rdf:rdf", "rdf":
			return KindFeed
		case "urlset", "sitemapindex":
			return KindSitemap
		case "html":
			return KindHTML
		}
	}
	lower := bytes.ToLower(head)
	if bytes.Contains(lower, []byte("<!doctype html")) || bytes.Contains(lower, []byte("<html")) {
		return KindHTML
	}
	switch mediaType {
	case "text/html", "application/xhtml+xml":
		return KindHTML
	}
	return KindOther
}

// xmlRoot returns the lower-cased name of the first element, skipping the
// XML declaration, comments, doctypes and processing instructions; "" when
// the body does not start like markup.
func xmlRoot(b []byte) string {
	for {
		b = bytes.TrimLeft(b, " \t\r\n")
		if len(b) == 0 || b[0] != '<' {
			return ""
		}
		switch {
		case bytes.HasPrefix(b, []byte("<?")):
			i := bytes.Index(b, []byte("?>"))
			if i < 0 {
				return ""
			}
			b = b[i+2:]
		case bytes.HasPrefix(b, []byte("<!--")):
			i := bytes.Index(b, []byte("-->"))
			if i < 0 {
				return ""
			}
			b = b[i+3:]
		case bytes.HasPrefix(b, []byte("<!")):
			i := bytes.IndexByte(b, '>')
			if i < 0 {
				return ""
			}
			b = b[i+1:]
		default:
			end := bytes.IndexAny(b[1:], " \t\r\n/>")
			if end < 0 {
				return ""
			}
			return strings.ToLower(string(b[1 : end+1]))
		}
	}
}
