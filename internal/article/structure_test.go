package article

import (
	"fmt"
	"strings"
	"testing"
)

// TestExtractLayouts covers page structures that trip naive extractors:
// each case lists texts that must and must not be in the output.
func TestExtractLayouts(t *testing.T) {
	ps := articleParas(8)
	cases := []struct {
		name    string
		body    string
		want    []string
		notWant []string
	}{
		{
			name: "body split around media into same-styled parts",
			body: `<div class="layout"><div class="part"><div class="story-body s1">` + pTags(ps[:2]) + `</div></div>` +
				`<div class="video-player"><p>Watch: the mayor's remarks in full, in our video player below.</p></div>` +
				`<div class="wrap"><div class="story-body s2">` + pTags(ps[2:]) + `</div></div></div>` +
				`<aside><p>Trending now: celebrity news, sports scores, weather and much more for you.</p></aside>`,
			want:    ps,
			notWant: []string{"Trending now"},
		},
		{
			name: "a chrome-named span inside a paragraph's sentence stays",
			body: `<article><p><span class="dateline">OSLO —</span> ` + ps[0] + `</p>` + pTags(ps[1:]) +
				`<p><span class="credit">Photo: Kari Nordmann</span></p></article>`,
			want:    append([]string{"OSLO — Paragraph 1"}, ps...),
			notWant: []string{"Kari Nordmann"},
		},
		{
			name: "a hover card after a linked name inside a sentence goes, the name stays",
			body: `<article><p>The budget was drafted by council member <span class="person"><a href="/people/ana-ruiz">Ana Ruiz</a>` +
				`<span class="person-card"><img src="/ana.jpg" alt=""><a href="/people/ana-ruiz">Ana Ruiz</a>` +
				`<a href="/s/9">Council approves night buses after a year of trials</a> <a href="/s/8">Ruiz questions the cost of the new depot</a></span></span>` +
				` (Greens), who said the plan would be reviewed every spring, with the reserves and the schools first.</p>` + pTags(ps) + `</article>`,
			want:    append([]string{"council member Ana Ruiz (Greens), who said"}, ps...),
			notWant: []string{"night buses", "new depot"},
		},
		{
			name: "a table whose wrapper's generated name holds \"jump\" stays; a jump-to menu goes",
			body: `<article>` + pTags(ps[:4]) + `<div class="jumpfactor-responsive-table-wrapper"><table>` +
				`<tr><td>Set a clear goal</td><td>Decide what you want to learn before you register for any session.</td></tr>` +
				`<tr><td>Review the agenda</td><td>Pick the sessions tied to operations and growth before the day.</td></tr></table></div>` +
				pTags(ps[4:]) + `<div class="jump-to"><p>Jump to: the agenda, the speakers, the venue and the tickets.</p></div></article>`,
			want:    append([]string{"Set a clear goal", "Pick the sessions tied"}, ps...),
			notWant: []string{"Jump to:"},
		},
		{
			name: "a story built of page-builder widgets is read whole; a recent-posts widget is not",
			body: `<main><div class="widget-area-content"><div class="WidgetWrapper_a1"><h2>Why the plan changed</h2>` + pTags(ps[:2]) + `</div>` +
				`<div class="WidgetWrapper_a1 slim"><p>` + ps[2] + `</p></div>` +
				`<div class="WidgetWrapper_a1"><h2>What the council said</h2>` + pTags(ps[3:]) + `</div></div>` +
				`<div class="elementor-element elementor-widget elementor-widget-heading"><div class="elementor-widget-container"><h4>More to explore</h4></div></div>` +
				`<div class="elementor-element elementor-grid-1 elementor-posts--thumbnail-left elementor-widget elementor-widget-posts"><div class="elementor-widget-container">` +
				`<div class="elementor-posts-container elementor-posts"><article class="elementor-post post type-post hentry"><div class="elementor-post__text">` +
				`<h4 class="elementor-post__title"><a href="/s/1">Next week's menu</a></h4><div class="elementor-post__meta-data"><span>December 16, 2025</span> <span>No Comments</span></div>` +
				`<div class="elementor-post__excerpt"><p>For the week of the 14th, your new menu options will be: citrus soy beef with fried rice, and more.</p></div></div></article>` +
				`<article class="elementor-post post type-post hentry"><div class="elementor-post__text">` +
				`<h4 class="elementor-post__title"><a href="/s/2">This week's menu</a></h4><div class="elementor-post__meta-data"><span>December 9, 2025</span> <span>No Comments</span></div>` +
				`<div class="elementor-post__excerpt"><p>For the week of the 7th, your new menu options will be: honey mustard beef with sweet potatoes.</p></div></div></article>` +
				`</div></div></div></main>`,
			want:    append([]string{"What the council said"}, ps...),
			notWant: []string{"citrus soy", "No Comments"},
		},
		{
			name: "a most-popular box after the story ends it, teasers and all",
			body: `<main><section class="article-section">` + pTags(ps[:4]) + `</section><section class="article-section">` + pTags(ps[4:]) +
				`</section><section class="c-popular"><h2>Most Popular</h2><ol>` +
				`<li><h3><a href="/s/1">Why the tram line stopped at the river</a></h3><p>The city's plans for a crossing over the river, drawn up twice and shelved twice by two councils, explain the gap in the network.</p></li>` +
				`<li><h3><a href="/s/2">A market hall comes back to life</a></h3><p>Traders returned to the old hall this spring after a decade of repairs and disputes, and the crowds of the old town followed them in.</p></li>` +
				`</ol></section></main>`,
			want:    ps,
			notWant: []string{"Most Popular", "tram line", "market hall", "Traders returned"},
		},
		{
			name: "a body told in sections of one-paragraph wrappers is read whole, not one section",
			body: `<div id="content">` + sectioned([]string{ps[0] + " " + ps[1] + " " + ps[2], ps[3]}, "Why the plan changed") +
				sectioned(ps[4:6], "What the council said") + sectioned(ps[6:], "What comes next") +
				`</div><div id="footer"><p>Last updated 2024-03-01, site by the Gazette.</p></div>`,
			want:    append([]string{"What the council said"}, ps...),
			notWant: []string{"site by the Gazette"},
		},
		{
			name: "a table wrapped in a figure is content, its caption not",
			body: `<article>` + pTags(ps[:4]) + `<figure class="wp-block-table"><table><tr><th>Fund</th><th>2024</th><th>2025</th></tr>` +
				`<tr><td>Schools and libraries</td><td>$41.2m</td><td>$43.9m</td></tr></table><figcaption>Source: city finance office</figcaption></figure>` +
				pTags(ps[4:]) + `</article>`,
			want:    append([]string{"Schools and libraries $41.2m $43.9m"}, ps...),
			notWant: []string{"Source: city finance office"},
		},
		{
			name: "a related box early in the story does not end it because of the link list before it",
			body: `<article><p>` + strings.Repeat(`<a href="#s">A section of this long guide to the city's budget, in brief</a> `, 12) + `</p>` +
				pTags(ps[:1]) + `<p><strong>RELATED</strong></p><p><a href="/s/3">Council delays the tram vote again</a></p>` + pTags(ps[1:]) + `</article>`,
			want:    ps,
			notWant: []string{"tram vote"},
		},
		{
			name: "a page builder's widget-named wrappers around each section of prose stay",
			body: `<div class="entry-content">` +
				`<section class="builder-section"><div class="builder-widget-wrap">` + pTags(ps[:3]) + `</div></section>` +
				`<section class="builder-section"><div class="builder-widget-wrap">` + pTags(ps[3:]) + `</div></section>` +
				`<div class="newsletter-widget"><p>Sign up for our newsletter, every Friday, free.</p></div></div>` +
				`<div id="comments"><p>First comment, with a view on the budget, the roads, the parks.</p><p>Second comment, agreeing with it, and then some.</p><p>Third comment, disagreeing with both, at length and more.</p></div>`,
			want:    ps,
			notWant: []string{"Sign up", "First comment"},
		},
		{
			name: "one paragraph to an embed-named block, each a place in a guide, stays",
			body: `<section class="map-body">` + strings.NewReplacer("<p>", `<div class="block block--embed"><p>`, "</p>", "</p></div>").Replace(pTags(ps)) +
				`</section><div class="newsletter-embed"><p>Get the week's best places by email.</p></div>`,
			notWant: []string{"best places by email"},
			want:    ps,
		},
		{
			name: "a collapsed accordion panel is part of the story, a hidden dialog not",
			body: `<article>` + pTags(ps[:3]) +
				`<div class="accordion"><h3><button id="q1" aria-controls="a1">What changes for schools?</button></h3>` +
				`<div id="a1" role="region" aria-labelledby="q1" style="display: none">` + pTags(ps[3:6]) + `</div></div>` +
				pTags(ps[6:]) + `<div class="dialog" role="dialog" style="display:none"><p>Subscribe now and get the first month of the Gazette for free.</p></div></article>`,
			want:    ps,
			notWant: []string{"Subscribe now"},
		},
		{
			name: "a streaming server's late segment is read where its placeholder stands, its fallback not",
			body: `<main><h1>Council Approves Budget</h1><!--$?--><template id="B:0"></template><p>Loading the story…</p><!--/$-->` +
				`<aside class="sidebar"><p>More from the Gazette.</p></aside></main>` +
				`<div hidden id="S:0"><article>` + pTags(ps) + `</article></div>` +
				`<script>$RC("B:0","S:0")</script>`,
			want:    ps,
			notWant: []string{"Loading the story"},
		},
		{
			name: "section ids made from heading text are not chrome",
			body: `<article><section id="sharing-with-a-single-developer"><h2>Sharing with a single developer</h2>` + pTags(ps[:4]) +
				`</section><section id="related-work-and-further-notes">` + pTags(ps[4:]) + `</section></article>`,
			want: append([]string{"Sharing with a single developer"}, ps...),
		},
		{
			name: "table header named Comment does not end the article",
			body: `<article>` + pTags(ps[:3]) + `<table><tr><th><p>Status</p></th><th><p>Comment</p></th></tr>` +
				`<tr><td>enqueued</td><td>Waiting for a worker to pick the task up.</td></tr></table>` + pTags(ps[3:]) + `</article>`,
			want: append([]string{"Waiting for a worker"}, ps...),
		},
		{
			name: "datelines and foreign ad labels are dropped",
			body: `<article><p>Updated: Nov. 19, 2019 10:48 am</p>` + pTags(ps[:2]) + `<p>Stand: Montag, 4. Dezember 2023, 10:15 Uhr</p><p>02 Ago 2017</p><p>Publié le 1er août 2023 à 14h05</p>` +
				`<p>Publicado el 12 de marzo de 2024</p><p>12 novembre 2025 (modifica il 12 novembre 2025 | 09:40)</p><p>5 juni 2024</p><p>Published September 27, 2023 at 5:00 AM CDT</p><p>Sep 27, 2023 10:00 CEST</p>` +
				pTags(ps[2:4]) + `<p>Anzeige</p><p>Iklan</p><p>Hirdetés</p><p>Publicitate</p><p>Διαφήμιση</p><p>Quảng cáo</p><p>إعلان</p><p>פרסומת</p><p>विज्ञापन</p><p>โฆษณา</p><p>Pokračování článku pod reklamou</p><p>Do you like the content of this article?</p><p>Did you enjoy this article?</p><p>Lesen Sie auch</p><p>À lire aussi :</p>` + pTags(ps[4:]) + `<p>10:15 Uhr</p><p>Set 1: 6-4</p><h2>Mars 2020</h2></article>`,
			want:    append([]string{"10:15 Uhr", "Set 1: 6-4", "Mars 2020"}, ps...), // a time alone may head a live blog's entry; a month's abbreviation may be a word
			notWant: []string{"Updated", "Stand", "Ago", "Publié", "Publicado", "modifica", "juni", "Published", "CEST", "Anzeige", "Iklan", "Hirdetés", "Publicitate", "Διαφήμιση", "Quảng cáo", "إعلان", "פרסומת", "विज्ञापन", "โฆษณา", "Pokračování", "Do you like", "Did you enjoy", "Lesen", "lire"},
		},
		{
			name: "UI lines and comment headings in other scripts are dropped, an opinion kicker is kept",
			body: `<article><h2>Kommentar</h2>` + pTags(ps[:2]) + `<p>Читайте также</p><p>Czytaj też:</p><p>分享</p><p>Baca juga</p><p>Läs också</p>` + pTags(ps[2:]) +
				`<h2>Комментарии</h2>` + pTags([]string{"Иван пишет: паром наконец вернулся, и это прекрасная новость для всех жителей нашего района.",
				"Мария отвечает: цены на билеты слишком высокие, и многие семьи не смогут позволить себе поездку."}) + `</article>`,
			want:    append([]string{"Kommentar"}, ps...),
			notWant: []string{"Читайте", "Czytaj", "分享", "Baca", "Läs", "Комментарии", "Иван пишет", "Мария отвечает"},
		},
		{
			name: "headings that open with a year, ranges and months that are words are no datelines; beside a day they are",
			body: `<article><h2>2024年度财务报告</h2>` + pTags(ps[:2]) + `<h2>1990年代的香港</h2><p>2024年营收增长12%</p><h2>2019–2024</h2>` + pTags(ps[2:4]) +
				`<h3>Maja 2024</h3><h3>Pazar 2024</h3><h3>Minggu 1</h3>` + pTags(ps[4:]) + `<p>2024年3月12日</p><p>Senin, 12 Agustus 2024</p><p>12 maja 2024</p><p>Maja, 5</p><p>Mart 24</p><h2>في ١٩٤٨</h2><p>Published 2024</p></article>`,
			want:    append([]string{"2024年度财务报告", "1990年代的香港", "2024年营收增长12%", "2019–2024", "Maja 2024", "Pazar 2024", "Minggu 1", "Maja, 5", "Mart 24", "في ١٩٤٨"}, ps...),
			notWant: []string{"2024年3月12日", "Senin", "12 maja", "Published 2024"},
		},
		{
			name: "a wrapper that marks an opinion piece is no comment section",
			body: `<div class="kommentar"><h1>Council Approves Budget</h1><p class="autor">Von Jana Becker</p>` + pTags(ps[:3]) + `</div>` +
				`<aside class="sidebar"><h3>Mehr Meinung</h3>` + pTags([]string{"Warum die Stadt mehr Geld für Radwege ausgeben sollte, und was das für die Autofahrer in der Innenstadt bedeutet.",
				"Ein Gastbeitrag über die Zukunft der Bibliotheken, die Rolle der Ehrenamtlichen und die Kosten der Digitalisierung.",
				"Die Debatte um den Hafen zeigt, wie schwer sich die Stadt mit großen Entscheidungen tut, und warum das so bleiben wird."}) + `</aside>`,
			want:    ps[:3],
			notWant: []string{"Radwege", "Bibliotheken"},
		},
		{
			name: "parts named by test attributes are judged as by their class",
			body: `<main><h1>Council Approves Budget</h1><section role="region" aria-labelledby="article-byline" data-e2e="byline"><h2 id="article-byline">Article information</h2>` +
				`<ul role="list"><li><span>Author, </span><span>Jane Roe</span></li><li><span>Reporting from </span><span>Leeds</span></li></ul></section>` +
				pTags(ps[:3]) + `<div data-testid="related-rich-block"><a href="/other">Why the city's reserves ran low</a></div>` + pTags(ps[3:]) + `</main>`,
			want:    ps,
			notWant: []string{"Article information", "Reporting from", "reserves ran low"},
		},
		{
			name:    "a headline h2 whose kicker is glued to the title goes, as the title",
			body:    `<article><h2><span class="block font-bold">Council</span><span class="align-middle">Approves Budget</span></h2>` + pTags(ps) + `</article>`,
			want:    ps,
			notWant: []string{"CouncilApproves"},
		},
		{
			name: "subheadings named \"subheader\" are kept",
			body: `<article>` + pTags(ps[:2]) + `<h2 class="subheader | font_headline">She read everything</h2>` + pTags(ps[2:4]) +
				`<h2 class="subheader | font_headline">A home full of readings</h2>` + pTags(ps[4:]) + `</article>`,
			want: append([]string{"She read everything", "A home full of readings"}, ps...),
		},
		{
			name: "linked subheadings introducing prose are kept",
			body: `<article>` + pTags(ps[:2]) + `<h3><a href="/p/1">Acme Travel Charger 65W</a></h3>` + pTags(ps[2:4]) +
				`<h3><a href="/p/2">Zeta Wireless Pad</a></h3>` + pTags(ps[4:]) + `</article>`,
			want: append([]string{"Acme Travel Charger 65W", "Zeta Wireless Pad"}, ps...),
		},
		{
			name: "read-more wrapper holding the rest of the story",
			body: `<div id="story"><div class="intro">` + pTags(ps[:1]) + `</div><div id="read-more"><div>` + pTags(ps[1:]) + `</div></div></div>` +
				`<div class="sidebar">` + pTags([]string{"Most popular stories of the week, curated by our editors, updated every hour of the day."}) + `</div>`,
			want:    ps,
			notWant: []string{"Most popular"},
		},
		{
			name: "embedded post in a social wrapper is kept",
			body: `<article>` + pTags(ps[:4]) + `<div class="social-embed"><blockquote class="twitter-tweet"><p>The council vote tonight is a turning point for the whole city, honestly.</p>— Resident (@resident) <a href="https://t.example/1">November 19, 2019</a></blockquote></div>` +
				pTags(ps[4:]) + `</article>`,
			want: append([]string{"turning point for the whole city"}, ps...),
		},
		{
			name:    "h1 repeating the title is dropped, later h1 subheads kept",
			body:    `<article><h1>Council Approves Budget</h1>` + pTags(ps[:4]) + `<h1>Second phase of the plan</h1>` + pTags(ps[4:]) + `</article>`,
			want:    append([]string{"Second phase of the plan"}, ps...),
			notWant: []string{"Council Approves Budget"},
		},
		{
			name: "an h1 before the prose that is not the headline is content",
			body: `<article><h1>Chapter one: the long winter</h1>` + pTags(ps) + `</article>`,
			want: append([]string{"Chapter one: the long winter"}, ps...),
		},
		{
			name:    "the headline worded unlike the title is still the headline",
			body:    `<article><h1>Council approves the city's budget</h1>` + pTags(ps) + `</article>`,
			want:    ps,
			notWant: []string{"approves the city's budget"},
		},
		{
			name:    "an h2 headline repeating the title before the prose is dropped",
			body:    `<article><h2>Council Approves Budget</h2><div class="byline">By Ann Lee</div>` + pTags(ps) + `</article>`,
			want:    ps,
			notWant: []string{"Council Approves Budget"},
		},
		{
			name: "an h2 after the prose repeating the title is content; an h2 before it that is not the title too",
			body: `<article><h2>What the council decided</h2>` + pTags(ps[:4]) + `<h2>Council approves budget</h2>` + pTags(ps[4:]) + `</article>`,
			want: append([]string{"What the council decided", "Council approves budget"}, ps...),
		},
		{
			name: "divs of bare text are paragraphs: their article, subheadings included, is the body",
			body: `<article><div>` + ps[0] + " " + ps[1] + `</div><h2>What the budget funds</h2><div>` + ps[2] + " " + ps[3] + `</div></article>`,
			want: append([]string{"What the budget funds"}, ps[:4]...),
		},
		{
			name: "link-only points of a list of prose points are kept; a list of links is not",
			body: `<article>` + pTags(ps[:3]) + `<ul><li><a href="/r/2025">Here is our look back at the whole year</a></li>` +
				`<li>The new depot on the east side opened on Monday, two weeks later than planned because of the storms.</li>` +
				`<li>Bus lines 4 and 9 now run every ten minutes on weekdays, and every twenty minutes at weekends.</li>` +
				`<li>Night buses return in March, after the drivers' union and the city agreed on a new rota for the winter.</li></ul>` +
				pTags(ps[3:]) + `<ul><li><a href="/s/1">Storms close schools across the region for a week</a></li>` +
				`<li><a href="/s/2">How the valley's flood defences were built in the sixties</a></li>` +
				`<li><a href="/s/3">Ten walks to take before the first snow of the winter</a></li></ul></article>`,
			want:    append([]string{"Here is our look back at the whole year", "Night buses return in March"}, ps...),
			notWant: []string{"Storms close schools", "flood defences"},
		},
		{
			name: "a list of links a sentence introduces is the story's; a read-more line introduces none",
			body: `<article>` + pTags(ps[:3]) + `<p>Many patches were sent to the council for review:</p>` +
				`<ul><li><p><a href="/d/1">Depot: allow night shifts for the drivers of lines 4 and 9</a></p></li>` +
				`<li><p><a href="/d/2">Timetable: run lines 4 and 9 every ten minutes on weekdays</a></p></li></ul>` +
				pTags(ps[3:]) + `<p>Read more from our transport desk:</p><ul><li><a href="/s/1">Storms close schools</a></li><li><a href="/s/2">Flood defences</a></li></ul></article>`,
			want:    append([]string{"Many patches were sent", "Depot: allow night shifts", "Timetable: run lines 4 and 9"}, ps...),
			notWant: []string{"Storms close schools", "Flood defences"},
		},
		{
			name: "a section of links beside sections of prose is still a section of the body",
			body: `<div id="content">` + sectioned(ps[:1], "Where the plan came from") +
				strings.Replace(sectioned([]string{"The council's papers on it, in the order they were filed:"}, "The papers"), `</div></div>`,
					`<div class="ulist"><ul><li><p><a href="/d/1">Draft budget for the transport department, first reading</a></p></li>`+
						`<li><p><a href="/d/2">Amendment on the depot and the night buses, second reading</a></p></li>`+
						`<li><p><a href="/d/3">Report of the finance committee on the reserves and the schools</a></p></li>`+
						`<li><p><a href="/d/4">Final budget as adopted, with the votes of every member</a></p></li></ul></div></div></div>`, 1) +
				sectioned(ps[1:], "What the council decided") + `</div><div id="footer"><p>Site by the Gazette.</p></div>`,
			want:    append([]string{"Where the plan came from", "The papers", "What the council decided"}, ps...),
			notWant: []string{"Site by the Gazette"},
		},
		{
			name: "a highlighted code block keeps its comment spans and its lines",
			body: `<article>` + pTags(ps[:3]) + "<pre><code class=\"language-bash hljs\"><span class=\"hljs-comment\"># initialize the repository</span>\n" +
				"git init\n<span class=\"hljs-comment\"># view its state</span>\ngit status</code></pre>" + pTags(ps[3:]) +
				`<div class="comments"><p>Great post, thanks for sharing this with all of us here today!</p></div></article>`,
			want:    append([]string{"# initialize the repository\ngit init\n# view its state\ngit status"}, ps...),
			notWant: []string{"Great post"},
		},
		{
			name: "a quote in a figure is the speaker's words; an embedded post and a photo's caption are not",
			body: `<article>` + pTags(ps[:3]) +
				`<figure class="quote"><blockquote><p>Night buses are the cheapest way to make a city feel safe.</p></blockquote>` +
				`<figcaption><strong>Ana Ruiz</strong>, council member</figcaption></figure>` + pTags(ps[3:5]) +
				`<figure class="wp-block-embed is-provider-twitter"><blockquote class="twitter-tweet"><p>Huge night for the city: buses all night from May!</p></blockquote></figure>` +
				`<figure><img src="/bus.jpg" alt=""><figcaption>A night bus at the depot on Tuesday.</figcaption></figure>` + pTags(ps[5:]) + `</article>`,
			want:    append([]string{"Night buses are the cheapest way", "Ana Ruiz, council member"}, ps...),
			notWant: []string{"Huge night", "at the depot"},
		},
		{
			name: "a glossary tooltip inside a sentence goes, its term stays",
			body: `<article><p>Ridership and <span class="term"><dfn aria-describedby="tip-1">headway</dfn><span class="term-tooltip" id="tip-1">` +
				`<strong>Headway</strong><br>The time between two buses on a line.<a href="/glossary/headway">Learn more</a></span></span>` +
				` figures will be published monthly, the council said on Tuesday after the vote on the transport budget.</p>` + pTags(ps) + `</article>`,
			want:    append([]string{"Ridership and headway figures will be published monthly"}, ps...),
			notWant: []string{"The time between two buses", "Learn more"},
		},
		{
			name: "a page builder's story in two sections, each in widgets named by instance, is read whole",
			body: `<nav><ul><li><a href="/">Home</a></li><li><a href="/news">News</a></li><li><a href="/about">About us</a></li></ul></nav>` +
				`<div class="elementor elementor-15342">` + builderSection("aa1", "bb1", pTags(ps[:2])+
				`<div class="toc"><div class="toc-title">Contents</div><ol><li><a href="#why">Why the plan changed</a></li><li><a href="#next">What comes next</a></li></ol></div>`+
				`<h2 id="why">Why the plan changed</h2>`+pTags(ps[2:4])) +
				builderSection("aa2", "bb2", `<h2 id="next">What comes next</h2>`+pTags(ps[4:])+pTags(articleParas(16)[8:])) + `</div>` +
				`<footer><p>Copyright 2024 The Gazette. All rights reserved.</p></footer>`,
			want:    ps,
			notWant: []string{"All rights reserved"},
		},
		{
			name: "a page builder's story whose long section also holds a short FAQ, after an opening with a contents list",
			body: `<div class="elementor elementor-15342">` + builderSection("aa1", "bb1", pTags(ps[:3])+toc(8)+`<h2 id="s1">Why the plan changed</h2>`+pTags(ps[3:4])) +
				`<div class="elementor-element elementor-element-aa2 e-flex e-con-boxed e-con e-parent"><div class="e-con-inner">` +
				`<div class="elementor-element elementor-element-bb2 elementor-widget elementor-widget-text-editor"><div class="elementor-widget-container">` +
				pTags(ps[4:]) + pTags(articleParas(24)[8:]) + `</div></div>` +
				`<div class="elementor-element elementor-element-cc2 elementor-widget elementor-widget-accordion"><div class="elementor-tab-content">` +
				pTags(articleParas(28)[24:]) + `</div></div></div></div></div>`,
			want: ps,
		},
		{
			name: "a header styled like the story's section is not a part of it",
			body: `<header class="content-max-width"><div class="logo"><a href="/">Gazette</a></div><p>The Gazette: news from the city and the valley since 1887, every morning.</p></header>` +
				`<div class="content-max-width"><div class="sidebar-container"><div><div class="lr-content">` + pTags(ps) + `</div></div></div>` +
				`<div id="recent-posts"><ul><li><a href="/s/1">Tram line</a></li><li><a href="/s/2">Market hall</a></li></ul></div></div>`,
			want:    ps,
			notWant: []string{"since 1887"},
		},
		{
			name: "a sign-up box hidden until a script toggles it stays out",
			body: `<article>` + pTags(ps[:4]) + `<div x-data="{ showPhone: false }"><div x-cloak x-show="showPhone" class="sms-box">` +
				`<div>Be the first to know!</div><div>Get editor selected deals texted right to your phone, every single morning of the week!</div></div>` +
				`<div x-cloak class="plain">Prices were checked on Tuesday morning and may have changed since this story was published.</div></div>` + pTags(ps[4:]) + `</article>`,
			want:    append([]string{"Prices were checked on Tuesday"}, ps...),
			notWant: []string{"Be the first", "texted right to your phone"},
		},
		{
			name: "a block a utility class hides at every width stays out; one shown from some width stays in",
			body: `<article>` + pTags(ps[:4]) + `<div class="hidden promo-box"><p>Get editor selected deals texted right to your phone, every single morning of the week!</p></div>` +
				`<div class="d-none"><p>Be the first to know about the deals our editors pick for you, every single week of the year.</p></div>` +
				`<div class="d-none d-md-block"><p>Prices were checked on Tuesday morning and may have changed since this story was published.</p></div>` + pTags(ps[4:]) + `</article>`,
			want:    append([]string{"Prices were checked on Tuesday"}, ps...),
			notWant: []string{"Be the first", "texted right to your phone"},
		},
		{
			name: "a table of contents' label stays out with its links",
			body: `<article>` + pTags(ps[:2]) + `<div id="ez-toc-container"><div class="ez-toc-title-container"><p class="ez-toc-title">Table of Contents</p></div>` +
				`<nav><ul><li><a href="#why">Why the plan changed</a></li><li><a href="#next">What comes next</a></li></ul></nav></div><h2 id="why">Why the plan changed</h2>` + pTags(ps[2:]) + `</article>`,
			want:    append([]string{"Why the plan changed"}, ps...),
			notWant: []string{"Table of Contents"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			page := `<html><head><title>Council Approves Budget | Gazette</title></head><body>` + tc.body + `</body></html>`
			a := mustExtract(t, page, "")
			checkText(t, a.Text, tc.want, tc.notWant)
		})
	}
}

// sectioned is one section of a generated-docs page (AsciiDoc's layout):
// a heading, then each paragraph in a wrapper of its own.
func sectioned(ps []string, heading string) string {
	var sb strings.Builder
	sb.WriteString(`<div class="sect1"><h2>` + heading + `</h2><div class="sectionbody">`)
	for _, p := range ps {
		sb.WriteString(`<div class="paragraph"><p>` + p + `</p></div>`)
	}
	sb.WriteString(`</div></div>`)
	return sb.String()
}

// builderSection is one top-level section of a page builder's layout
// (Elementor's): every element is named by its kind and its instance, and
// every block of text sits in a "widget".
// toc is a table of contents of n entries, each a link to a section.
func toc(n int) string {
	var b strings.Builder
	b.WriteString(`<div class="lwptoc"><div class="lwptoc_header">Contents</div><div class="lwptoc_items">`)
	for i := range n {
		fmt.Fprintf(&b, `<div class="lwptoc_item"><a href="#s%d"><span class="lwptoc_item_number">%d.</span> <span class="lwptoc_item_label">A section of the story, number %d</span></a></div>`, i, i+1, i+1)
	}
	b.WriteString(`</div></div>`)
	return b.String()
}

func builderSection(section, widget, inner string) string {
	return `<div class="elementor-element elementor-element-` + section + ` e-flex e-con-boxed e-con e-parent"><div class="e-con-inner">` +
		`<div class="elementor-element elementor-element-` + widget + ` elementor-widget elementor-widget-text-editor"><div class="elementor-widget-container">` +
		inner + `</div></div></div></div>`
}

// TestExtract_StoryLaidOutTwiceIsReadOnce: a page holding the story twice
// (once per screen size) gives it once, while a paragraph the story
// itself says twice stays twice.
func TestExtract_StoryLaidOutTwiceIsReadOnce(t *testing.T) {
	ps := articleParas(8)
	story := `<article>` + pTags(ps[:4]) + `<p>` + ps[0] + `</p>` + pTags(ps[4:]) + `</article>`
	page := `<html><head><title>Council Approves Budget</title></head><body><div class="story">` +
		`<div class="desktop">` + story + `</div><div class="mobile">` + story + `</div></div></body></html>`
	a := mustExtract(t, page, "")
	if n := strings.Count(a.Text, ps[0]); n != 2 {
		t.Errorf("the paragraph the story says twice is there %d times, want 2:\n%s", n, a.Text)
	}
	for _, p := range ps[1:] {
		if n := strings.Count(a.Text, p); n != 1 {
			t.Errorf("%q is there %d times, want once", p[:20], n)
		}
	}
}
