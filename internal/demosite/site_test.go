package demosite

import (
	"encoding/xml"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// The site serves every kind of page the demo promises.
func TestHandler_ServesEveryKindOfPage(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &httptest.Server{Listener: ln, Config: &http.Server{Handler: Handler("http://" + ln.Addr().String())}}
	srv.Start()
	defer srv.Close()
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	get := func(path string) (int, http.Header, string) {
		t.Helper()
		resp, err := client.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header, string(b)
	}
	cases := []struct {
		path, wantType, wantBody string
		wantStatus               int
	}{
		{"/robots.txt", "text/plain", "Disallow: /drafts/", 200},
		{"/", "text/html", `href="/feeds/local.rss"`, 200},
		{"/local/", "text/html", "/news/harbour-bridge-reopens", 200},
		{"/local/harbour-bridge-reopens", "text/html", `"@type":"NewsArticle"`, 200},
		{"/feeds/local.rss", "application/rss+xml", "<item>", 200},
		{"/feeds/science.atom", "application/atom+xml", "<entry>", 200},
		{"/sitemap.xml", "application/xml", "<sitemapindex", 200},
		{"/sitemaps/news.xml", "application/xml", "<news:publication_date>", 200},
		{"/local/the-missing-story", "text/plain", "404", 404},
	}
	for _, c := range cases {
		status, h, body := get(c.path)
		if status != c.wantStatus || !strings.HasPrefix(h.Get("Content-Type"), c.wantType) || !strings.Contains(body, c.wantBody) {
			t.Errorf("%s: %d %s, body without %q", c.path, status, h.Get("Content-Type"), c.wantBody)
		}
		if strings.HasSuffix(c.path, ".xml") || strings.Contains(c.path, "feeds") {
			if err := xml.Unmarshal([]byte(body), new(struct{})); err != nil {
				t.Errorf("%s is not well-formed XML: %v", c.path, err)
			}
		}
	}
	for path, want := range map[string]string{"/s/0": articles[0].path(), "/news/comet-visible-tonight": "/science/comet-visible-tonight"} {
		status, h, _ := get(path)
		if status/100 != 3 || h.Get("Location") != want {
			t.Errorf("%s: %d to %q, want a redirect to %s", path, status, h.Get("Location"), want)
		}
	}
	for _, want := range Queries {
		if status, _, _ := get(want); status != 200 {
			t.Errorf("query target %s: %d", want, status)
		}
	}
}
