package article

import (
	"slices"
	"testing"
)

// A personal site's story that credits no one, or its owner by a first
// name, is its owner's: the site's own name on the owner's subdomain of a
// blogging platform, or spelling the host with the credited first name.
func TestExtract_PersonalSiteOwnerWritesUncreditedStories(t *testing.T) {
	body := pTags(articleParas(6))
	cases := []struct {
		name, url, head, foot string
		want                  []string
	}{
		{"another name on a blogging platform's subdomain", "https://agentsweekly.substack.com/p/agents", "", `<footer>&copy; 2025 Toby Hede. All rights reserved.</footer>`, nil},
		{"a copyright line on the owner's subdomain", "https://toby.bearblog.dev/agents", "", `<footer>&copy; 2025 Toby Hede. All rights reserved.</footer>`, []string{"Toby Hede"}},
		{"a brand that spells its host names no writer", "https://www.steamdeck.com/en/oled", `<meta property="og:site_name" content="Steam Deck">`, "", nil},
		{"the declared site name on a blogging platform's subdomain", "https://owain.bearblog.dev/tinybox", `<meta property="og:site_name" content="Owain Brennan">`, "", []string{"Owain Brennan"}},
		{"a first name on another site's subdomain", "https://news.example.com/tinybox", `<meta property="og:site_name" content="News Corp">`, "", nil},
		{"a firm's copyright on another host", "https://acme-widgets.com/blog/agents", "", `<footer>© 2025 John Lewis Partners</footer>`, nil},
		{"a writer credited by a first name, on a site that opens with the whole", "https://www.brettlarkin.com/mats/", `<meta property="og:site_name" content="Brett Larkin Yoga">`,
			`<p>By <a href="/author/brett/">Brett</a></p>`, []string{"Brett Larkin"}},
		{"another first name stays", "https://www.brettlarkin.com/mats/", `<meta property="og:site_name" content="Brett Larkin Yoga">`,
			`<p>By <a href="/author/amanda/">Amanda</a></p>`, []string{"Amanda"}},
		{"a byline comes first", "https://toby.bearblog.dev/agents", "", `<p class="byline">By Jane Roe</p><footer>© 2025 Toby Hede</footer>`, []string{"Jane Roe"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			page := `<html><head><title>A story</title>` + tc.head + `</head><body><article><h1>A story</h1>` + body + `</article>` + tc.foot + `</body></html>`
			if got := mustExtract(t, page, tc.url).Authors; !slices.Equal(got, tc.want) {
				t.Errorf("Authors = %q, want %q", got, tc.want)
			}
		})
	}
}
