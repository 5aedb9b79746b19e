package article

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// sentences are distinct, comma-rich sentences for building article bodies.
var sentences = []string{
	"The city council voted on Tuesday to approve the new budget, which includes funding for schools, roads and parks.",
	"Officials said the plan, drafted over six months, would take effect in January after a final review by the mayor.",
	"Residents who attended the meeting raised concerns about rising costs, traffic congestion and the lack of affordable housing.",
	"Several council members argued that the proposal did not go far enough, while others warned it would strain the reserves.",
	"According to the finance department, revenue from property taxes grew by four percent, slightly above earlier forecasts.",
	"The mayor, speaking to reporters after the vote, called the budget a careful balance between ambition and responsibility.",
	"Critics noted that the library system, already short of staff, would receive no additional money under the plan.",
	"Local business owners, however, welcomed a proposed reduction in permit fees, saying it would help small shops recover.",
}

// articleParas returns n paragraph texts, each unique.
func articleParas(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("Paragraph %d opens here. %s %s", i+1, sentences[i%len(sentences)], sentences[(i+3)%len(sentences)])
	}
	return out
}

// pTags wraps paragraphs in <p> elements.
func pTags(ps []string) string {
	var sb strings.Builder
	for _, p := range ps {
		sb.WriteString("<p>" + p + "</p>\n")
	}
	return sb.String()
}

// mustExtract runs Extract and fails the test on error.
func mustExtract(t *testing.T, page, url string) *Article {
	t.Helper()
	a, err := Extract([]byte(page), url, Options{})
	if err != nil {
		t.Fatalf("Extract: %v", err)
	}
	return a
}

// publishedDay is a's publication day in UTC, or "" when it has none.
func publishedDay(a *Article) string {
	if a.PublishedAt == nil {
		return ""
	}
	return a.PublishedAt.UTC().Format(time.DateOnly)
}

// checkText fails t for each of want missing from text and each of notWant in it.
func checkText(t *testing.T, text string, want, notWant []string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("missing %q in:\n%s", w, text)
		}
	}
	for _, w := range notWant {
		if strings.Contains(text, w) {
			t.Errorf("kept %q in:\n%s", w, text)
		}
	}
}

// firstElement parses page and returns its first element of type a.
func firstElement(t *testing.T, page string, a atom.Atom) *html.Node {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	for n := range doc.Descendants() {
		if n.DataAtom == a {
			return n
		}
	}
	t.Fatalf("no <%s> in %q", a, page)
	return nil
}
