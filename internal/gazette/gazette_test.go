package gazette

import (
	"regexp"
	"strings"
	"testing"

	"github.com/newscrawl/newscrawl/internal/clean"
)

// The generated articles must all survive duplicate detection: no two
// within the cleaner's Hamming distance.
func TestArticlePage_NoTwoAreNearDuplicates(t *testing.T) {
	tags := regexp.MustCompile(`<[^>]+>`)
	const n = 400
	hashes := make([]uint64, n)
	for i := range n {
		hashes[i] = clean.SimHash(tags.ReplaceAllString(ArticlePage(i), " "))
	}
	closest := 64
	for i := range n {
		for j := i + 1; j < n; j++ {
			if d := clean.Hamming(hashes[i], hashes[j]); d < closest {
				closest = d
			}
		}
	}
	if closest <= clean.DefaultMaxHamming+3 {
		t.Fatalf("two generated articles are %d bits apart; the cleaner merges at %d", closest, clean.DefaultMaxHamming)
	}
}

func TestTitle_IsTheArticlesHeadline(t *testing.T) {
	for _, n := range []int{0, 123, 1000} {
		if page := ArticlePage(n); !strings.Contains(page, "<h1>"+Title(n)+"</h1>") {
			t.Fatalf("Title(%d) = %q is not the page's headline", n, Title(n))
		}
	}
}
