package article

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// treeWithoutScriptText renders the tree the parser builds from src, with
// the text of every script and style element and the values of unread
// attributes left out: what dropScriptText may change and nothing else.
func treeWithoutScriptText(t testing.TB, src string) (tree string, ld []string) {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(src))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	var b strings.Builder
	var walk func(n *html.Node, depth int)
	walk = func(n *html.Node, depth int) {
		raw := n.Type == html.ElementNode && (n.DataAtom == atom.Script || n.DataAtom == atom.Style)
		attrs := slices.Clone(n.Attr)
		for i, a := range attrs {
			if isUnreadAttr(a.Key, nil) {
				attrs[i].Val = ""
			}
		}
		fmt.Fprintf(&b, "%s%d %s %q %q\n", strings.Repeat(" ", depth), n.Type, n.Namespace, n.Data, attrs)
		if raw && n.DataAtom == atom.Script && strings.Contains(strings.ToLower(attr(n, "type")), "ld+json") {
			ld = append(ld, textOf(n))
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if raw && c.Type == html.TextNode {
				continue
			}
			walk(c, depth+1)
		}
	}
	walk(doc, 0)
	return b.String(), ld
}

func textOf(n *html.Node) string {
	var b strings.Builder
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.TextNode {
			b.WriteString(c.Data)
		}
	}
	return b.String()
}

// sameTreeWithoutScripts fails unless src and dropScriptText(src) parse to
// the same tree but for script and style text, with the same JSON-LD.
func sameTreeWithoutScripts(t testing.TB, name, src string) string {
	t.Helper()
	out := dropScriptText(src)
	want, wantLD := treeWithoutScriptText(t, src)
	got, gotLD := treeWithoutScriptText(t, out)
	if got != want {
		t.Fatalf("%s: the tree changed beyond script and style text\nsource: %.300q\nresult: %.300q", name, src, out)
	}
	if strings.Join(gotLD, "\x00") != strings.Join(wantLD, "\x00") {
		t.Fatalf("%s: JSON-LD changed: %q, want %q", name, gotLD, wantLD)
	}
	return out
}

func TestDropScriptText(t *testing.T) {
	const story = "<p>The story, which must stay.</p>"
	cases := []struct {
		name, src string
		gone      []string // text that must be cut
		kept      []string // text that must stay in the source
	}{
		{name: "script and style",
			src:  `<html><head><style>.a{color:red}</style><script>var a = 1 < 2;</script></head><body>` + story + `</body></html>`,
			gone: []string{"color:red", "var a"}, kept: []string{story}},
		{name: "JSON-LD stays",
			src:  `<script type="application/ld+json">{"@type":"NewsArticle"}</script><script type='text/javascript'>track()</script>` + story,
			gone: []string{"track()"}, kept: []string{`{"@type":"NewsArticle"}`}},
		{name: "a quoted attribute holds a tag",
			src:  `<div data-x="<script>" title='>'>` + story + `</div><script>x()</script>`,
			gone: []string{"x()"}, kept: []string{story, `data-x="<script>"`}},
		{name: "a comment holds a script's start",
			src:  `<!-- <script> -->` + story + `<script>y()</script>`,
			gone: []string{"y()"}, kept: []string{story}},
		{name: "the end tag in any case, with a space",
			src:  `<SCRIPT>z()</ScRiPt >` + story,
			gone: []string{"z()"}, kept: []string{story}},
		{name: "a string that looks like the end",
			src:  `<script>s = "</scripts>"; w()</script>` + story,
			gone: []string{"w()"}, kept: []string{story}},
		{name: "a script hides a script in a comment: the rest stays",
			src:  `<script><!-- document.write("<script>a()</script>"); --></script>` + story + `<script>b()</script>`,
			kept: []string{story, "b()"}},
		{name: "a script that never ends stays",
			src:  story + `<script>c()`,
			kept: []string{story, "c()"}},
		{name: "a textarea and a title hold tags",
			src:  `<title><script>t()</script></title><textarea><style>u</style></textarea>` + story,
			kept: []string{story, "t()", "<style>u"}},
		{name: "svg: nothing is raw text inside",
			src:  `<svg><style>.i{fill:red}</style><script>s()</script></svg>` + story + `<style>.b{}</style>`,
			gone: []string{".b{}"}, kept: []string{story, ".i{fill:red}", "s()"}},
		{name: "a self-closed svg does not open foreign content",
			src:  `<svg/><style>.c{}</style>` + story,
			gone: []string{".c{}"}, kept: []string{story}},
		{name: "an unquoted value ending in a slash does not close the svg",
			src:  `<svg a=b/><style>x</style>` + story + `</svg>`,
			kept: []string{story, ">x<"}},
		{name: "a style sheet holding a tag stays",
			src:  `<style>a::after{content:"<b>"}</style>` + story,
			kept: []string{story, `"<b>"`}},
		{name: "plaintext",
			src:  `<plaintext><script>p()</script>`,
			kept: []string{"p()"}},
		{name: "noscript is left whole",
			src:  `<noscript><style>.n{}</style></noscript>` + story,
			kept: []string{story, ".n{}"}},
		{name: "cdata in svg",
			src:  `<svg><![CDATA[ a > <script> ]]></svg><script>d()</script>` + story,
			gone: []string{"d()"}, kept: []string{story}},
		{name: "a type written as an entity stays",
			src:  `<script type="application/ld&#43;json">{"a":1}</script>` + story,
			kept: []string{`{"a":1}`}},
		{name: "bogus comments and a doctype",
			src:  `<!DOCTYPE html><?xml x?><!bogus <script>><script>e()</script></ x>` + story,
			gone: []string{"e()"}, kept: []string{story}},
		{name: "long values of unread attributes",
			src:  `<div data-props='{"state":"a long blob of a script's state"}' data-src="https://img.example.com/lazy/one.jpg" data-id="7">` + story + `</div>`,
			gone: []string{"a long blob"}, kept: []string{story, `data-props=''`, "lazy/one.jpg", `data-id="7"`}},
		{name: "an svg path's data",
			src:  `<svg viewBox="0 0 24 24"><path d="M12 2C6.48 2 2 6.48 2 12s4.48 10 10 10 10-4.48 10-10S17.52 2 12 2z"/></svg>` + story,
			gone: []string{"M12 2C6.48"}, kept: []string{story, `<path d=""/>`}},
		{name: "after a tag that opens raw text in HTML, values in svg stay",
			src:  `<svg><p><title><b data-x="a title's text, if the svg was left">x</b></title></svg>` + story,
			kept: []string{story, "a title's text"}},
		{name: "and after the svg ends, for the lexer, inside that text",
			src:  `<svg><path d="M0 0"/><p><xmp></svg><b data-tip="the xmp's text, which the page shows">x</b></xmp>` + story,
			kept: []string{story, "the xmp's text"}},
		{name: "a paid part named by a data attribute keeps data values",
			src:  `<script type="application/ld+json">{"hasPart":{"isAccessibleForFree":false,"cssSelector":"[data-tier='subscriber-only-premium-article-body']"}}</script><div data-tier="subscriber-only-premium-article-body">` + story + `</div>`,
			kept: []string{story, `data-tier="subscriber-only-premium-article-body"`}},
		{name: "but only the data attributes it names",
			src:  `<script type="application/ld+json">{"cssSelector":".paywall, [DATA-Tier='x']"}</script><div data-tier="subscriber-only-premium-article-body" data-state='{"a long state of the page, which no step reads":1}'>` + story + `</div>`,
			gone: []string{"a long state"}, kept: []string{story, `data-tier="subscriber-only-premium-article-body"`}},
		{name: "odd comment ends",
			src:  `<!--><script>f()</script><!---><!-- a --!><script>g()</script>` + story,
			gone: []string{"f()", "g()"}, kept: []string{story}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out := sameTreeWithoutScripts(t, tc.name, tc.src)
			for _, g := range tc.gone {
				if strings.Contains(out, g) {
					t.Errorf("%q is still in %q", g, out)
				}
			}
			for _, k := range tc.kept {
				if !strings.Contains(out, k) {
					t.Errorf("%q was cut from %q", k, out)
				}
			}
		})
	}
}

// TestDropScriptText_DevSets holds dropScriptText to the parser on pages
// of the dev sets beside the repository (when ../shared is there).
func TestDropScriptText_DevSets(t *testing.T) {
	files := devSetSpread(t) // all 1,782 pages held, once, when it was written
	before, after := 0, 0
	for _, f := range files {
		raw, err := readGz(f)
		if err != nil {
			t.Fatal(err)
		}
		src, err := toUTF8(raw)
		if err != nil {
			continue
		}
		out := sameTreeWithoutScripts(t, filepath.Base(f), src)
		before, after = before+len(src), after+len(out)
	}
	t.Logf("%d pages: %d bytes, %d after dropScriptText (%.0f%%)", len(files), before, after, 100*float64(after)/float64(before))
}

func FuzzDropScriptText(f *testing.F) {
	for _, s := range []string{
		`<script>a<b</script><p>x</p>`, `<svg><style>x</style></svg><style>y</style>`, `<!--<script>--><script>z</script>`,
		`<div a="<script>">`, `<script><!--<script></script>--></script><p>q</p>`, `<svg a=b/><script>s</script>`,
		`<math><mi><style>m</style></mi></math>`, `<table><svg><foreignObject><style>o</style></foreignObject></svg></table>`,
		`<select><svg><script>k</script></select>`, `<script type=application/ld+json>{}</script>`,
		`<svg><p><textarea><a data-a="0123456789012345678901234567890123456789"></textarea>`,
		`<i data-b="0123456789012345678901234567890123456789" d='0123456789012345678901234567890123456789'>`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		sameTreeWithoutScripts(t, "fuzz", src)
	})
}

// BenchmarkDropScriptText parses the dev set's pages as they are and after
// dropScriptText, in one run: what the cut saves the parser, less its cost.
func BenchmarkDropScriptText(b *testing.B) {
	var pages []string
	for _, raw := range loadBenchPages(b) {
		if src, err := toUTF8(raw); err == nil {
			pages = append(pages, src)
		}
	}
	for _, drop := range []bool{false, true} {
		name := "parse"
		if drop {
			name = "drop-then-parse"
		}
		b.Run(name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				src := pages[i%len(pages)]
				if drop {
					src = dropScriptText(src)
				}
				if _, err := html.Parse(strings.NewReader(src)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
