package discover

import (
	"bytes"
	"net/url"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/newscrawl/newscrawl/internal/crawl/urlnorm"
)

// MaxLinks bounds the URLs taken from one body.
const MaxLinks = 5000

// Page is what an HTML page points to; URLs are absolute and normalized.
type Page struct {
	Links     []string // a[href] (without rel=nofollow), deduplicated, in order
	Canonical string   // <link rel=canonical>, "" when absent
	Feeds     []string // <link rel=alternate type=rss/atom>
	NoIndex   bool     // <meta name=robots content=noindex>
	NoFollow  bool     // <meta name=robots content=nofollow>: Links is empty
}

// HTML extracts a page's links from a UTF-8 body fetched from pageURL
// (resolving against <base href> when present). Malformed markup yields
// what could be read, never an error.
func HTML(pageURL *url.URL, body []byte) Page { return scan(pageURL, body, true) }

// Meta is HTML without the links: the canonical URL, feeds and robots
// meta alone, for a page whose links are not followed (an archived page).
// It costs the tokenizer alone, and only up to <body>: resolving and
// normalizing every link was most of HTML's time on a news page, and
// tokenizing the rest a quarter of newsctl ingest's.
func Meta(pageURL *url.URL, body []byte) Page { return scan(pageURL, body, false) }

// scan reads a page's links (when links is set), feeds and own metadata.
// The own metadata (<base>, the canonical link, the robots meta) is read
// from the head alone, as search engines read it: the body holds what
// others wrote too (comments, embeds), which must not re-key the page or
// unlist it.
func scan(pageURL *url.URL, body []byte, links bool) Page {
	var p Page
	base := pageURL
	seen := map[string]bool{}
	add := func(list *[]string, href string) {
		if len(*list) >= MaxLinks {
			return
		}
		if u, ok := urlnorm.Resolve(base, href); ok && !seen[u] {
			seen[u] = true
			*list = append(*list, u)
		}
	}
	z := html.NewTokenizer(bytes.NewReader(body))
	inBody := false
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			break
		}
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			continue
		}
		name, hasAttr := z.TagName()
		a := atom.Lookup(name)
		if a == atom.Body && !inBody {
			if inBody = true; !links {
				break // feeds in a body are not worth its tokens
			}
		}
		if !hasAttr || (inBody && (a == atom.Base || a == atom.Meta)) {
			continue
		}
		if (a != atom.A && a != atom.Link && a != atom.Base && a != atom.Meta && a != atom.Area) ||
			(!links && (a == atom.A || a == atom.Area)) {
			continue
		}
		attrs := readAttrs(z)
		switch a {
		case atom.Base:
			if b, err := base.Parse(strings.TrimSpace(attrs.href)); err == nil && attrs.href != "" {
				base = b
			}
		case atom.A, atom.Area:
			if !hasToken(attrs.rel, "nofollow") {
				add(&p.Links, attrs.href)
			}
		case atom.Link:
			rel := attrs.rel
			switch {
			case hasToken(rel, "canonical"):
				if u, ok := urlnorm.Resolve(base, attrs.href); ok && p.Canonical == "" && !inBody {
					p.Canonical = u
				}
			case hasToken(rel, "alternate") && isFeedType(attrs.typ):
				add(&p.Feeds, attrs.href)
			}
		case atom.Meta:
			if strings.EqualFold(attrs.name, "robots") {
				c := strings.ToLower(attrs.content)
				p.NoIndex = p.NoIndex || strings.Contains(c, "noindex") || strings.Contains(c, "none")
				p.NoFollow = p.NoFollow || strings.Contains(c, "nofollow") || strings.Contains(c, "none")
			}
		}
	}
	if p.NoFollow {
		p.Links = nil
	}
	return p
}

// tagAttrs are the attributes scan reads; the first of each name counts.
type tagAttrs struct{ href, rel, typ, name, content string }

// readAttrs reads the tag's attributes, keeping the five scan uses: a
// news page's links carry classes, styles and data attributes that a map
// of them all would copy for nothing (the tokenizer lower-cases keys).
func readAttrs(z *html.Tokenizer) tagAttrs {
	var t tagAttrs
	var seen uint8
	for {
		k, v, more := z.TagAttr()
		var dst *string
		var bit uint8
		switch string(k) {
		case "href":
			dst, bit = &t.href, 1
		case "rel":
			dst, bit = &t.rel, 2
		case "type":
			dst, bit = &t.typ, 4
		case "name":
			dst, bit = &t.name, 8
		case "content":
			dst, bit = &t.content, 16
		}
		if dst != nil && seen&bit == 0 {
			seen |= bit
			*dst = string(v)
		}
		if !more {
			return t
		}
	}
}

func hasToken(list, tok string) bool {
	for _, f := range strings.Fields(strings.ToLower(list)) {
		if f == tok {
			return true
		}
	}
	return false
}

func isFeedType(t string) bool {
	switch strings.ToLower(strings.TrimSpace(t)) {
	case "application/rss+xml", "application/atom+xml", "application/feed+json", "application/rdf+xml":
		return true
	}
	return false
}
