package article

import (
	"slices"
	"testing"
)

// A personal site's story that credits its owner by a first name is the
// owner's: the site's own name opens with it and spells the host.
func TestExtract_PersonalSiteOwnerCreditedByFirstName(t *testing.T) {
	body := pTags(articleParas(6))
	cases := []struct {
		name, url, head, foot string
		want                  []string
	}{
		{"a writer credited by a first name, on a site that opens with the whole", "https://www.brettlarkin.com/mats/", `<meta property="og:site_name" content="Brett Larkin Yoga">`,
			`<p>By <a href="/author/brett/">Brett</a></p>`, []string{"Brett Larkin"}},
		{"the copyright line's holder", "https://tobyhede.com/blog/agents", "", `<p>By <a href="/author/toby/">Toby</a></p><footer>&copy; 2025 Toby Hede. All rights reserved.</footer>`, []string{"Toby Hede"}},
		{"another first name stays", "https://www.brettlarkin.com/mats/", `<meta property="og:site_name" content="Brett Larkin Yoga">`,
			`<p>By <a href="/author/amanda/">Amanda</a></p>`, []string{"Amanda"}},
		{"a site name alone names no writer", "https://owain.bearblog.dev/tinybox", `<meta property="og:site_name" content="Owain Brennan">`, "", nil},
		{"a name that does not spell the host stays a first name", "https://acme-widgets.com/blog/agents", "", `<p>By <a href="/author/toby/">Toby</a></p><footer>© 2025 Toby Hede</footer>`, []string{"Toby"}},
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
