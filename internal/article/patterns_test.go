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

// Headings over what follows a story in Japanese, Chinese and Korean: the
// writer's box, related news, the newsletter and Asahi's expert comments
// end it; related news always does.
func TestEndHeadingsInAsianScripts(t *testing.T) {
	for _, h := range []string{"この記事を書いた人", "関連ニュース", "ニュースレター", "コメントプラス", "相关新闻", "相關新聞", "관련뉴스", "관련 뉴스"} {
		if !isEndHeading(h) {
			t.Errorf("isEndHeading(%q) = false", h)
		}
	}
	for _, h := range []string{"関連ニュース", "相关新闻", "相關新聞", "관련뉴스"} {
		if !isStrongEnd(h) {
			t.Errorf("isStrongEnd(%q) = false", h)
		}
	}
	for _, h := range []string{"ニュースの背景", "新闻发布会", "뉴스 분석"} { // "the news's background", "press conference", "news analysis"
		if isEndHeading(h) {
			t.Errorf("isEndHeading(%q) = true", h)
		}
	}
}
