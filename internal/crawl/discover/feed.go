package discover

import (
	"bytes"
	"fmt"
	"net/url"

	"github.com/mmcdole/gofeed"

	"github.com/newscrawl/newscrawl/internal/crawl/urlnorm"
)

// Feed returns the item links of an RSS, Atom or RDF feed fetched from
// feedURL, absolute and normalized; a body gofeed cannot parse is an error.
func Feed(feedURL *url.URL, body []byte) ([]string, error) {
	f, err := gofeed.NewParser().Parse(bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("parse feed %s: %w", feedURL, err)
	}
	var out []string
	seen := map[string]bool{}
	for _, it := range f.Items {
		if it == nil {
			continue
		}
		links := append([]string{it.Link}, it.Links...)
		for _, l := range links {
			if u, ok := urlnorm.Resolve(feedURL, l); ok && !seen[u] && len(out) < MaxLinks {
				seen[u] = true
				out = append(out, u)
			}
		}
	}
	return out, nil
}
