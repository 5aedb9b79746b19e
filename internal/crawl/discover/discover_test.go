package discover_test

import (
	"net/url"
	"reflect"
	"testing"

	"github.com/newscrawl/newscrawl/internal/crawl/discover"
)

func mustURL(s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		panic(err)
	}
	return u
}

func TestSniff_Kinds(t *testing.T) {
	tests := []struct {
		name, mediaType, body, want string
	}{
		{"html by header", "text/html", "<p>hi", discover.KindHTML},
		{"html by doctype, mislabelled", "text/plain", "\n<!DOCTYPE html><html>", discover.KindHTML},
		{"rss", "text/xml", `<?xml version="1.0"?><rss version="2.0">`, discover.KindFeed},
		{"atom served as html", "text/html", "<?xml version='1.0'?>\n<!-- c --><feed xmlns='http://www.w3.org/2005/Atom'>", discover.KindFeed},
		{"rdf", "application/xml", `<rdf:RDF xmlns:rdf="x">`, discover.KindFeed},
		{"sitemap", "application/xml", `<?xml version="1.0"?><urlset xmlns="x">`, discover.KindSitemap},
		{"sitemap index octet-stream", "application/octet-stream", "\xef\xbb\xbf<sitemapindex>", discover.KindSitemap},
		{"other xml", "application/xml", `<svg>`, discover.KindOther},
		{"binary", "", "%PDF-1.4", discover.KindOther},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := discover.Sniff(tt.mediaType, []byte(tt.body)); got != tt.want {
				t.Fatalf("Sniff = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestHTML_Links(t *testing.T) {
	body := `<html><head>
<link rel="canonical" href="/news/story?utm_source=x">
<link rel="alternate" type="application/rss+xml" href="/feed.xml">
<link rel="alternate" type="application/atom+xml" href="https://example.com/atom.xml">
<link rel="stylesheet" href="/s.css">
</head><body>
<a href="/a">A</a><a href="/a#comments">A again</a><a href="b?utm_medium=m&id=1">B</a>
<a href="javascript:void(0)">js</a><a href="mailto:x@example.com">mail</a>
<a rel="nofollow sponsored" href="/ad">ad</a><A HREF="//other.org/x">other</A>
</body></html>`
	p := discover.HTML(mustURL("https://example.com/news/index.html"), []byte(body))
	wantLinks := []string{"https://example.com/a", "https://example.com/news/b?id=1", "https://other.org/x"}
	if !reflect.DeepEqual(p.Links, wantLinks) {
		t.Fatalf("links = %v, want %v", p.Links, wantLinks)
	}
	if p.Canonical != "https://example.com/news/story" {
		t.Fatalf("canonical = %q", p.Canonical)
	}
	wantFeeds := []string{"https://example.com/feed.xml", "https://example.com/atom.xml"}
	if !reflect.DeepEqual(p.Feeds, wantFeeds) {
		t.Fatalf("feeds = %v", p.Feeds)
	}
}

func TestHTML_BaseAndRobotsMeta(t *testing.T) {
	body := `<head><base href="https://cdn.example.com/x/"><meta name="ROBOTS" content="noindex, nofollow"></head><a href="y">y</a>`
	p := discover.HTML(mustURL("https://example.com/"), []byte(body))
	if !p.NoIndex || !p.NoFollow || len(p.Links) != 0 {
		t.Fatalf("page = %+v", p)
	}
	p = discover.HTML(mustURL("https://example.com/"), []byte(`<base href="https://cdn.example.com/x/"><a href="y">`))
	if !reflect.DeepEqual(p.Links, []string{"https://cdn.example.com/x/y"}) {
		t.Fatalf("links = %v", p.Links)
	}
}

func TestFeed_RSSAndAtom(t *testing.T) {
	rss := `<?xml version="1.0"?><rss version="2.0"><channel><title>t</title>
<item><title>1</title><link>https://example.com/a1?utm_source=rss</link></item>
<item><title>2</title><link>/a2</link></item></channel></rss>`
	atom := `<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom"><title>t</title>
<entry><title>3</title><link href="https://example.com/a3"/><id>x</id></entry></feed>`
	got, err := discover.Feed(mustURL("https://example.com/feed.xml"), []byte(rss))
	if err != nil || !reflect.DeepEqual(got, []string{"https://example.com/a1", "https://example.com/a2"}) {
		t.Fatalf("rss = %v, %v", got, err)
	}
	got, err = discover.Feed(mustURL("https://example.com/atom.xml"), []byte(atom))
	if err != nil || !reflect.DeepEqual(got, []string{"https://example.com/a3"}) {
		t.Fatalf("atom = %v, %v", got, err)
	}
	if _, err := discover.Feed(mustURL("https://example.com/f"), []byte("<html>nope")); err == nil {
		t.Fatal("html parsed as a feed")
	}
}

func TestParseSitemap_Kinds(t *testing.T) {
	index := `<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<sitemap><loc>https://example.com/sm-1.xml.gz</loc></sitemap>
<sitemap><loc> https://example.com/news-sitemap.xml </loc></sitemap></sitemapindex>`
	news := `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:news="http://www.google.com/schemas/sitemap-news/0.9"
 xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">
<url><loc>https://example.com/a1</loc><news:news><news:publication><news:name>N</news:name></news:publication>
<news:title>T</news:title></news:news><image:image><image:loc>https://example.com/i.jpg</image:loc></image:image></url>
<url><loc>https://example.com/a2#x</loc></url></urlset>`
	latin1 := "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><urlset><url><loc>https://example.com/caf\xe9</loc></url></urlset>"
	tests := []struct {
		name, body          string
		wantPages, wantKids []string
	}{
		{"index", index, nil, []string{"https://example.com/sm-1.xml.gz", "https://example.com/news-sitemap.xml"}},
		{"news sitemap skips image locs", news, []string{"https://example.com/a1", "https://example.com/a2"}, nil},
		{"latin-1 declared", latin1, []string{"https://example.com/caf%C3%A9"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sm, err := discover.ParseSitemap(mustURL("https://example.com/sitemap.xml"), []byte(tt.body))
			if err != nil || !reflect.DeepEqual(sm.Pages, tt.wantPages) || !reflect.DeepEqual(sm.Children, tt.wantKids) {
				t.Fatalf("got %+v, %v", sm, err)
			}
		})
	}
}

func FuzzHTML(f *testing.F) {
	f.Add([]byte(`<a href="/x">x</a><link rel=canonical href="y"><base href="//h/">`))
	f.Fuzz(func(t *testing.T, body []byte) {
		p := discover.HTML(mustURL("https://example.com/a/"), body)
		if len(p.Links) > discover.MaxLinks {
			t.Fatal("too many links")
		}
	})
}

func FuzzParseSitemap(f *testing.F) {
	f.Add([]byte(`<urlset><url><loc>/a</loc></url></urlset>`))
	f.Fuzz(func(t *testing.T, body []byte) {
		_, _ = discover.ParseSitemap(mustURL("https://example.com/s.xml"), body)
	})
}

// The page's own metadata is read from its head: a canonical link or a
// robots meta in the body (a comment, an embed) neither re-keys the page
// nor unlists it, for the crawler (HTML) and for an archive's pages
// (Meta, which stops at <body>) alike.
func TestHTML_MetadataInTheBodyIsNotThePages(t *testing.T) {
	body := `<html><head><title>t</title><link rel="canonical" href="/story"></head>
<body><div class="comment"><link rel="canonical" href="https://spam.example/x">
<meta name="robots" content="noindex, nofollow"><base href="https://spam.example/"></div>
<a href="/next">next</a><link rel="alternate" type="application/rss+xml" href="/feed.xml"></body></html>`
	u := mustURL("https://example.com/a/story?x=1")
	for name, p := range map[string]discover.Page{"HTML": discover.HTML(u, []byte(body)), "Meta": discover.Meta(u, []byte(body))} {
		if p.Canonical != "https://example.com/story" || p.NoIndex || p.NoFollow {
			t.Errorf("%s: canonical %q, noindex %v, nofollow %v; want the head's canonical and no robots meta", name, p.Canonical, p.NoIndex, p.NoFollow)
		}
	}
	p := discover.HTML(u, []byte(body))
	if !reflect.DeepEqual(p.Links, []string{"https://example.com/next"}) || !reflect.DeepEqual(p.Feeds, []string{"https://example.com/feed.xml"}) {
		t.Fatalf("HTML: links %v, feeds %v; want the body's link and feed resolved against the page", p.Links, p.Feeds)
	}
}
