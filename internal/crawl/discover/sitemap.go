package discover

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"

	"golang.org/x/net/html/charset"

	"github.com/newscrawl/newscrawl/internal/crawl/urlnorm"
)

// MaxSitemapURLs is the protocol's limit of entries in one sitemap.
const MaxSitemapURLs = 50000

// A Sitemap lists pages (<urlset>, news sitemaps included) or child
// sitemaps (<sitemapindex>); URLs are absolute and normalized.
type Sitemap struct {
	Pages    []string
	Children []string
}

// ParseSitemap reads a sitemap or sitemap index (already un-gzipped)
// fetched from sitemapURL, streaming its <loc> elements; malformed XML is an
// error only when nothing could be read before it.
func ParseSitemap(sitemapURL *url.URL, body []byte) (Sitemap, error) {
	var sm Sitemap
	d := xml.NewDecoder(bytes.NewReader(body))
	d.Strict = false
	d.CharsetReader = charset.NewReaderLabel
	var parent string // "url" or "sitemap"
	depth, parentDepth := 0, 0
	inLoc := false
	var loc strings.Builder
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			if len(sm.Pages)+len(sm.Children) == 0 {
				return sm, fmt.Errorf("parse sitemap %s: %w", sitemapURL, err)
			}
			break
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			switch strings.ToLower(t.Name.Local) {
			case "url", "sitemap":
				if parent == "" {
					parent, parentDepth = strings.ToLower(t.Name.Local), depth
				}
			case "loc":
				// only a direct child: <image:loc> and the like sit deeper
				inLoc = parent != "" && depth == parentDepth+1
				loc.Reset()
			}
		case xml.CharData:
			if inLoc && loc.Len() < urlnorm.MaxLength {
				loc.Write(t)
			}
		case xml.EndElement:
			depth--
			switch strings.ToLower(t.Name.Local) {
			case "loc":
				if inLoc {
					if u, ok := urlnorm.Resolve(sitemapURL, loc.String()); ok {
						if parent == "sitemap" {
							sm.Children = append(sm.Children, u)
						} else {
							sm.Pages = append(sm.Pages, u)
						}
					}
				}
				inLoc = false
			case "url", "sitemap":
				if depth < parentDepth {
					parent = ""
				}
			}
		}
		if len(sm.Pages)+len(sm.Children) >= MaxSitemapURLs {
			break
		}
	}
	return sm, nil
}
