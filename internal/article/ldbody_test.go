package article

import (
	"encoding/json"
	"strings"
	"testing"
)

// ldScript renders a NewsArticle JSON-LD block with the given body.
func ldScript(t *testing.T, body string) string {
	t.Helper()
	b, err := json.Marshal(map[string]any{"@context": "https://schema.org", "@type": "NewsArticle", "headline": "H", "articleBody": body})
	if err != nil {
		t.Fatal(err)
	}
	return `<script type="application/ld+json">` + string(b) + `</script>`
}

func TestExtractUsesJSONLDArticleBody(t *testing.T) {
	ps := articleParas(6)
	t.Run("shell page falls back to articleBody", func(t *testing.T) {
		page := `<html><head>` + ldScript(t, strings.Join(ps, "\n")) + `</head><body><div id="app"><p>Loading the story, please wait a moment while we fetch it for you.</p></div></body></html>`
		a := mustExtract(t, page, "")
		for _, p := range ps {
			if !strings.Contains(a.Text, p) {
				t.Errorf("missing %q", p[:25])
			}
		}
		if strings.Contains(a.Text, "Loading the story") {
			t.Errorf("shell text kept: %q", a.Text)
		}
		if !a.IsArticle {
			t.Errorf("IsArticle = false")
		}
	})
	t.Run("articleBody filters unlisted blocks", func(t *testing.T) {
		promo := "Our award-winning journalism relies on readers like you, so please consider a donation today to support our reporting."
		page := `<html><head>` + ldScript(t, strings.Join(ps, "\n\n")) + `</head><body><article>` + pTags(ps[:3]) +
			`<p>` + promo + `</p>` + pTags(ps[3:]) + `</article></body></html>`
		a := mustExtract(t, page, "")
		if strings.Contains(a.Text, "award-winning") {
			t.Errorf("promo kept although absent from articleBody")
		}
		for _, p := range ps {
			if !strings.Contains(a.Text, p) {
				t.Errorf("missing %q", p[:25])
			}
		}
	})
	t.Run("truncated articleBody does not cut the DOM text", func(t *testing.T) {
		page := `<html><head>` + ldScript(t, ps[0]+" "+ps[1]) + `</head><body><article>` + pTags(ps) + `</article></body></html>`
		a := mustExtract(t, page, "")
		for _, p := range ps {
			if !strings.Contains(a.Text, p) {
				t.Errorf("missing %q", p[:25])
			}
		}
	})
	t.Run("html articleBody", func(t *testing.T) {
		body := "<p>" + strings.Join(ps, "</p><p>") + "</p>"
		page := `<html><head>` + ldScript(t, body) + `</head><body><div id="app"></div></body></html>`
		a := mustExtract(t, page, "")
		if !strings.Contains(a.Text, ps[0]+"\n\n"+ps[1]) {
			t.Errorf("HTML articleBody not rendered as paragraphs: %q", a.Text)
		}
	})
}

func TestExtractRetriesWithoutClassStripping(t *testing.T) {
	ps := articleParas(6)
	// The only wrapper is named like chrome; stripping it would leave nothing.
	page := `<html><body><div class="has-sidebar layout-share"><div>` + pTags(ps) + `</div></div></body></html>`
	a := mustExtract(t, page, "")
	for _, p := range ps {
		if !strings.Contains(a.Text, p) {
			t.Errorf("missing %q", p[:25])
		}
	}
}

func TestExtractCutsTrailingSections(t *testing.T) {
	ps := articleParas(6)
	page := `<html><body><article>` + pTags(ps) + `<h3>You may also like</h3>` +
		pTags([]string{"Another story about the weather in the region, with rain expected all week long, forecasters said."}) +
		`</article></body></html>`
	a := mustExtract(t, page, "")
	if strings.Contains(a.Text, "You may also like") || strings.Contains(a.Text, "forecasters said") {
		t.Errorf("trailing section kept:\n%s", a.Text)
	}
	if !strings.Contains(a.Text, ps[5]) {
		t.Errorf("article text lost")
	}
}

// Next.js's app router writes JSON-LD as a call that adds the script when
// the page runs; its metadata is read as a plain ld+json script's, in the
// head or in the body, and the raw-text stage keeps the call.
func TestExtract_NextJSHeadScriptLD(t *testing.T) {
	ld, err := json.Marshal(map[string]any{"@context": "https://schema.org", "@graph": []any{map[string]any{
		"@type": "BlogPosting", "headline": "Metasploit Wrap-Up",
		"author": []any{map[string]any{"@type": "Person", "name": "Spencer McIntyre"}}, "datePublished": "2025-12-19T21:06:04.671Z"}}})
	if err != nil {
		t.Fatal(err)
	}
	call, err := json.Marshal([]any{0, map[string]any{"type": "application/ld+json", "children": string(ld)}})
	if err != nil {
		t.Fatal(err)
	}
	script := `<script>(self.__next_s=self.__next_s||[]).push(` + string(call) + `)</script>`
	for _, where := range []string{"head", "body"} {
		t.Run(where, func(t *testing.T) {
			head, body := "", ""
			if where == "head" {
				head = script
			} else {
				body = script
			}
			page := `<html><head><title>Metasploit Wrap-Up</title>` + head + `</head><body>` + body +
				`<article><h1>Metasploit Wrap-Up</h1>` + pTags(articleParas(6)) + `</article></body></html>`
			if !strings.Contains(dropScriptText(page), string(call)) {
				t.Errorf("dropScriptText cut the Next.js call")
			}
			a := mustExtract(t, page, "https://www.example.com/blog/post/metasploit-wrap-up/")
			if got := strings.Join(a.Authors, "|"); got != "Spencer McIntyre" {
				t.Errorf("Authors = %q, want Spencer McIntyre", got)
			}
			if a.PublishedAt == nil || a.PublishedAt.Format("2006-01-02T15:04") != "2025-12-19T21:06" {
				t.Errorf("PublishedAt = %v, want 2025-12-19T21:06", a.PublishedAt)
			}
		})
	}
}

func TestNextScriptLD(t *testing.T) {
	push := `(self.__next_s=self.__next_s||[]).push(`
	cases := []struct{ body, want string }{
		{` ` + push + `[0,{"type":"application/ld+json","children":"{\"@type\":\"Article\"}"}]);`, `{"@type":"Article"}`},
		{push + `["https://example.com/forms.js",{}])`, ""},            // a script loaded by its address
		{push + `[0,{"children":"window.dataLayer=[]"}])`, ""},         // inline code
		{push + `[0,{"type":"application/ld+json","children":"{"`, ""}, // cut short
		{`window.__next_s=[{"type":"application/ld+json"}]`, ""},
		{push + `[0,{"type":"application/ld+json","children":{"@type":"Article"}}])`, `{"@type":"Article"}`}, // JSON itself
		{push + `[0,{"type":"application/ld+json","children":"{\"@type\":\"Person\"}"}]);` + push + `["/a.js",{}]);` +
			push + `[0,{"type":"application/ld+json","children":"{\"@type\":\"Article\"}"}])`, `{"@type":"Person"}|{"@type":"Article"}`},
	}
	for _, tc := range cases {
		if got := strings.Join(nextScriptLD(tc.body), "|"); got != tc.want {
			t.Errorf("nextScriptLD(%q) = %q; want %q", tc.body, got, tc.want)
		}
	}
}
