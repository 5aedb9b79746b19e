// Package demosite is the synthetic news site `make demo` crawls: a home
// page and three sections, articles with JSON-LD and bylines, an RSS and an
// Atom feed, a sitemap index with a news sitemap, a robots.txt with a
// Disallow, redirects from short and legacy links, and a broken link. It
// ships with the project so that a first user without a site of their own
// sees the pipeline work, offline.
package demosite

import (
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"sort"
	"strings"
	"time"
)

// Name is the site's name, in its pages and feeds.
const Name = "The Valley Courier"

type article struct {
	slug, section, date, author, title string
	paras                              []string
}

func (a article) path() string { return "/" + a.section + "/" + a.slug }

// sections lists the sections in the order the home page shows them.
var sections = []string{"local", "world", "science"}

// Handler serves the site. base is the address it is reached at (for the
// absolute URLs feeds and sitemaps carry), e.g. http://127.0.0.1:18600.
func Handler(base string) http.Handler {
	base = strings.TrimRight(base, "/")
	mux := http.NewServeMux()
	mux.HandleFunc("GET /robots.txt", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintf(w, "User-agent: *\nDisallow: /drafts/\n\nSitemap: %s/sitemap.xml\n", base)
	})
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) { page(w, home(base)) })
	for _, s := range sections {
		mux.HandleFunc("GET /"+s+"/{$}", func(w http.ResponseWriter, r *http.Request) { page(w, section(s)) })
	}
	for _, a := range articles {
		mux.HandleFunc("GET "+a.path(), func(w http.ResponseWriter, r *http.Request) { page(w, articlePage(base, a)) })
	}
	// A short link and a legacy path: the crawler must fetch each article once.
	mux.HandleFunc("GET /s/{n}", func(w http.ResponseWriter, r *http.Request) {
		var n int
		if _, err := fmt.Sscanf(r.PathValue("n"), "%d", &n); err != nil || n < 0 || n >= len(articles) {
			http.NotFound(w, r)
			return
		}
		http.Redirect(w, r, articles[n].path(), http.StatusMovedPermanently)
	})
	mux.HandleFunc("GET /news/{slug}", func(w http.ResponseWriter, r *http.Request) {
		for _, a := range articles {
			if a.slug == r.PathValue("slug") {
				http.Redirect(w, r, a.path(), http.StatusFound)
				return
			}
		}
		http.NotFound(w, r)
	})
	mux.HandleFunc("GET /drafts/{slug}", func(w http.ResponseWriter, r *http.Request) {
		page(w, `<html><head><title>Draft</title></head><body><p>An unpublished draft robots.txt keeps out.</p></body></html>`)
	})
	mux.HandleFunc("GET /feeds/local.rss", func(w http.ResponseWriter, r *http.Request) { rss(w, base, "local") })
	mux.HandleFunc("GET /feeds/science.atom", func(w http.ResponseWriter, r *http.Request) { atom(w, base, "science") })
	mux.HandleFunc("GET /sitemap.xml", func(w http.ResponseWriter, r *http.Request) { sitemapIndex(w, base) })
	mux.HandleFunc("GET /sitemaps/articles.xml", func(w http.ResponseWriter, r *http.Request) { sitemap(w, base, false) })
	mux.HandleFunc("GET /sitemaps/news.xml", func(w http.ResponseWriter, r *http.Request) { sitemap(w, base, true) })
	return mux
}

func page(w http.ResponseWriter, body string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprint(w, body)
}

func nav() string {
	var b strings.Builder
	b.WriteString(`<header><a href="/">` + Name + `</a><nav>`)
	for _, s := range sections {
		fmt.Fprintf(&b, ` <a href="/%s/">%s</a>`, s, strings.ToUpper(s[:1])+s[1:])
	}
	b.WriteString(`</nav></header>`)
	return b.String()
}

func footer() string {
	return `<footer><p>© ` + Name + `. <a href="/about">About us</a> · <a href="/drafts/next-week">Next week</a></p></footer>`
}

func home(base string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `<!doctype html><html lang="en"><head><title>%s</title>
<link rel="alternate" type="application/rss+xml" title="Local news" href="/feeds/local.rss">
<link rel="alternate" type="application/atom+xml" title="Science" href="/feeds/science.atom"></head><body>%s<main><h1>%s</h1><ul>`,
		Name, nav(), Name)
	// The home page links through the short links: redirects the crawler follows once.
	for i, a := range articles[:4] {
		fmt.Fprintf(&b, `<li><a href="/s/%d">%s</a></li>`, i, html.EscapeString(a.title))
	}
	b.WriteString(`<li><a href="/local/the-missing-story">A story that was taken down</a></li></ul></main>` + footer() + `</body></html>`)
	return b.String()
}

func section(s string) string {
	var b strings.Builder
	title := strings.ToUpper(s[:1]) + s[1:]
	fmt.Fprintf(&b, `<!doctype html><html lang="en"><head><title>%s - %s</title></head><body>%s<main><h1>%s</h1><ul>`, title, Name, nav(), title)
	for _, a := range articles {
		if a.section == s {
			fmt.Fprintf(&b, `<li><a href="/news/%s">%s</a></li>`, a.slug, html.EscapeString(a.title))
		}
	}
	b.WriteString(`</ul></main>` + footer() + `</body></html>`)
	return b.String()
}

func articlePage(base string, a article) string {
	ld, _ := json.Marshal(map[string]any{
		"@context": "https://schema.org", "@type": "NewsArticle", "headline": a.title,
		"datePublished": a.date, "author": map[string]string{"@type": "Person", "name": a.author},
		"publisher":        map[string]string{"@type": "Organization", "name": Name},
		"mainEntityOfPage": base + a.path(), "articleSection": a.section,
	})
	var b strings.Builder
	fmt.Fprintf(&b, `<!doctype html><html lang="en"><head><title>%s - %s</title>
<meta property="og:type" content="article"><meta property="og:title" content="%s">
<meta property="article:published_time" content="%s"><meta name="author" content="%s">
<link rel="canonical" href="%s%s">
<script type="application/ld+json">%s</script></head><body>%s<main><article><h1>%s</h1>
<p class="byline">By %s, <time datetime="%s">%s</time></p>`,
		html.EscapeString(a.title), Name, html.EscapeString(a.title), a.date, a.author, base, a.path(), ld, nav(),
		html.EscapeString(a.title), a.author, a.date, date(a.date).Format("2 January 2006"))
	for _, p := range a.paras {
		fmt.Fprintf(&b, "<p>%s</p>\n", html.EscapeString(p))
	}
	b.WriteString(`</article><aside class="related"><h2>More news</h2><ul>`)
	for _, o := range articles {
		if o.section == a.section && o.slug != a.slug {
			fmt.Fprintf(&b, `<li><a href="%s">%s</a></li>`, o.path(), html.EscapeString(o.title))
		}
	}
	b.WriteString(`</ul></aside></main>` + footer() + `</body></html>`)
	return b.String()
}

func date(s string) time.Time {
	t, _ := time.Parse(time.RFC3339, s)
	return t
}

// byDate is the section's articles, newest first.
func byDate(s string) []article {
	var out []article
	for _, a := range articles {
		if s == "" || a.section == s {
			out = append(out, a)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].date > out[j].date })
	return out
}

func rss(w http.ResponseWriter, base, s string) {
	w.Header().Set("Content-Type", "application/rss+xml; charset=utf-8")
	fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel><title>%s: %s</title><link>%s/%s/</link><description>%s news</description>`,
		Name, s, base, s, s)
	for _, a := range byDate(s) {
		fmt.Fprintf(w, `<item><title>%s</title><link>%s%s</link><pubDate>%s</pubDate><author>%s</author></item>`,
			html.EscapeString(a.title), base, a.path(), date(a.date).Format(time.RFC1123Z), a.author)
	}
	fmt.Fprint(w, `</channel></rss>`)
}

func atom(w http.ResponseWriter, base, s string) {
	w.Header().Set("Content-Type", "application/atom+xml; charset=utf-8")
	fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?><feed xmlns="http://www.w3.org/2005/Atom"><title>%s: %s</title><id>%s/%s/</id><updated>%s</updated>`,
		Name, s, base, s, byDate(s)[0].date)
	for _, a := range byDate(s) {
		fmt.Fprintf(w, `<entry><title>%s</title><link href="%s%s"/><id>%s%s</id><updated>%s</updated><author><name>%s</name></author></entry>`,
			html.EscapeString(a.title), base, a.path(), base, a.path(), a.date, a.author)
	}
	fmt.Fprint(w, `</feed>`)
}

func sitemapIndex(w http.ResponseWriter, base string) {
	w.Header().Set("Content-Type", "application/xml; charset=utf-8")
	fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<sitemap><loc>%s/sitemaps/articles.xml</loc></sitemap><sitemap><loc>%s/sitemaps/news.xml</loc></sitemap></sitemapindex>`, base, base)
}

func sitemap(w http.ResponseWriter, base string, news bool) {
	w.Header().Set("Content-Type", "application/xml; charset=utf-8")
	fmt.Fprint(w, `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:news="http://www.google.com/schemas/sitemap-news/0.9">`)
	for _, a := range byDate("") {
		if news {
			fmt.Fprintf(w, `<url><loc>%s%s</loc><news:news><news:publication><news:name>%s</news:name><news:language>en</news:language></news:publication><news:publication_date>%s</news:publication_date><news:title>%s</news:title></news:news></url>`,
				base, a.path(), Name, a.date, html.EscapeString(a.title))
			continue
		}
		fmt.Fprintf(w, `<url><loc>%s%s</loc><lastmod>%s</lastmod></url>`, base, a.path(), a.date[:10])
	}
	fmt.Fprint(w, `</urlset>`)
}

// Articles is how many articles the site has.
func Articles() int { return len(articles) }

// Queries are searches the demo runs, each with the article it should find.
var Queries = map[string]string{
	"bridge reopened after repairs": "/local/harbour-bridge-reopens",
	"comet visible in the evening":  "/science/comet-visible-tonight",
	"train drivers strike pay deal": "/world/rail-strike-ends",
}
