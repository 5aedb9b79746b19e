package crawl_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/newscrawl/newscrawl/internal/crawl"
	"github.com/newscrawl/newscrawl/internal/crawl/urlnorm"
	"github.com/newscrawl/newscrawl/internal/pipeline"
)

// newsSite builds a small news site: home and section pages, six articles
// reachable through links, an RSS feed, an Atom feed, a sitemap index with
// a gzip'd child and a news sitemap, a robots.txt with a Disallow and a
// Sitemap line, tracking and fragment variants of the same links, a 404,
// a PDF and a Latin-1 page without a charset.
func newsSite(t *testing.T) *site {
	s := newSite(t)
	s.page("/robots.txt", "text/plain", "User-agent: *\nDisallow: /private/\n\nSitemap: {base}/sitemap_index.xml\n")
	s.page("/", "text/html; charset=utf-8", `<!DOCTYPE html><html><head>
<link rel="alternate" type="application/rss+xml" href="/feed.xml">
<link rel="alternate" type="application/atom+xml" href="/atom.xml"></head><body>
<a href="/news/a1">1</a> <a href="/news/a1?utm_source=home#top">1 again</a> <a href="/news/a1?fbclid=zz">1 again</a>
<a href="/news/a2?utm_campaign=x">2</a> <a href="/news/./a3#comments">3</a>
<a href="/private/secret">secret</a> <a href="/missing">gone</a> <a href="/doc.pdf">pdf</a>
<a href="/latin">latin</a> <a href="/news/">section</a> <a href="http://elsewhere.example/x">other site</a>
<a href="/sitemap_index.xml">site map</a>
</body></html>`)
	s.page("/news/", "text/html", `<html><body><a href="/news/a2">2</a><a href="/news/a3">3</a></body></html>`)
	s.page("/news/a1", "text/html", article(1, "/news/a2", "/"))
	s.page("/news/a2", "text/html", article(2, "/news/a1?utm_medium=x"))
	s.page("/news/a3", "text/html", article(3, "/news/a3#x"))
	s.page("/news/a4", "text/html", article(4))
	s.page("/news/a5", "text/html", article(5))
	s.page("/news/a6", "text/html", article(6))
	s.page("/private/secret", "text/html", article(99))
	s.page("/doc.pdf", "application/pdf", "%PDF-1.4 not a page")
	s.handle("/latin", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<html><body><p>Caf\xe9 cr\xe8me, na\xefve</p></body></html>"))
	})
	s.page("/feed.xml", "application/rss+xml", `<?xml version="1.0"?><rss version="2.0"><channel><title>News</title>
<item><title>1</title><link>{base}/news/a1?utm_source=rss</link></item>
<item><title>4</title><link>{base}/news/a4</link></item></channel></rss>`)
	s.page("/atom.xml", "text/html", `<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom"><title>News</title>
<entry><title>4</title><id>4</id><link href="{base}/news/a4#c"/></entry></feed>`)
	s.page("/sitemap_index.xml", "application/xml", `<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<sitemap><loc>{base}/sitemap-1.xml.gz</loc></sitemap><sitemap><loc>{base}/news-sitemap.xml</loc></sitemap></sitemapindex>`)
	s.handle("/sitemap-1.xml.gz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/x-gzip")
		w.Write(gzipBytes(t, []byte(strings.ReplaceAll(`<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<url><loc>{base}/news/a3</loc></url><url><loc>{base}/news/a5</loc></url><url><loc>{base}/private/x</loc></url></urlset>`, "{base}", s.URL))))
	})
	s.page("/news-sitemap.xml", "text/xml", `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"
 xmlns:news="http://www.google.com/schemas/sitemap-news/0.9"><url><loc>{base}/news/a6</loc>
<news:news><news:publication><news:name>N</news:name><news:language>en</news:language></news:publication>
<news:publication_date>2025-01-01</news:publication_date><news:title>Six</news:title></news:news></url></urlset>`)
	return s
}

func TestCrawler_CrawlsSiteEndToEnd(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := newsSite(t)
	cfg := e.crawlConfig()
	e.start(e.consumerConfig(), e.crawler(cfg))
	e.seed(s.URL+"/", nil)
	e.waitIdle(30 * time.Second)

	for _, p := range []string{"/news/a1", "/news/a2", "/news/a3", "/news/a4", "/news/a5", "/news/a6", "/", "/news/",
		"/latin", "/feed.xml", "/atom.xml", "/sitemap_index.xml", "/sitemap-1.xml.gz", "/news-sitemap.xml", "/robots.txt",
		"/missing", "/doc.pdf"} {
		if n := s.hit(p); n != 1 {
			t.Errorf("%s fetched %d times, want exactly 1", p, n)
		}
	}
	for _, p := range []string{"/private/secret", "/private/x"} {
		if n := s.hit(p); n != 0 {
			t.Errorf("disallowed %s fetched %d times", p, n)
		}
		if st := e.state(s.URL + p); st != crawl.StateDisallowed {
			t.Errorf("%s state %q, want disallowed", p, st)
		}
	}
	if got := s.totalHits(); got != 17 {
		t.Errorf("%d requests in all, want 17 (each allowed URL once)", got)
	}
	wantStates := map[string]string{
		"/missing": crawl.StateGone, "/doc.pdf": crawl.StateSkipped, "/news/a4": crawl.StateFetched,
		"/feed.xml": crawl.StateFetched, "/sitemap-1.xml.gz": crawl.StateFetched,
	}
	for p, want := range wantStates {
		if got := e.state(s.URL + p); got != want {
			t.Errorf("%s state %q, want %q", p, got, want)
		}
	}

	// One clean message per HTML document, each with a documents row.
	htmlPages := []string{"/", "/news/", "/news/a1", "/news/a2", "/news/a3", "/news/a4", "/news/a5", "/news/a6", "/latin"}
	emits := e.cleanEmits()
	if len(emits) != len(htmlPages) {
		t.Errorf("clean stream has %d documents, want %d: %v", len(emits), len(htmlPages), emits)
	}
	for _, p := range htmlPages {
		u, _ := urlnorm.Normalize(s.URL + p)
		id := pipeline.DocID(u)
		if emits[id] != 1 {
			t.Errorf("%s emitted %d times to clean, want 1", p, emits[id])
		}
		var hash, kind string
		var body []byte
		if err := e.Pool.QueryRow(context.Background(), `SELECT body_hash, kind, body FROM documents WHERE doc_id = $1`, id).
			Scan(&hash, &kind, &body); err != nil {
			t.Errorf("%s: no documents row: %v", p, err)
			continue
		}
		if hash != pipeline.BodyHash(body) || kind != "html" {
			t.Errorf("%s: hash %s kind %s does not match its body", p, hash, kind)
		}
	}
	var body []byte
	var cs string
	u, _ := urlnorm.Normalize(s.URL + "/latin")
	if err := e.Pool.QueryRow(context.Background(), `SELECT body, charset FROM documents WHERE doc_id = $1`, pipeline.DocID(u)).
		Scan(&body, &cs); err != nil || cs != "windows-1252" || !strings.Contains(string(body), "Café crème, naïve") {
		t.Errorf("latin-1 page stored as %q (%s), %v", body, cs, err)
	}
	if d := e.dlq(); len(d) != 0 {
		t.Errorf("dead letters: %v", d)
	}
	var hubs int
	e.Pool.QueryRow(context.Background(), `SELECT count(*) FROM urls WHERE is_hub AND next_crawl_at > now()`).Scan(&hubs)
	if hubs != 6 { // home, two feeds, index, two sitemaps
		t.Errorf("%d hubs scheduled for recrawl, want 6", hubs)
	}
}
