package article

import "testing"

// A word that begins with a vocabulary entry but means something else
// takes none of its hints: "authorization" holds sign-in links.
func TestComputeHints_WordsThatHoldAuthor(t *testing.T) {
	cases := []struct {
		class  string
		byline bool
	}{
		{"author-name", true},
		{"post-author", true},
		{"coAuthors", true},
		{"authorization", false},
		{"authorisation-box", false},
		{"domain-authority", false},
		{"authorization author", true},
		{"article-author-item", true},
		{"authorItem", true},
		{"author_itemprop", true},
		{"author-is-verified", true},
	}
	for _, tc := range cases {
		if got := computeHints(tc.class)&hByline != 0; got != tc.byline {
			t.Errorf("computeHints(%q) byline = %v, want %v", tc.class, got, tc.byline)
		}
	}
}
