package article

import (
	"strings"

	"github.com/PuerkitoBio/goquery"
	"github.com/andybalholm/cascadia"
	"golang.org/x/net/html"
)

// A paywalled article is extracted like any other: the text the page
// holds (a teaser, or the whole story served to crawlers) is kept and the
// subscription box around it dropped; Article.Paywalled says that a
// reader without a subscription sees less. The signs, in the order the
// publishers' own markup states them:
//   - JSON-LD isAccessibleForFree false on the article or its WebPage, or
//     on one of its hasPart elements (Google's paywalled-content markup,
//     whose cssSelector names the paid part of the page);
//   - microdata <meta itemprop="isAccessibleForFree" content="false">;
//   - <meta property="article:content_tier" content="locked">.

// takeAccess reads an article or web page object's access fields.
func (ld *ldData) takeAccess(m map[string]any) {
	if notFree(m["isAccessibleForFree"]) {
		ld.notFree = true
	}
	var parts []any
	switch p := m["hasPart"].(type) {
	case map[string]any:
		parts = []any{p}
	case []any:
		parts = p
	}
	for _, p := range parts {
		pm, ok := p.(map[string]any)
		if !ok || !notFree(pm["isAccessibleForFree"]) {
			continue
		}
		ld.notFree = true
		for _, sel := range strings.Split(str(pm["cssSelector"]), ",") {
			if sel = strings.TrimSpace(sel); sel != "" && len(ld.paidParts) < 8 {
				ld.paidParts = append(ld.paidParts, sel)
			}
		}
	}
}

// notFree reports an isAccessibleForFree value that says "no": false,
// "False", "false", "no" (publishers write all of them).
func notFree(v any) bool {
	switch t := v.(type) {
	case bool:
		return !t
	case string:
		switch strings.ToLower(strings.TrimSpace(t)) {
		case "false", "no", "0":
			return true
		}
	}
	return false
}

// paywalled reports whether the page's markup says the article is not
// free to read in full.
func (pm *pageMeta) paywalled() bool {
	if pm.ld.notFree || notFree(pm.get("isaccessibleforfree")) {
		return true
	}
	switch strings.ToLower(pm.get("article:content_tier")) {
	case "locked", "premium", "subscriber", "subscription":
		return true
	}
	return false
}

// paidContent returns the elements the JSON-LD names as the paid part of
// the article, and the free preview beside each: content, whatever their
// class says (".paywall" is the usual name of the element holding the
// story's paid paragraphs, "subscriber-preview" of TownNews's free ones).
// A selector that does not compile is ignored.
func paidContent(page *goquery.Document, sels []string) map[*html.Node]bool {
	if len(sels) == 0 {
		return nil
	}
	out := map[*html.Node]bool{}
	for _, s := range sels {
		m, err := cascadia.Compile(s)
		if err != nil {
			continue
		}
		for _, n := range page.FindMatcher(m).Nodes {
			out[n] = true
			if n.Parent == nil {
				continue
			}
			for sib := n.Parent.FirstChild; sib != nil; sib = sib.NextSibling {
				if sib.Type == html.ElementNode && strings.Contains(strings.ToLower(attr(sib, "class")), "preview") {
					out[sib] = true // the free part before it ("subscriber-preview" beside "subscriber-only")
				}
			}
		}
	}
	return out
}
