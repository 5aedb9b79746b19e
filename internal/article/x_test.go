package article
import ("testing";"os";"strings";"github.com/PuerkitoBio/goquery")
func TestXPage(t *testing.T) {
	b, _ := os.ReadFile(os.Getenv("XPAGE"))
	doc, _ := goquery.NewDocumentFromReader(strings.NewReader(string(b)))
	pm := collectMeta(doc.Find("*"), hintCache{}, os.Getenv("XURL"))
	t.Logf("bylines %q writtenBy %q links %q box %q ld %q", pm.bylines, pm.writtenBy, pm.authorLinks, pm.boxNames, pm.ld.authors)
}
