package article

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"
)

// articleTypes are schema.org types describing a single article.
var articleTypes = map[string]bool{
	"article": true, "newsarticle": true, "blogposting": true, "reportagenewsarticle": true,
	"analysisnewsarticle": true, "opinionnewsarticle": true, "reviewnewsarticle": true,
	"backgroundnewsarticle": true, "askpublicnewsarticle": true, "socialmediaposting": true,
	"scholarlyarticle": true, "techarticle": true, "report": true, "liveblogposting": true,
	"posting": true, "review": true, "satiricalarticle": true, "advertisercontentarticle": true,
	"medicalscholarlyarticle": true, "discussionforumposting": true, "blog": false,
}

// datedPageTypes are the types besides a WebPage whose datePublished is
// the page's day where no article dates it: a health site's page, a
// recipe, a how-to.
var datedPageTypes = map[string]bool{"medicalwebpage": true, "recipe": true, "howto": true}

// ldData is what the page's JSON-LD says about the article and the page.
type ldData struct {
	headline      string
	name          string // an article's name: its headline on most sites, not on all
	description   string
	body          string
	authors       []string
	published     string
	modified      string
	pagePublished string // a WebPage's (or datedPageTypes') datePublished: the page's day, a story's only when nothing else dates it
	pageHeadline  string // a WebPage's (or datedPageTypes') headline: what an h1 may be checked against
	image         string
	publisher     string
	section       string
	keywords      []string
	language      string
	url           string
	types         map[string]bool // every @type seen (lower-case)
	articleCounts int             // number of article-typed objects
	notFree       bool            // the article or its page says isAccessibleForFree: false
	paidParts     []string        // cssSelector of hasPart elements not free to read
	// authorRefs are the @ids an article names its authors by when it
	// gives no name (Yoast's graph: "author": {"@id": ".../#/schema/person/…"});
	// named maps the @id of every named object to its name, to read them.
	authorRefs []string
	named      map[string]string
}

// collectJSONLD reads every ld+json script among elems, and those Next.js
// writes as a call that adds them when the page runs (nextScriptLD).
func collectJSONLD(elems *goquery.Selection) *ldData {
	var bodies []string
	elems.FilterMatcher(selScript).Each(func(_ int, s *goquery.Selection) {
		if strings.Contains(strings.ToLower(s.AttrOr("type", "")), "ld+json") {
			bodies = append(bodies, s.Text())
		} else if c := s.Nodes[0].FirstChild; c != nil && c.Type == html.TextNode {
			bodies = append(bodies, nextScriptLD(c.Data)...)
		}
	})
	return parseJSONLD(bodies)
}

// nextScriptPush starts the inline script by which Next.js's app router
// writes a head script that must run before the page does, JSON-LD
// included: (self.__next_s=self.__next_s||[]).push([0,{"type":
// "application/ld+json","children":"{…}"}]).
const nextScriptPush = "(self.__next_s=self.__next_s||[]).push("

// nextScriptLD is the JSON-LD that a script's Next.js head-script calls
// carry: none, one, or several calls in a row, each child given as a
// string of JSON or as JSON itself.
func nextScriptLD(body string) []string {
	body = strings.TrimSpace(body)
	if !strings.HasPrefix(body, nextScriptPush) {
		return nil
	}
	var out []string
	for rest := body; ; {
		i := strings.Index(rest, nextScriptPush)
		if i < 0 {
			return out
		}
		rest = rest[i+len(nextScriptPush):]
		var call []json.RawMessage
		if json.NewDecoder(strings.NewReader(rest)).Decode(&call) != nil || len(call) < 2 {
			continue
		}
		var script struct {
			Type     string
			Children json.RawMessage
		}
		if json.Unmarshal(call[1], &script) != nil || !strings.Contains(strings.ToLower(script.Type), "ld+json") || len(script.Children) == 0 {
			continue
		}
		var text string
		if json.Unmarshal(script.Children, &text) != nil {
			text = string(script.Children) // the object itself
		}
		out = append(out, text)
	}
}

// parseJSONLD merges all ld+json script bodies; malformed blocks are skipped
// after one repair attempt (raw control characters inside strings).
func parseJSONLD(scripts []string) *ldData {
	ld := &ldData{types: map[string]bool{}}
	for _, s := range scripts {
		s = unwrapScript(s)
		var v any
		if err := json.Unmarshal([]byte(s), &v); err != nil {
			repaired := strings.Map(func(r rune) rune {
				if r < 0x20 {
					return ' '
				}
				return r
			}, s)
			if err := json.Unmarshal([]byte(repaired), &v); err != nil {
				continue
			}
		}
		ld.walk(v, 0)
	}
	if len(ld.authors) == 0 {
		for _, id := range ld.authorRefs {
			if n := ld.named[id]; n != "" {
				ld.authors = append(ld.authors, n)
			}
		}
	}
	return ld
}

// unwrapScript removes what pages wrap a script body in for old parsers:
// an HTML comment, a CDATA section (also behind "//"), a trailing ";".
func unwrapScript(s string) string {
	s = strings.TrimSpace(s)
	for _, w := range [...][2]string{{"<!--", "-->"}, {"//<![CDATA[", "//]]>"}, {"<![CDATA[", "]]>"}} {
		if strings.HasPrefix(s, w[0]) {
			s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(strings.TrimPrefix(s, w[0])), w[1]))
		}
	}
	return strings.TrimSpace(strings.TrimSuffix(s, ";"))
}

// walk visits objects, arrays and @graph lists looking for article objects.
func (ld *ldData) walk(v any, depth int) {
	if depth > 8 {
		return
	}
	switch t := v.(type) {
	case []any:
		for _, e := range t {
			ld.walk(e, depth+1)
		}
	case map[string]any:
		isArticle, isPage, dated := false, false, false
		for _, ty := range typeNames(t["@type"]) {
			ld.types[ty] = true
			if articleTypes[ty] {
				isArticle = true
			}
			isPage = isPage || ty == "webpage" || ty == "itempage"
			dated = dated || datedPageTypes[ty]
		}
		if isArticle {
			ld.articleCounts++
			ld.takeArticle(t)
		}
		if isArticle || isPage {
			ld.takeAccess(t)
		}
		if (isPage || dated) && ld.pagePublished == "" {
			ld.pagePublished = str(t["datePublished"])
		}
		if (isPage || dated) && ld.pageHeadline == "" {
			ld.pageHeadline = str(t["headline"])
		}
		if id, name := str(t["@id"]), str(t["name"]); id != "" && name != "" {
			if ld.named == nil {
				ld.named = map[string]string{}
			}
			if _, ok := ld.named[id]; !ok {
				ld.named[id] = name
			}
		}
		if g, ok := t["@graph"]; ok {
			ld.walk(g, depth+1)
		}
		if me, ok := t["mainEntity"]; ok {
			ld.walk(me, depth+1)
		}
		if lang := str(t["inLanguage"]); lang != "" && ld.language == "" {
			ld.language = lang
		}
	}
}

// takeArticle copies fields of an article object; the first object with a
// given field wins, except that a longer body replaces a shorter one.
func (ld *ldData) takeArticle(m map[string]any) {
	setIf := func(dst *string, v string) {
		if *dst == "" && v != "" {
			*dst = v
		}
	}
	setIf(&ld.headline, str(m["headline"]))
	setIf(&ld.name, str(m["name"]))
	setIf(&ld.description, str(m["description"]))
	if b := str(m["articleBody"]); len(b) > len(ld.body) {
		ld.body = b
	}
	if b := str(m["text"]); ld.body == "" && len(b) > 200 {
		ld.body = b
	}
	if len(ld.authors) == 0 {
		ld.authors = names(m["author"])
		if len(ld.authors) == 0 {
			ld.authors = names(m["creator"])
		}
		if len(ld.authors) == 0 && len(ld.authorRefs) == 0 {
			ld.authorRefs = refs(m["author"])
		}
	}
	setIf(&ld.published, str(m["datePublished"]))
	setIf(&ld.published, str(m["dateCreated"]))
	setIf(&ld.modified, str(m["dateModified"]))
	setIf(&ld.image, urlOf(m["image"]))
	setIf(&ld.image, urlOf(m["thumbnailUrl"]))
	if p := names(m["publisher"]); len(p) > 0 {
		setIf(&ld.publisher, p[0])
	}
	setIf(&ld.section, first(m["articleSection"]))
	if len(ld.keywords) == 0 {
		ld.keywords = keywordList(m["keywords"])
	}
	setIf(&ld.language, str(m["inLanguage"]))
	setIf(&ld.url, urlOf(m["mainEntityOfPage"]))
	setIf(&ld.url, str(m["url"]))
}

// typeNames returns the lower-cased @type values (string or array, with or
// without a schema.org prefix).
func typeNames(v any) []string {
	var out []string
	add := func(s string) {
		s = strings.ToLower(strings.TrimSpace(s))
		if i := strings.LastIndexAny(s, "/:#"); i >= 0 {
			s = s[i+1:]
		}
		if s != "" {
			out = append(out, s)
		}
	}
	switch t := v.(type) {
	case string:
		add(t)
	case []any:
		for _, e := range t {
			if s, ok := e.(string); ok {
				add(s)
			}
		}
	}
	return out
}

// str returns v as a trimmed string (numbers and one-element arrays allowed).
func str(v any) string {
	switch t := v.(type) {
	case string:
		return strings.TrimSpace(t)
	case float64:
		return strconv.FormatFloat(t, 'f', -1, 64)
	case []any:
		if len(t) > 0 {
			return str(t[0])
		}
	case map[string]any:
		if s := str(t["@value"]); s != "" {
			return s
		}
	}
	return ""
}

// first returns the first string of a string-or-array value.
func first(v any) string {
	if a, ok := v.([]any); ok {
		for _, e := range a {
			if s := str(e); s != "" {
				return s
			}
		}
		return ""
	}
	return str(v)
}

// names extracts person/organisation names from a string, object or array.
func names(v any) []string {
	var out []string
	switch t := v.(type) {
	case string:
		if s := strings.TrimSpace(t); s != "" {
			out = append(out, s)
		}
	case map[string]any:
		if n := str(t["name"]); n != "" {
			out = append(out, n)
		} else if gn := str(t["givenName"]); gn != "" {
			out = append(out, strings.TrimSpace(gn+" "+str(t["familyName"])))
		}
	case []any:
		for _, e := range t {
			out = append(out, names(e)...)
		}
	}
	return out
}

// refs returns the @ids of the unnamed objects in v, an object or an array.
func refs(v any) []string {
	var out []string
	switch t := v.(type) {
	case map[string]any:
		if id := str(t["@id"]); id != "" && len(names(t)) == 0 {
			out = append(out, id)
		}
	case []any:
		for _, e := range t {
			out = append(out, refs(e)...)
		}
	}
	return out
}

// urlOf extracts a URL from a string, an ImageObject/WebPage or an array.
func urlOf(v any) string {
	switch t := v.(type) {
	case string:
		return strings.TrimSpace(t)
	case map[string]any:
		if u := str(t["url"]); u != "" {
			return u
		}
		if u := str(t["contentUrl"]); u != "" {
			return u
		}
		return str(t["@id"])
	case []any:
		for _, e := range t {
			if u := urlOf(e); u != "" {
				return u
			}
		}
	}
	return ""
}

// keywordList accepts "a, b, c" or ["a","b"].
func keywordList(v any) []string {
	var out []string
	switch t := v.(type) {
	case string:
		for _, k := range strings.Split(t, ",") {
			if k = strings.TrimSpace(k); k != "" {
				out = append(out, k)
			}
		}
	case []any:
		for _, e := range t {
			out = append(out, keywordList(e)...)
		}
	}
	return out
}
