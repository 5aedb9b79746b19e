package article

import (
	"strings"
	"testing"
)

// A forum engine renders the posts for readers without scripts only in a
// <noscript>, beside an empty shell for its app: that page is read. A
// <noscript> the page does not depend on (a lazy image's fallback, a
// "turn on JavaScript" line, a copy shorter than the page) changes nothing,
// and one nested past the depth limit is left shut.
func TestExtract_PageHeldInNoscript(t *testing.T) {
	posts := `<div class="topic-body crawler-post"><span class="creator">orbit_fan</span>` + pTags(articleParas(4)) + `</div>` +
		`<div class="topic-body crawler-post"><span class="creator">dobson42</span>` + pTags(articleParas(8)[4:]) + `</div>`
	shell := `<section id="main"></section><form id="hidden-login-form" style="display:none"><input name="username"></form>`
	story := pTags(articleParas(6))
	cases := []struct {
		name, body string
		want       []string // paragraphs' openings the text must hold
		wantNot    []string
	}{
		{"a forum's posts behind an empty app shell",
			shell + `<noscript data-path="/t/first-telescope/1555"><h1>First telescope?</h1>` + posts + `</noscript>`,
			[]string{"Paragraph 1 opens here.", "Paragraph 8 opens here."}, nil},
		{"a story with a lazy image's fallback and a scripts line",
			`<article><h1>Council passes budget</h1>` + story + `<noscript><img src="photo.jpg" alt="The council chamber"></noscript></article>` +
				`<noscript><p>Please enable JavaScript to view the comments.</p></noscript><noscript>` +
				strings.Repeat(`<img src="https://cdn.example.com/gallery/photo.jpg" alt="" width="1200" height="800" loading="lazy">`, 30) + `</noscript>`,
			[]string{"Paragraph 1 opens here.", "Paragraph 6 opens here."}, []string{"Please enable JavaScript"}},
		{"a copy of a shorter part of the page",
			`<article><h1>Council passes budget</h1>` + story + `</article><noscript><div class="teaser">` + pTags(articleParas(6)[:4]) + `</div></noscript>`,
			[]string{"Paragraph 6 opens here."}, nil},
		{"posts nested past the depth limit (40 here)",
			shell + `<noscript>` + strings.Repeat("<div>", 40) + posts + `</noscript>`, nil, []string{"Paragraph 1 opens here."}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			page := `<html><head><title>Page</title></head><body>` + tc.body + `</body></html>`
			a, err := Extract([]byte(page), "https://forum.example.com/t/first-telescope/1555", Options{MaxDepth: 40})
			if err != nil {
				t.Fatal(err)
			}
			text := a.Text
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Errorf("text lacks %q:\n%s", w, text)
				}
			}
			for _, w := range tc.wantNot {
				if strings.Contains(text, w) {
					t.Errorf("text holds %q:\n%s", w, text)
				}
			}
			if n := strings.Count(text, "Paragraph 6 opens here."); n > 1 {
				t.Errorf("the sixth paragraph is there %d times", n)
			}
		})
	}
}
