package article

import (
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html/atom"
)

func TestExtractRemovesBoilerplate(t *testing.T) {
	body := articleParas(6)
	cases := []struct {
		name   string
		chrome string // boilerplate markup inserted around/inside the article
		junk   string // text that must not appear in the output
	}{
		{"nav", `<nav><ul><li><a href="/a">World news</a></li><li><a href="/b">Sports section</a></li></ul></nav>`, "Sports section"},
		{"site header", `<header class="site-header"><div class="logo">Daily Gazette Online</div><a href="/subscribe">Subscribe today</a></header>`, "Daily Gazette Online"},
		{"footer", `<footer><p>Copyright 2024 Gazette Media Group. All rights reserved worldwide.</p></footer>`, "All rights reserved"},
		{"ad", `<div class="ad-slot"><p>Buy cheap insurance now with our amazing partner offer today.</p></div>`, "cheap insurance"},
		{"share widget", `<div class="share-buttons"><a href="#">Share on Facebook</a> <a href="#">Share on Twitter</a></div>`, "Share on"},
		{"cookie banner", `<div id="cookie-consent"><p>We use cookies to improve your experience, by continuing you agree to our policy.</p></div>`, "We use cookies"},
		{"related list", `<div class="related-articles"><h3>Related</h3><ul><li><a href="/x">Council approves new stadium, officials say, after long debate</a></li><li><a href="/y">Mayor faces questions over housing plan, residents worried</a></li></ul></div>`, "new stadium"},
		{"comments", `<section id="comments"><div class="comment"><p>I think this budget is a disgrace, honestly, and the council should resign now.</p></div></section>`, "disgrace"},
		{"caption credit", `<figure><img src="a.jpg"><figcaption>The council chamber on Tuesday. Photo: Jane Roe/Agency</figcaption></figure>`, "Jane Roe/Agency"},
		{"newsletter", `<div class="newsletter-signup"><p>Get the morning briefing delivered to your inbox, every single weekday.</p></div>`, "morning briefing"},
		{"advertisement label", `<p>Advertisement</p>`, "Advertisement"},
		{"modal policy", `<div id="modal-privacy-policy" aria-modal="true" class="fixed"><div class="prose">` + strings.Repeat(`<p>Our privacy policy explains which personal information we collect online and offline, how we use it and with whom we share it.</p>`, 30) + `</div></div>`, "privacy policy explains"},
		{"loading placeholder", `<div class="skeleton"><p>Loading paragraph...</p></div>`, "Loading paragraph"},
		{"svg icon", `<p><svg viewBox="0 0 24 24"><title>Share on Facebook</title><style>.icon { fill: red }</style><text>Star Seller</text></svg></p>`, "Star Seller"},
		{"svg icon style", `<svg viewBox="0 0 24 24"><style>.is-in-view #badge { animation: spin 2s }</style></svg>`, "is-in-view"},
		{"a newsletter offer in Spanish", `<div class="a_ei"><p>Puedes seguir a EL PAÍS Andalucía en <a href="https://facebook.com/elpais">Facebook</a> y <a href="https://x.com/elpais">X</a>, o apuntarte aquí para recibir nuestra newsletter semanal.</p></div>`,
			"Puedes seguir"},
		{"a newsletter offer in French", `<p>Abonnez-vous à notre newsletter pour recevoir chaque matin l'essentiel de l'actualité.</p>`, "Abonnez-vous"},
		{"an author's bio named as an entry's part", `<div class="entry-author"><div class="entry-author-profile author-profile vcard"><b class="entry-author-name author-name fn">` +
			`<a href="/author/hannah/" rel="author">Hannah Whitaker</a></b><p class="entry-author-description author-bio">Hannah has been baking bread professionally for twelve years and teaches weekend classes in Burlington, Vermont.</p></div></div>`,
			"weekend classes"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			page := `<html><head><title>Budget approved</title></head><body>` + tc.chrome +
				`<main><article><h1>Budget approved</h1><div class="article-body">` + pTags(body[:3]) + tc.chrome + pTags(body[3:]) +
				`</div></article></main>` + tc.chrome + `</body></html>`
			a := mustExtract(t, page, "")
			for _, p := range body {
				if !strings.Contains(a.Text, p) {
					t.Errorf("missing paragraph %q in\n%s", p[:30], a.Text)
				}
			}
			if strings.Contains(a.Text, tc.junk) {
				t.Errorf("boilerplate %q kept in\n%s", tc.junk, a.Text)
			}
		})
	}
}

// A sentence about a newsletter is content; only the offer of the site's
// own is chrome.
func TestExtract_NewsletterNewsIsNoPromo(t *testing.T) {
	news := []string{"La escuela recibe cada lunes el boletín oficial de la provincia.", "Die Schulen erhalten seit März einen Newsletter des Ministeriums."}
	page := `<html lang="es"><head><title>Budget</title></head><body><article><h1>Budget</h1>` + pTags(articleParas(3)) + pTags(news) + pTags(articleParas(6)[3:]) + `</article></body></html>`
	checkText(t, mustExtract(t, page, "").Text, news, nil)
}

func TestExtractBlocksDoNotRunTogether(t *testing.T) {
	page := `<html><body><article>` + pTags(articleParas(3)) +
		`<h2>Budget details</h2><p>steps</p><ul><li>alpha</li><li>beta</li></ul><div>gamma</div><div>delta</div>` +
		`<blockquote>epsilon</blockquote><table><tr><td>zeta</td><td>eta</td></tr></table><p>one<br>two</p>` +
		`<p>in<b>line</b> st<i>ays</i> joined</p></article></body></html>`
	a := mustExtract(t, page, "")
	for _, want := range []string{"Budget details\n\nsteps", "alpha\n\nbeta", "gamma\n\ndelta", "epsilon", "zeta eta", "one\ntwo", "inline stays joined"} {
		if !strings.Contains(a.Text, want) {
			t.Errorf("want %q in text:\n%s", want, a.Text)
		}
	}
	for _, bad := range []string{"alphabeta", "gammadelta", "zetaeta", "onetwo", "detailssteps"} {
		if strings.Contains(a.Text, bad) {
			t.Errorf("words ran together: %q", bad)
		}
	}
	if strings.Contains(a.Text, "\n\n\n") || strings.HasPrefix(a.Text, "\n") || strings.HasSuffix(a.Text, "\n") {
		t.Errorf("badly separated text: %q", a.Text)
	}
}

func TestExtractEntitiesAndWhitespace(t *testing.T) {
	page := `<html><body><article><p>Caf&eacute; &amp; cr&#232;me&nbsp;br&ucirc;l&eacute;e,   served
	  with   tea &mdash; said the owner, who opened the shop in 1998, with her sister and brother.</p>` +
		pTags(articleParas(3)) + `</article></body></html>`
	a := mustExtract(t, page, "")
	want := "Café & crème brûlée, served with tea — said the owner"
	if !strings.Contains(a.Text, want) {
		t.Errorf("want %q in %q", want, a.Text)
	}
	// Decomposed input must come out NFC.
	a = mustExtract(t, "<html><body><article><p>Cafe\u0301 "+articleParas(1)[0]+"</p>"+pTags(articleParas(3))+"</article></body></html>", "")
	if !strings.Contains(a.Text, "Café ") {
		t.Errorf("not NFC: %q", a.Text[:20])
	}
}

func TestExtractBrokenMarkup(t *testing.T) {
	ps := articleParas(5)
	page := `<html><head><title>Broken</title><body><div class="content"><p>` + ps[0] + `<p>` + ps[1] +
		`<div><p>` + ps[2] + `</span></b><p>` + ps[3] + `<table><tr><td><p>` + ps[4] + `</div>`
	a := mustExtract(t, page, "")
	for _, p := range ps {
		if !strings.Contains(a.Text, p) {
			t.Errorf("missing %q", p[:25])
		}
	}
}

func TestExtractSiblingContainers(t *testing.T) {
	ps := articleParas(8)
	// Body split in several containers interleaved with an ad.
	page := `<html><body><div id="wrap"><div class="story-body">` + pTags(ps[:4]) + `</div>` +
		`<div class="ad"><p>Promoted offer for everyone, click here to win a prize, limited time.</p></div>` +
		`<div class="story-body">` + pTags(ps[4:]) + `</div></div><aside>` + pTags([]string{"Sidebar text, about other things entirely, not part of this story."}) + `</aside></body></html>`
	a := mustExtract(t, page, "")
	for _, p := range ps {
		if !strings.Contains(a.Text, p) {
			t.Errorf("missing %q", p[:25])
		}
	}
	if strings.Contains(a.Text, "Promoted offer") || strings.Contains(a.Text, "Sidebar text") {
		t.Errorf("boilerplate kept:\n%s", a.Text)
	}
}

func TestExtractDropsPermalinks(t *testing.T) {
	body := articleParas(4)
	page := `<html><body><article><h1>Caching</h1>` + pTags(body[:2]) +
		`<h2 id="setup">Setting up the cache<a class="headerlink" href="#setup">¶</a></h2>` +
		`<dl><dt id="m">class CacheMiddleware<a href="#m" title="Link to this definition">§</a></dt><dd>` + body[2] + `</dd></dl>` +
		`<h2 id="section3">Expiry<a class="anchor" href="#section3">#section3</a></h2>` +
		`<p>` + body[3] + `<a href="#fn1">1</a></p></article></body></html>`
	a := mustExtract(t, page, "")
	for _, want := range []string{"Setting up the cache\n", "class CacheMiddleware\n", "Expiry\n", body[3] + "1"} { // a footnote's "1" stays
		if !strings.Contains(a.Text, want) {
			t.Errorf("want %q in text:\n%s", want, a.Text)
		}
	}
	for _, bad := range []string{"¶", "§", "#section3"} {
		if strings.Contains(a.Text, bad) {
			t.Errorf("permalink %q kept in text:\n%s", bad, a.Text)
		}
	}
}

// A page that hides its content until its scripts run (a "defer-block"
// with display:none holding the <h1> and most of the prose) shows it then;
// a hidden block without the page's title, or a hidden dialog, stays out.
func TestExtract_ContentHiddenUntilScriptsRun(t *testing.T) {
	body := articleParas(5)
	menu := `<header><nav><ul><li><a href="/a">Shop all</a></li><li><a href="/b">Deals of the week</a></li></ul></nav></header>`
	compare := `<div class="compare hidden"><p>` + strings.Repeat("Compare the battery, the weight and the price of each model side by side. ", 20) + `</p></div>`
	dialog := `<div role="dialog" style="display:none"><h1>Privacy</h1><p>` + strings.Repeat("We store cookies to measure the use of the site and remember choices. ", 20) + `</p></div>`
	cases := []struct {
		name, page string
		want, not  []string
	}{
		{name: "the hidden block holds the title and the prose",
			page: `<html><body>` + menu + `<div class="product-wrapper defer-block" style="display: none"><article><h1>Almond thins</h1>` + pTags(body) + `</article></div>` +
				`<div class="compare hidden"><p>Compare the battery, the weight and the price of each model.</p></div></body></html>`,
			want: body, not: []string{"Compare the battery"}},
		{name: "a hidden block without the title, beside a hidden title",
			page: `<html><body>` + menu + `<div class="mobile-title hidden"><h1>Headphones</h1></div><article><h2>Headphones</h2><p>` + body[0] + `</p></article>` + compare + `</body></html>`,
			want: body[:1], not: []string{"Compare the battery"}},
		{name: "a hidden dialog",
			page: `<html><body>` + menu + `<article><h2>Headphones</h2><p>` + body[0] + `</p></article>` + dialog + `</body></html>`,
			want: body[:1], not: []string{"We store cookies"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := mustExtract(t, tc.page, "https://shop.example.com/p/1")
			checkText(t, a.Text, tc.want, tc.not)
		})
	}
	// The overlay rules drop a kept dialog later too; hiddenStory itself
	// must not keep it.
	dialogPage := firstElement(t, cases[2].page, atom.Body)
	if n := hiddenStory(goquery.NewDocumentFromNode(dialogPage).FindMatcher(pageElements).Nodes, dialogPage); n != nil {
		t.Errorf("hiddenStory kept the hidden dialog %v", n.Attr)
	}
}

// A template's content is not shown, unless the template is a declarative
// shadow root, which the browser attaches to its parent and shows.
func TestExtract_TemplatesShowOnlyAsShadowRoots(t *testing.T) {
	body := articleParas(5)
	page := `<html><body><article><h1>Budget approved</h1>` + pTags(body[:3]) +
		`<template id="row"><p>Template row placeholder text that a script would clone into the page later.</p></template>` +
		`<budget-note><template shadowrootmode="open"><p>` + body[3] + `</p></template></budget-note>` +
		pTags(body[4:]) + `</article></body></html>`
	a := mustExtract(t, page, "")
	checkText(t, a.Text, body, []string{"Template row placeholder"})
}
