package article

import (
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"
)

func TestShownDate_Formats(t *testing.T) {
	cases := []struct{ text, want string }{
		{"By Haley Hoekstra • March 12, 2025", "2025-03-12"},
		{"September 1st, 2023 By Emily Norwood", "2023-09-01"},
		{"Apr 16, 20240 min. read", "2024-04-16"},
		{"Craig McCarthy Last updated on 17 December 2025", "2025-12-17"},
		{"Dariusz 05 Nov 2025. 8 minutes read", "2025-11-05"},
		{"Published: 2025.12.17 |", "2025-12-17"},
		{"2019/1/22", "2019-01-22"},
		{"03/10/2023 by WSET Global", ""},    // day and month order unknown
		{"23.07.2025 · 6 min", "2025-07-23"}, // with dots, the day first
		{"2.23.2025", "2025-02-23"},          // unless it cannot be
		{"2/24/2026", "2026-02-24"},          // 24 can only be the day
		{"Version 3.15.2026", ""},            // a release
		{"1.3.15.2026", ""},
		{"Urteil v. 12.03.2024", "2024-03-12"}, // German "v." is "vom"
		{"Dec 28 Sat 2013", "2013-12-28"},      // a weekday before the year
		{"24/2/2026", "2026-02-24"},
		{"© 2025 Example Media", ""},
		{"February 30, 2024", ""},
		{"Updated 5 minutes ago", ""},
		{"12 марта 2024 г.", "2024-03-12"},       // Russian
		{"5 травня 2023", "2023-05-05"},          // Ukrainian
		{"3 października 2022", "2022-10-03"},    // Polish
		{"12 Ekim 2024 Cumartesi", "2024-10-12"}, // Turkish
		{"17 desember 2025", "2025-12-17"},       // Norwegian, Indonesian
		{"2024年3月12日 10時15分", "2024-03-12"},      // Japanese, Chinese
		{"2024년 3월 12일 오전 10:15", "2024-03-12"},  // Korean
		{"2024年13月12日", ""},
		{"الثلاثاء ١٢ مارس ٢٠٢٤", "2024-03-12"},          // Arabic, its own digits
		{"12 آب 2023", "2023-08-12"},                     // the Levant's months
		{"12 בנובמבר 2024", "2024-11-12"},                // Hebrew
		{"۱۲ اسفند ۱۴۰۲", ""},                            // a Persian year
		{"12. března 2024", "2024-03-12"},                // Czech
		{"12. marca 2024", "2024-03-12"},                 // Slovak, Polish
		{"12 martie 2024", "2024-03-12"},                 // Romanian
		{"12. maaliskuuta 2024 klo 10.15", "2024-03-12"}, // Finnish
		{"12 Μαρτίου 2024", "2024-03-12"},                // Greek
		{"१२ मार्च २०२४", "2024-03-12"},                  // Hindi, its own digits
		{"2024. március 12. 10:30", "2024-03-12"},        // Hungarian: the year first
		{"2024. márc. 12.", "2024-03-12"},
		{"2024 m. kovo 12 d.", "2024-03-12"}, // Lithuanian
		{"12. ožujka 2024.", "2024-03-12"},   // Croatian
		{"12. märts 2024", "2024-03-12"},     // Estonian
		{"Compatible with 13 Mac 2019", ""},  // Malay's "Mac" is a product's as often
		{"১২ মার্চ ২০২৪", "2024-03-12"},      // Bengali, its own digits
		{"12 มีนาคม 2567", "2024-03-12"},     // Thai: the Buddhist era's year
		{"12 มี.ค. 2567 10:30 น.", "2024-03-12"},
		{"12 มีxค 2567", ""},                        // an abbreviation's dots are dots
		{"Publisert: 29.06.19 10:15", "2019-06-29"}, // a year of two digits
		{"14-03-23, 10:15", "2023-03-14"},
		{"Posted 3/14/23", "2023-03-14"},
		{"1.2.24.5", ""},                     // four numbers: a version
		{"version 1.2.24", ""},               // a version
		{"Posted 12.10.99", ""},              // not this century's, and 2099 is to come
		{"Version: 3.1.24", ""},              // a version
		{"Model: 12.10.23", ""},              // a model
		{"Bruins (25-12-10)", ""},            // a team's standing
		{"What is new in Node 18.12.20", ""}, // a name's number
		{"1 er mars 2023", "2023-03-01"},     // "1<sup>er</sup> mars"
	}
	for _, tc := range cases {
		got := shownDate(tc.text, slashesUnknown)
		switch {
		case tc.want == "" && got != nil:
			t.Errorf("shownDate(%q) = %v, want none", tc.text, got)
		case tc.want != "" && (got == nil || got.Format(time.DateOnly) != tc.want):
			t.Errorf("shownDate(%q) = %v, want %s", tc.text, got, tc.want)
		}
	}
}

func TestShownDate_TimeOfDayWithItsZone(t *testing.T) {
	cases := []struct{ text, want string }{
		{"November 19, 2019, 07:47 PM EST", "2019-11-19T19:47:00-05:00"},
		{"Published 12 March 2025, 14:30 CET", "2025-03-12T14:30:00+01:00"},
		{"March 12, 2025 at 3:15 p.m. ET", "2025-03-12T15:15:00-04:00"}, // US summer time from March 9
		{"January 12, 2025 at 12:05 a.m. ET", "2025-01-12T00:05:00-05:00"},
		{"November 2, 2025 3:15 PM PT", "2025-11-02T15:15:00-08:00"}, // summer time ended that morning
		{"4.5.2015 à 13h36 UTC+2", "2015-05-04T13:36:00+02:00"},      // "at" in French
		{"12. März 2024, 10:15 Uhr", "2024-03-12T00:00:00Z"},         // "Uhr" is no zone: the day only
		{"04.05.2015 13h36 UTC+2", "2015-05-04T13:36:00+02:00"},
		{"12.3.2024 klo 10.15 EET", "2024-03-12T10:15:00+02:00"}, // "at" in Finnish
		{"March 12, 2025 10:07 AM", "2025-03-12T00:00:00Z"},      // no zone: the day only
		{"March 12, 2025 10:07 IST", "2025-03-12T00:00:00Z"},     // a name of two zones
		{"March 12, 2025 13:15 PM EST", "2025-03-12T00:00:00Z"},  // no such time
		{"March 12, 2025 | 5 min read", "2025-03-12T00:00:00Z"},
		{"2024年3月12日 10時15分 JST", "2024-03-12T10:15:00+09:00"},
		{"2024년 3월 12일 10시 15분 KST", "2024-03-12T10:15:00+09:00"},
		// The time and its zone before the day.
		{"Published 3:45 PM EST, Tue March 5, 2024", "2024-03-05T15:45:00-05:00"},
		{"15:45 GMT, 5 March 2024", "2024-03-05T15:45:00Z"},
		{"Version 3.45 GMT March 5, 2024", "2024-03-05T00:00:00Z"},
		{"3:45 PM March 5, 2024", "2024-03-05T00:00:00Z"},
		{"Watch live at 7:00 PM ET | March 5, 2024", "2024-03-05T00:00:00Z"}, // another thing's time
	}
	for _, tc := range cases {
		got := shownDate(tc.text, slashesUnknown)
		if got == nil || got.Format(time.RFC3339) != tc.want {
			t.Errorf("shownDate(%q) = %v, want %s", tc.text, got, tc.want)
		}
	}
}

// A line that gives the updated day before the published one gives the
// published day.
func TestShownDate_PublishedAfterUpdated(t *testing.T) {
	cases := []struct{ text, want string }{
		{"Last Modified: March 6, 2024 | Published: March 5, 2024", "2024-03-05"},
		{"Updated March 6, 2024, originally published March 5, 2024", "2024-03-05"},
		{"Aktualisiert am 06.03.2024, veröffentlicht am 05.03.2024", "2024-03-05"},
		{"Published March 5, 2024 | Updated March 6, 2024", "2024-03-05"},
		{"Updated March 6, 2024 | 3 comments posted", "2024-03-06"},
	}
	for _, tc := range cases {
		if got := shownDate(tc.text, slashesUnknown); got == nil || got.Format(time.DateOnly) != tc.want {
			t.Errorf("shownDate(%q) = %v, want %s", tc.text, got, tc.want)
		}
	}
}

// A slashed day and month both up to 12 are read in the order the page's
// language writes them, and not at all where it may be either.
func TestShownDate_SlashedInThePagesOrder(t *testing.T) {
	cases := []struct {
		lang, text, want string
	}{
		{"fr", "Publié le 05/03/2024 à 15h45", "2024-03-05"},
		{"es-ES", "05/03/2024", "2024-03-05"},
		{"en-GB", "05/03/2024", "2024-03-05"},
		{"en-US", "03/05/2024 3:45 PM", ""}, // a default that sites the world over keep
		{"en_US", "03/05/2024", ""},
		{"fil", "03/05/2024", ""},
		{"en", "03/05/2024", ""},
		{"en-CA", "03/05/2024", ""},
		{"", "03/05/2024", ""},
		{"ja", "03/05/2024", ""},
		{"en-US", "24/2/2026", "2026-02-24"}, // 24 can only be the day
		{"nl", "Gepubliceerd op 05-03-2024", "2024-03-05"},
		{"en", "2-24-2026", "2026-02-24"},
		{"en", "05-03-2024", ""},
		{"nl", "2024-03-05", "2024-03-05"},
	}
	for _, tc := range cases {
		got := shownDate(tc.text, slashOrderOf(tc.lang))
		switch {
		case tc.want == "" && got != nil:
			t.Errorf("%s: shownDate(%q) = %v, want none", tc.lang, tc.text, got)
		case tc.want != "" && (got == nil || got.Format(time.DateOnly) != tc.want):
			t.Errorf("%s: shownDate(%q) = %v, want %s", tc.lang, tc.text, got, tc.want)
		}
	}
}

// The page declares its language with the region in one place and
// without it in another.
func TestExtract_SlashedDayInThePagesLanguage(t *testing.T) {
	body := pTags(articleParas(6))
	cases := []struct{ name, html, head, line, want string }{
		{"French", `<html lang="fr">`, ``, `<p class="date">Publié le 05/03/2024</p>`, "2024-03-05"},
		{"British, the region in og:locale", `<html lang="en">`, `<meta property="og:locale" content="en_GB">`, `<p class="date">05/03/2024</p>`, "2024-03-05"},
		{"American", `<html lang="en-US">`, ``, `<p class="date">05/03/2024</p>`, ""},
		{"English, no region", `<html lang="en">`, ``, `<p class="date">03/05/2024</p>`, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			page := tc.html + `<head><title>A story</title>` + tc.head + `</head><body><article><h1>A story</h1>` + tc.line + body + `</article></body></html>`
			a := mustExtract(t, page, "https://example.com/news/a-story")
			got := ""
			if a.PublishedAt != nil {
				got = a.PublishedAt.Format(time.DateOnly)
			}
			if got != tc.want {
				t.Errorf("PublishedAt = %q, want %q", got, tc.want)
			}
		})
	}
}

// A date beside a link to another story (a related list, a card) is that
// story's; beside the page's own link, a share link or a permalink it is
// the story's.
func TestExtract_TeaserDatesAreOtherStories(t *testing.T) {
	body := pTags(articleParas(3))
	related := `<aside class="related"><h3>Related stories</h3><ul>` +
		`<li><a href="/news/council-approves-cycling-lanes">Council approves new cycling lanes after long debate</a> <time datetime="2022-09-13T08:00:00Z">Sep 13, 2022</time></li>` +
		`<li><a href="/news/rail-strike-talks-collapse">Rail strike talks collapse as unions reject offer</a> <time datetime="2022-09-11T08:00:00Z">Sep 11, 2022</time></li></ul></aside>`
	cases := []struct{ name, head, story, want string }{
		{"a related list beside a declared day", `<meta property="article:published_time" content="2022-09-19T10:00:00Z">`,
			`<p class="byline">Jane Roe, Campus Editor</p>` + body, "2022-09-19"},
		{"a related list beside a shown day", "", `<p class="date">September 19, 2022</p>` + body, "2022-09-19"},
		{"a related list alone", "", body, ""},
		{"cards wrapped in their links", "", `<p>September 19, 2022</p>` + body +
			`<div class="cards"><a href="/news/bakery-wins-award"><h3>Local bakery wins national bread award again</h3><time datetime="2022-09-10">Sep 10, 2022</time></a></div>`, "2022-09-19"},
		{"a recent-posts list that links the page itself", "",
			body + `<ul class="recent"><li><a href="https://example.com/news/storm-hits-the-coast">Storm hits the coast as the town sleeps</a> <time datetime="2022-09-19">September 19, 2022</time></li></ul>`, "2022-09-19"},
		{"a permalink around the date", "",
			`<div class="entry-meta"><a href="/news/storm-hits-the-coast" rel="bookmark"><time datetime="2022-09-19T10:00:00Z">September 19, 2022</time></a></div>` + body, "2022-09-19"},
		{"a section's link beside the date in the story's meta line", "",
			`<div class="x">In <a href="/local-news-and-community-events/">Local News and Community Events</a> · <time datetime="2022-09-19T10:00:00Z">Sep 19, 2022</time></div>` + body, "2022-09-19"},
		{"a link to a section's page beside the story's own date", "",
			body + `<div class="more"><a href="/news/">Back to all news and press releases</a> <time datetime="2022-09-19">Sep 19, 2022</time></div>`, "2022-09-19"},
		{"a share link beside the date", "",
			`<div class="meta"><time datetime="2022-09-19T10:00:00Z">September 19, 2022</time> <a href="https://www.facebook.com/sharer/sharer.php?u=x">Share this story on Facebook now</a></div>` + body, "2022-09-19"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			page := `<html lang="en"><head><title>Storm hits the coast</title>` + tc.head + `</head><body><main><article><h1>Storm hits the coast</h1>` +
				tc.story + `</article>` + related + `</main></body></html>`
			if got := publishedDay(mustExtract(t, page, "https://example.com/news/storm-hits-the-coast")); got != tc.want {
				t.Errorf("PublishedAt = %q, want %q", got, tc.want)
			}
		})
	}
}

// A meta line's hidden "updated" part is the modified instant, not the
// day the line shows (Avada); alone, an "updated" date still dates.
func TestExtract_UpdatedPartOfAMetaLine(t *testing.T) {
	for meta, want := range map[string]string{
		`<div class="fusion-meta-info">By Clara Whitfield | <span class="updated rich-snippet-hidden">2019-08-19T11:00:00+00:00</span><span>August 14th, 2019</span> | Categories: Education</div>`: "2019-08-14",
		`<div class="post-meta">By Clara Whitfield | <span class="date updated">August 14th, 2019</span></div>`:                                                                                     "2019-08-14",
	} {
		page := `<html lang="en"><head><title>Library extends hours</title></head><body><article><h1>Library extends hours</h1>` + meta + pTags(articleParas(4)) + `</article></body></html>`
		if got := publishedDay(mustExtract(t, page, "https://example.com/library-extends-hours/")); got != want {
			t.Errorf("PublishedAt = %q, want %s (%s)", got, want, meta)
		}
	}
}

// A comment's time inside the story's <article> is the comment's.
func TestExtract_CommentTimesAreNotTheStorys(t *testing.T) {
	page := `<html lang="en"><head><title>One-pot lemon orzo</title></head><body><article><h1>One-pot lemon orzo</h1>` +
		`<p class="entry-meta">Posted by <a href="/about/">Jenna Marlowe</a> on August 19, 2020</p>` + pTags(articleParas(4)) +
		`<div id="comments"><ol class="comment-list"><li class="comment"><div class="comment-metadata"><time datetime="2020-08-22T14:10:00Z">August 22, 2020</time></div>` +
		`<p>Made this last night, it was lovely.</p></li></ol></div></article></body></html>`
	if got := publishedDay(mustExtract(t, page, "https://example.com/one-pot-lemon-orzo/")); got != "2020-08-19" {
		t.Errorf("PublishedAt = %q, want 2020-08-19", got)
	}
	// A correspondent's box is no comment section.
	page = `<html lang="en"><head><title>Ceasefire talks resume</title></head><body><article class="article--commentary"><h1>Ceasefire talks resume</h1>` +
		`<div class="correspondent-box"><span>By Jane Roe</span> <time datetime="2024-03-03T09:00:00Z">March 3, 2024</time></div>` + pTags(articleParas(4)) + `</article></body></html>`
	if got := publishedDay(mustExtract(t, page, "https://example.com/world/ceasefire-talks-resume")); got != "2024-03-03" {
		t.Errorf("PublishedAt = %q, want 2024-03-03 beside a correspondent", got)
	}
}

// A date in a data table near the headline is data, not an earlier day
// of the story.
func TestExtract_DateInADataTableIsNoDay(t *testing.T) {
	page := `<html lang="en-US"><head><title>A story</title><meta property="article:published_time" content="2025-02-12T23:21:00Z"></head><body><article><h1>A story</h1>` +
		`<table><thead><tr><th>Date</th><th>Change</th></tr></thead><tbody><tr><td>1/1/2013</td><td>+13.1%</td></tr></tbody></table>` +
		pTags(articleParas(6)) + `</article></body></html>`
	a := mustExtract(t, page, "https://example.com/research/markets")
	if a.PublishedAt == nil || a.PublishedAt.Format(time.DateOnly) != "2025-02-12" {
		t.Errorf("PublishedAt = %v, want 2025-02-12", a.PublishedAt)
	}
}

func TestExtract_PublishedFromADatedElement(t *testing.T) {
	body := pTags(articleParas(6))
	cases := []struct {
		name, head, dated, want string
	}{
		{"a post's date line", "", `<div class="post-meta"><span class="author">Jane Roe</span> <span class="post-date">March 12, 2025</span></div>`, "2025-03-12"},
		{"metadata wins over what is shown", `<meta property="article:published_time" content="2024-01-05T08:00:00Z">`, `<span class="date">March 12, 2025</span>`, "2024-01-05"},
		{"the modified day is no publication", `<meta property="article:modified_time" content="2025-03-12T10:00:00Z">`, `<p class="updated">Updated March 12, 2025</p>`, ""},
		{"the declared modified day beside a shown later update is the publication", `<meta name="last-modified" content="December 22, 2022">`,
			`<div class="dateline-wrapper"><span class="dateline">DECEMBER 22, 2022</span><span class="dateline updated">Updated: JANUARY 02, 2026</span></div>`, "2022-12-22"},
		{"a comment's date is not the story's", "", `<div class="comment"><span class="comment-date">May 2, 2025</span><p>Nice.</p></div>`, ""},
		{"a date line under the headline", "", `<p class="text-muted">December 15, 2025</p>`, "2025-12-15"},
		{"a date line with its reading time", "", `<p>February 4, 2025 - 11 minutes</p>`, "2025-02-04"},
		{"a scholarly page's citation date", `<meta name="citation_publication_date" content="2023 Jan 7">`, "", "2023-01-07"},
		{"a labelled date line", "", `<p>Published on: February 14, 2025</p>`, "2025-02-14"},
		{"a <time> that writes its day and time only as text", "", `<time>February 14, 2025 at 3:15 pm</time>`, "2025-02-14"},
		{"a publication label behind the story's kind", "", `<p><span>Essay - Published: 2025.12.17 | </span><a href="/tags/ai">ai</a></p>`, "2025-12-17"},
		{"a sentence's date is no labelled date line", "", `<p>The report we published: March 2, 2025</p>`, ""},
		{"an updated line is no publication day", "", `<p><span>Updated November 18, 2025</span></p><p>Published March 2, 2025</p>`, "2025-03-02"},
		{"a date in a sentence is no date line", "", `<p>On March 3, 2025 the council voted.</p>`, ""},
		{"a reply's date line is not the story's", "", `<div class="comments"><div>May 2, 2025</div><p>Nice.</p></div>`, ""},
		{"a dated element inside a reply is not the story's", "", `<section id="comments"><div class="reply-body"><span class="post-time">May 2, 2025 10:28</span><p>Nice.</p></div></section>`, ""},
		{"a list's cards give no microdata day", `<meta name="date" content="March 27, 2025">`,
			`<div class="card"><span itemprop="datePublished" content="2026-03-13T12:00:00Z">Mar 13, 2026</span></div>` +
				`<div class="card"><span itemprop="datePublished" content="2026-03-12T09:00:00Z">Mar 12, 2026</span></div>`, "2025-03-27"},
		{"the story's microdata, given twice", `<meta name="date" content="March 27, 2025">`,
			`<span itemprop="datePublished" content="2025-03-26T12:00:00Z">Mar 26, 2025</span><time itemprop="datePublished" datetime="2025-03-26T12:00:00Z">Mar 26</time>`, "2025-03-26"},
		{"a list's dated items are not the story's", "",
			`<p>December 12, 2025</p><ul><li><a href="/a">Another</a> <span class="r-posts-date">December 2, 2025</span></li>` +
				`<li><a href="/b">One more</a> <span class="r-posts-date">November 28, 2025</span></li></ul>`, "2025-12-12"},
		{"a plain date meta on the modified day is the last edit", `<meta property="og:updated_time" content="2024-07-05T14:20:08-04:00"><meta name="DC.date" content="2024-07-05T14:20:08Z">`,
			`<time datetime="2024-03-01 05:00:00">March 1, 2024</time>`, "2024-03-01"},
		{"a plain date meta on another day is the story's", `<meta property="og:updated_time" content="2024-07-05T14:20:08-04:00"><meta name="DC.date" content="2024-02-28T10:00:00Z">`,
			`<time datetime="2024-03-01 05:00:00">March 1, 2024</time>`, "2024-02-28"},
		{"a day shown under the headline before the declared one is the story's",
			`<meta property="article:published_time" content="2025-06-24T00:00:00Z"><meta property="article:modified_time" content="2025-06-24T00:00:00Z">`,
			`<p>August 25, 2024</p>`, "2024-08-25"},
		{"a shown day after the declared one leaves it", `<meta property="article:published_time" content="2022-10-24T12:40:59Z">`,
			`<p>November 30, 2022</p>`, "2022-10-24"},
		{"a shown day one before the declared instant is its time zone", `<meta property="article:published_time" content="2021-12-10T02:17:00Z">`,
			`<p>December 9, 2021</p>`, "2021-12-10"},
		{"a shown day one before an instant no time zone puts on it is the story's", `<meta property="article:published_time" content="2025-12-19T22:02:58Z">`,
			`<div>Dec 18, 2025</div>`, "2025-12-18"},
		{"a shown day one before a declared day without a time leaves it", `<meta property="article:published_time" content="2025-12-19">`,
			`<div>Dec 18, 2025</div>`, "2025-12-19"},
		{"a shown clock puts a declared UTC instant in its zone", `<meta property="article:published_time" content="2024-09-11T22:40:00.000Z">`,
			`<time datetime="2024-09-11T22:40:00.000Z">12.09.2024, 00.40 Uhr</time>`, "2024-09-12T00:40:00+02:00"},
		{"a declared day without a time is no instant to put in a zone", `<meta property="article:published_time" content="2024-09-12">`,
			`<time>12.09.2024, 10.00 Uhr</time>`, "2024-09-12T00:00:00Z"},
		{"a shown day without a clock leaves the instant", `<meta property="article:published_time" content="2024-09-11T22:40:00.000Z">`,
			`<div>Sep 12, 2024</div>`, "2024-09-11T22:40:00Z"},
		{"a shown clock that names its zone gives the instant there", `<meta property="article:published_time" content="2024-09-11T22:40:00.000Z">`,
			`<div>Sep 11, 2024 at 6:40 PM EDT</div>`, "2024-09-11T18:40:00-04:00"},
		{"an evening in a zone the page names is the day before in UTC", `<script type="application/ld+json">{"@type":"NewsArticle","datePublished":"2025-11-19T02:30:00.000Z"}</script>`,
			`<div class="timestamp">Posted: Nov 18, 2025 9:30 PM EST</div>`, "2025-11-18T21:30:00-05:00"},
		{"a named zone's clock on another instant leaves the declared one", `<meta property="article:published_time" content="2025-11-19T02:30:00Z">`,
			`<div>Nov 18, 2025 8:00 PM EST</div>`, "2025-11-19T02:30:00Z"},
		{"a shown day one before an evening in a zone west of UTC, no zone's day", `<meta property="article:published_time" content="2025-12-19T20:00:00-08:00">`,
			`<div>Dec 18, 2025</div>`, "2025-12-18"},
		{"a shown day one before a morning east of UTC, the day in UTC", `<meta property="article:published_time" content="2025-12-19T08:30:00+09:00">`,
			`<div>Dec 18, 2025</div>`, "2025-12-18"},
		{"an embedded post's date is not the story's", `<meta property="article:published_time" content="2013-09-29">`,
			`<blockquote class="twitter-tweet"><p>Testing is great.</p>&mdash; Jane Roe <a href="https://twitter.com/x/statuses/1">August 22, 2013</a></blockquote>`, "2013-09-29"},
		{"a credit line with its day in an author box", "", `<div class="at-author"><p>Silverback Strategies <span class="at-bar">|</span> October 15, 2025</p></div>`, "2025-10-15"},
		{"a site's own name for its publication date meta", `<meta name="w-published-date" content="2025-05-27T06:03:43.274Z">`, "", "2025-05-27"},
		{"an author's bio that mentions a day", "", `<div class="author-bio"><p>Jane Roe has covered the council since March 3, 2019.</p></div>`, ""},
		{"a date line after share buttons and an avatar", "",
			`<div class="share">` + strings.Repeat(`<a href="/share"><span>Share</span></a>`, 14) + `</div><div class="avatar"><img src="a.jpg" alt=""></div><div>Published March 9, 2026</div>`, "2026-03-09"},
		{"a date line with its weekday", "", `<p>Tuesday 3 March 2024</p>`, "2024-03-03"},
		{"a date line with its time of day, written with a dot", "", `<p>Tue 3 Mar 2024 10.00 GMT</p>`, "2024-03-03"},
		{"a date line going on with its updated stamp", "", `<div>Published: March 3, 2024 | Last updated: March 5, 2024</div>`, "2024-03-03"},
		{"today's date in the masthead is not the story's", "", `<div class="block-date"><p id="todays-date">Friday, December 19, 2025</p></div>`, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			page := `<html><head><title>A story</title>` + tc.head + `</head><body><article><h1>A story</h1>` + tc.dated + body + `</article></body></html>`
			a := mustExtract(t, page, "https://example.com/news/a-story")
			got := publishedDay(a)
			if strings.Contains(tc.want, "T") && a.PublishedAt != nil { // the instant and its zone
				got = a.PublishedAt.Format(time.RFC3339)
			}
			if got != tc.want {
				t.Errorf("PublishedAt = %q, want %q", got, tc.want)
			}
		})
	}
}

// News in other languages writes its days in its own words: month names,
// "12." and "1er" for the day, "de" between the parts, a weekday and a
// publication label before them, "Uhr" and "à 14h05" after.
func TestExtract_DaysShownInOtherLanguages(t *testing.T) {
	body := pTags(articleParas(6))
	cases := []struct{ name, dated, want string }{
		{"German, with its weekday and time", `<p>Montag, 4. Dezember 2023, 10:15 Uhr</p>`, "2023-12-04"},
		{"a time of day before the day", `<p>10:15 AM March 14, 2023</p>`, "2023-03-14"},
		{"after a writer's credit", `<p class="post-info">Posted by Prairie Federal Credit Union on 04/17/2025</p>`, "2025-04-17"},
		{"before a writer's credit", `<p>Posted on March 5, 2024 by Jane Roe</p>`, "2024-03-05"},
		{"before a credit and a reading time", `<p>March 5, 2024 by Jane Roe | 5 min read</p>`, "2024-03-05"},
		{"before a sentence that opens with by", `<p>On March 5, 2024 by the time the council met the vote was over</p>`, ""},
		{"a caption's day and credit are no date line", `<figure><img src="a.jpg"><figcaption>March 1, 2024 by Jane Roe</figcaption></figure><p>Published March 6, 2024</p>`, "2024-03-06"},
		{"before two writers' credit", `<p>March 5, 2024 by Jane Roe and John Doe</p>`, "2024-03-05"},
		{"before the site's account", `<p>Posted on March 5, 2024 by admin</p>`, "2024-03-05"},
		{"French, before the writer's credit", `<p>Publié le 5 mars 2024 par Ana López</p>`, "2024-03-05"},
		{"Drupal's default: a weekday settles a slashed day's order", `<div class="submitted">Submitted by <a href="/user/12" class="username">Jane Roe</a> on Tue, 03/05/2024 - 10:12</div>`, "2024-03-05"},
		{"the other order's weekday", `<p>Posted on Friday, 03/05/2024</p>`, "2024-05-03"},
		{"a weekday both orders give reads no day", `<p>Posted on Tue, 12/03/2024</p>`, ""},
		{"a time of day between the day and the credit", `<p>Posted on March 5, 2024 at 10:12 am by Jane Roe</p>`, "2024-03-05"},
		{"after a credit and a bar", `<p>By Jane Roe | March 5, 2024</p>`, "2024-03-05"},
		{"after a credit on the line before", `<p>By Jane Roe<br>March 5, 2024</p>`, "2024-03-05"},
		{"a sentence that opens with by is no credit", `<p>By the time March 5, 2024 came the vote was over</p>`, ""},
		{"a card's credit and day under the story's byline", `<p class="byline">By Dana Whitfield</p><div class="pick"><h4>Hawks stretch streak</h4><p>By Jane Roe | March 1, 2024</p><a href="/hawks/">Read more</a></div>`, ""},
		{"a way to send before a deadline is no credit", `<p>By mail, postmarked no later than March 15, 2024</p>`, ""},
		{"a place after the time is no credit", `<p>March 2, 2024 at 6:40 pm by the old harbour wall</p>`, ""},
		{"a weekday neither order gives reads no day", `<p>Posted on Monday, 03/05/2024</p>`, ""},
		{"a writer's link, a reading time, then the day", `<p><a href="https://medium.com/@janeroe">Jane Roe</a> · 5 min read · Mar 5, 2024</p>`, "2024-03-05"},
		{"a link to no writer's page before the day is no credit", `<p><a href="/news/roads">Roads</a> · Mar 5, 2024</p>`, ""},
		{"a deadline after the day is no credit", `<p>Date: March 31, 2024 by midnight</p><p>Posted March 5, 2024</p>`, "2024-03-05"},
		{"labelled, a weekday and a time before the day", `<p>Posted: Fri 6:45 PM, Feb 16, 2018</p>`, "2018-02-16"},
		{"French, 1<sup>er</sup>", `<p>Publié le 1<sup>er</sup> mars 2023</p>`, "2023-03-01"},
		{"German, labelled", `<p>Veröffentlicht am 12.&nbsp;März 2024</p>`, "2024-03-12"},
		{"German, in a time element", `<time>12. Mär. 2024</time>`, "2024-03-12"},
		{"French, labelled, with its time", `<p>Publié le 1er août 2023 à 14h05</p>`, "2023-08-01"},
		{"Spanish", `<p>Publicado el 12 de marzo de 2024</p>`, "2024-03-12"},
		{"Italian", `<p>Pubblicato il 12 maggio 2022</p>`, "2022-05-12"},
		{"Portuguese", `<p>5 de março de 2021</p>`, "2021-03-05"},
		{"Portuguese, labelled", `<p>Publicado em 12 de março de 2024</p>`, "2024-03-12"},
		{"a day and its month without a space", `<p>12.März 2024</p>`, "2024-03-12"},
		{"Dutch", `<p>Gepubliceerd op 7 mei 2020</p>`, "2020-05-07"},
		{"a German updated line beside the publication day", `<p>Aktualisiert am 5. März 2024</p><p>Veröffentlicht am 3. März 2024</p>`, "2024-03-03"},
		{"one line with both days", `<p>Publié le 3 mars 2024, mis à jour le 5 mars 2024</p>`, "2024-03-03"},
		{"one line with both days and their times", `<p>Publié le 1er août 2023 à 14h05, mis à jour le 2 août 2023 à 09h10</p>`, "2023-08-01"},
		{"the same in English", `<p>Published August 1, 2023 at 2:05 pm, updated August 2, 2023 at 9:10 am</p>`, "2023-08-01"},
		{"a product's generation is no month", `<p>iPad Pro Gen 6, 2022</p>`, ""},
		{"Swedish, whose months begin as English ones", `<p>12 augusti 2024</p>`, "2024-08-12"},
		{"Russian", `<p>12 марта 2024, 10:15</p>`, "2024-03-12"},
		{"Japanese", `<p>2024年3月12日 10時15分</p>`, "2024-03-12"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			page := `<html><head><title>Ein Artikel</title></head><body><article><h1>Ein Artikel</h1>` + tc.dated + body + `</article></body></html>`
			if got := publishedDay(mustExtract(t, page, "https://example.com/news/ein-artikel")); got != tc.want {
				t.Errorf("PublishedAt = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestExtract_TitleIsTheHeadlineThePageShows(t *testing.T) {
	body := pTags(articleParas(6))
	head := `<title>Best Trail Backpacks 2025: Our Picks | Example Outdoors</title><meta property="og:title" content="Best Trail Backpacks 2025: Our Picks">`
	cases := []struct{ name, page, want string }{
		{"an h1's kicker is no part of the headline",
			`<html><head><meta property="og:title" content="Deutschlandticket wird ab Januar teurer"></head><body><article><h1><span class="seitenkopf__topline">Verkehrsminister einigen sich </span>` +
				`<span class="seitenkopf__headline--text">Deutschlandticket wird ab Januar teurer</span></h1>` + body + `</article></body></html>`,
			"Deutschlandticket wird ab Januar teurer"},
		{"a kicker set off by hidden punctuation",
			`<html><head><title>Kohleausstieg in der Lausitz: Die Lausitz wartet auf den Wandel - taz.de</title></head><body><article><h1><span class="kicker">Kohleausstieg in der Lausitz</span><span class="hide">: </span><span>Die Lausitz wartet auf den Wandel</span></h1>` + body + `</article></body></html>`,
			"Die Lausitz wartet auf den Wandel"},
		{"a kicker named a label, glued to the headline",
			`<html><head><title>Bilanz 2024: Deutsche Bahn fährt erneut Milliardenverlust ein</title></head><body><article><h1 class="header-title"><span class="header-label"><span class="header-label__content">Bilanz 2024</span></span>` +
				`<span class="header-title__text">Deutsche Bahn fährt erneut Milliardenverlust ein</span></h1>` + body + `</article></body></html>`,
			"Deutsche Bahn fährt erneut Milliardenverlust ein"},
		{"the story's h1 over the social title",
			`<html><head>` + head + `</head><body><article><h1>The Best Trail Backpacks, Tested on 400 Miles</h1>` + body + `</article></body></html>`,
			"The Best Trail Backpacks, Tested on 400 Miles"},
		{"a logo in the masthead is no headline",
			`<html><head>` + head + `</head><body><header><h1>Example Outdoors Backpacks</h1></header><article>` + body + `</article></body></html>`,
			"Best Trail Backpacks 2025: Our Picks"},
		{"an h1 that is a link is no headline",
			`<html><head>` + head + `</head><body><h1>
				<a href="/">Trail Backpacks Weekly</a>
			</h1><article>` + body + `</article></body></html>`,
			"Best Trail Backpacks 2025: Our Picks"},
		{"a section name shares too little",
			`<html><head>` + head + `</head><body><h1>Outdoor Gear Reviews</h1><article>` + body + `</article></body></html>`,
			"Best Trail Backpacks 2025: Our Picks"},
		// The social title shares nothing with the h1, but the JSON-LD
		// headline is the h1's words: Squarespace's "name" is the search
		// title and its "headline" the post's; Dotdash's health pages put
		// the h1 in a MedicalWebPage's headline.
		{"an h1 the JSON-LD headline repeats, beside a name the title repeats",
			`<html><head><title>When to Prune Hydrangeas — Garden Studio</title><script type="application/ld+json">{"@type":"Article","name":"When to Prune Hydrangeas — Garden Studio","headline":"Pruning Hydrangeas: A Simple Guide by Type"}</script></head>` +
				`<body><article><h1>Pruning Hydrangeas: A Simple Guide by Type</h1>` + body + `</article></body></html>`,
			"Pruning Hydrangeas: A Simple Guide by Type"},
		{"an h1 a MedicalWebPage's headline repeats",
			`<html><head><meta property="og:title" content="What Causes Shin Splints? Symptoms and Treatment"><script type="application/ld+json">{"@type":["MedicalWebPage"],"headline":"Shin Splints: Why Your Lower Legs Hurt After Running"}</script></head>` +
				`<body><article><h1>Shin Splints: Why Your Lower Legs Hurt After Running</h1>` + body + `</article></body></html>`,
			"Shin Splints: Why Your Lower Legs Hurt After Running"},
		{"an h1 that goes on where the title stops",
			`<html><head><title>Why we rewrote our sync engine | Fieldnote Blog</title></head><body><article><h1>Why we rewrote our sync engine (and what we'd do differently)</h1>` + body + `</article></body></html>`,
			"Why we rewrote our sync engine (and what we'd do differently)"},
		{"two h1s: the metadata decides",
			`<html><head>` + head + `</head><body><h1>The Best Trail Backpacks</h1><h1>Backpacks we tested</h1><article>` + body + `</article></body></html>`,
			"Best Trail Backpacks 2025: Our Picks"},
		{"an h1 that repeats the document title, section and site name included, loses them as the title would",
			`<html><head><title>How to Pack a Trail Backpack | Guides | Example Outdoors</title></head><body><article><h1>How to Pack a Trail Backpack | Guides | Example Outdoors</h1>` + body + `</article></body></html>`,
			"How to Pack a Trail Backpack"},
		{"a headline shown twice keeps the part after its dash, whichever dash the title writes",
			`<html><head><meta property="og:site_name" content="Example Garage"><meta property="og:title" content="How to replace brake pads - From a Certified Mechanic"></head><body>` +
				`<article><h1>How to replace brake pads – From a Certified Mechanic</h1><h1>How To Replace Brake Pads – From a Certified Mechanic</h1>` + body + `</article></body></html>`,
			"How to replace brake pads - From a Certified Mechanic"},
		{"a title's section and site name go after bars",
			`<html><head><title>How to Pack a Trail Backpack | Guides | Example Outdoors</title></head><body><article>` + body + `</article></body></html>`,
			"How to Pack a Trail Backpack"},
		// A blog's masthead h1 links home and names the blog: the part of
		// the title it matches is the site's, before a colon too (Blogger).
		{"a blog's name in a masthead h1 linking home, before a colon",
			`<html><head><title>Trail Notes: How to Pack a Trail Backpack</title></head><body><div id="header"><h1><a href="/">Trail Notes</a></h1></div>` +
				`<div class="post"><h3 class="post-title">How to Pack a Trail Backpack</h3>` + body + `</div></body></html>`,
			"How to Pack a Trail Backpack"},
		{"a blog's name in a masthead h1 linking home, after a dash",
			`<html><head><title>Pack Light - Trail Notes</title></head><body><h1><a href="https://example.com/">Trail Notes</a></h1>` +
				`<div class="post"><h2>Pack Light</h2>` + body + `</div></body></html>`,
			"Pack Light"},
		{"a link's word alone in the h1 names no site",
			`<html><head><title>Review: The Best Trail Backpacks</title></head><body><h1><a href="/">Review</a></h1><div class="post">` + body + `</div></body></html>`,
			"Review: The Best Trail Backpacks"},
		{"a declared site's name before a colon is the home page's title",
			`<html><head><title>Example Outdoors: Gear for Every Trail</title><meta property="og:site_name" content="Example Outdoors"></head><body><article>` + body + `</article></body></html>`,
			"Example Outdoors: Gear for Every Trail"},
		{"a story's h1 linking to the story names it",
			`<html><head><title>The Best Trail Backpacks - March 2026</title></head><body><article><h1><a href="/gear/backpacks">The Best Trail Backpacks - March 2026</a></h1>` + body + `</article></body></html>`,
			"The Best Trail Backpacks - March 2026"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := mustExtract(t, tc.page, "https://example.com/gear/backpacks").Title; got != tc.want {
				t.Errorf("Title = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestExtract_AuthorsFromCreditLinesLinksAndCitations(t *testing.T) {
	body := pTags(articleParas(6))
	cases := []struct {
		name, credit string
		want         []string
	}{
		{"a written-by line", `<p>Written by Cassidy Horton</p>`, []string{"Cassidy Horton"}},
		{"a long credit line with its stamps", `<p>By ZHANG WEI and LIU YANG in Beijing | China Morning Daily | Updated: 2023-08-10 10:15</p>`, []string{"ZHANG WEI", "LIU YANG"}},
		{"a label and the name after it", `<div><p>Written by</p><p>Edzel Tabing</p></div>`, []string{"Edzel Tabing"}},
		{"an authors label over a list of names", `<div class="hero-metadata"><h6>Author(s)</h6><ul><li><a href="/library/?_author=John%20A.%20Alic">John A. Alic</a></li>` +
			`<li><a href="/library/?_author=David%20C.%20Mowery">David C. Mowery</a></li></ul></div>`, []string{"John A. Alic", "David C. Mowery"}},
		{"text by", `<p>Text by Hunter Dukes</p>`, []string{"Hunter Dukes"}},
		{"a role on the next line", `<p>By Hunter Dukes<br>Staff Reporter</p>`, []string{"Hunter Dukes"}},
		{"a dated credit in a theme's meta list", `<ul class="entry-meta"><li>March 5, 2024 by Hunter Dukes</li></ul>`, []string{"Hunter Dukes"}},
		{"a way to come on the line before directions", `<p>By Public Transit<br>Bus routes 4 and 11 stop at the main gate every twenty minutes.</p>`, nil},
		{"a customer's review", `<div class="review"><p>Review by Mike Thompson</p><p>Works well.</p></div>`, nil},
		{"a credit and its day over lines of the source, then an updated stamp", "<p>by Jon Foster\n   -\n   2025-09-13<br>\n   Updated: 2025-09-13<br/>&nbsp;</p>", []string{"Jon Foster"}},
		{"two writers on a credit line", `<p>By Anna Schmidt and Jonas Weber</p>`, []string{"Anna Schmidt", "Jonas Weber"}},
		{"a German credit line on a page not declared German", `<p>Von Anna Schmidt und Jonas Weber</p>`, nil},
		{"a name with von on an English page", `<h2>Von Miller Signs Extension</h2>`, nil},
		{"staff and wire reports name no person", `<p>By Staff and Wire Reports</p>`, nil},
		{"a surname that is a French word, before the day", `<p>By Thanh Le May 12, 2024</p>`, []string{"Thanh Le"}},
		{"a way to reach the site is no credit", `<ul><li><b>By phone:</b> +44 20 3885 0312</li><li><b>By Contact Form:</b> <a href="/contact">write to us</a></li></ul>`, nil},
		{"a sentence that opens with By", `<p>By 2030 most homes will have one.</p>`, nil},
		{"by and one word", `<p>By car</p>`, nil},
		{"article by", `<div>Article by Matias Heikkilä</div>`, []string{"Matias Heikkilä"}},
		{"a link to the author's page", `<div>By <a href="/author/matthew-richardson">Matthew Richardson</a> · Review Editor</div>`, []string{"Matthew Richardson"}},
		{"a link to a staff page after by", `<div class="meta">By <a href="/staff/jane-roe/">Jane Roe</a> and <a href="/staff/john-doe/">John Doe</a><span>March 5, 2024</span></div>`, []string{"Jane Roe", "John Doe"}},
		{"a staff page's link without by is anyone's", `<p>Media contact: <a href="/staff/anna-white">Anna White</a></p>`, nil},
		{"a page about contributing names no writer", `<p>Want to write for us? Read our <a href="/contributors/guidelines/">Contributor Guidelines</a>.</p>`, nil},
		{"a link to a Medium handle", `<div><a href="https://medium.com/@janeroe?source=post_page">Jane Roe</a> · 5 min read</div>`, []string{"Jane Roe"}},
		{"Drupal's submitted line", `<div class="submitted">Submitted by <a href="/user/12" class="username">Jane Roe</a> on Tue, 03/05/2024 - 10:12</div>`, []string{"Jane Roe"}},
		{"a staff page linked from prose names whom the story quotes",
			`<p>The plan, drafted by <a href="/staff/john-doe">John Doe</a> of the planning office, who has worked on it for years and presented it to the council twice, was praised on Tuesday.</p>`, nil},
		{"a columnist's page linked from the site's menu names no writer",
			`<ul class="subnav" role="menu"><li><a href="/opinion/columnists/josh_brodesky" role="menuitem">Josh Brodesky</a></li></ul>`, nil},
		{"a social network's handle names no writer", `<div class="meta"><a href="https://www.tiktok.com/@rei">Tik Tok</a></div>`, nil},
		{"a sports team's page names no writer", `<div class="meta"><a href="/team/real-madrid">Real Madrid</a><span>March 5, 2024</span></div>`, nil},
		{"a commenter's author page is not the story's", `<div class="comments"><a href="/author/jane-roe">Jane Roe</a><p>Nice.</p></div>`, nil},
		{"scholarly citation metas, last name first", `<meta name="citation_author" content="Roy, Aniruddha"><meta name="citation_author" content="Patel, Jyoti">`,
			[]string{"Aniruddha Roy", "Jyoti Patel"}},
		{"a summary card's written-by label", `<meta name="twitter:label1" content="Est. reading time"><meta name="twitter:data1" content="4 minutes">` +
			`<meta name="twitter:label2" content="Written by"><meta name="twitter:data2" content="Nawaz Dhandala">`, []string{"Nawaz Dhandala"}},
		{"a day before the name", `<div class="date-and-author"><span>Dec 17, 2025</span> <span>Julian K. Arni</span></div>`, []string{"Julian K. Arni"}},
		{"a day before the name, and whom the writer speaks for", `<div class="publish-date-author">Dec. 19, 2025 · Niko Matsakis on behalf of <a href="/team">the Rust team</a></div>`,
			[]string{"Niko Matsakis"}},
		{"a job title after the name", `<div class="author-name">By Mateusz Haberny Founder at Oakywood</div>`, []string{"Mateusz Haberny"}},
		{"authored by, and a day with its ordinal", `<div class="byline">Authored by: Ehsan Jazini 18th Dec 2025</div>`, []string{"Ehsan Jazini"}},
		{"a byline box holding the post's tag and its day credits nobody",
			`<div class="blog-post__byline"><ul><li><a class="tag" href="https://example.org/blog/tag/personal-finance">Personal finance</a></li></ul><span>January 27, 2025</span></div>`, nil},
		{"a byline box naming only the post's category", `<div class="byline">Posted in <a href="/category/news">News</a></div>`, nil},
		{"a byline's section link is not a second author",
			`<div class="byline">By Jane Roe in <a href="/category/politics">Politics</a></div>`, []string{"Jane Roe"}},
		{"a couple credited by first names is one credit", `<div class="byline">By Linny and Peter</div>`, []string{"Linny & Peter"}},
		{"two people with full names are two", `<div class="byline">By Jane Roe and John Doe</div>`, []string{"Jane Roe", "John Doe"}},
		{"a byline running on past its author link is cut to the link's name",
			`<div class="writer-block"><div class="author-name">By <a href="/authors/sofia-kondrat">Sofia Kondrat</a></div><div class="author-title">EdTech Content writer</div></div>`,
			[]string{"Sofia Kondrat"}},
		{"an author box's all-articles button", `<div class="author-card"><p>Elliot Raba</p><button><span>All articles by Elliot Raba</span></button></div>`,
			[]string{"Elliot Raba"}},
		{"a date line going on with by and a name", `<div class="node__meta"><time datetime="2017-03-01T12:00:00Z">03/01/2017</time> by Agatha Caleo, Candidate Representative</div>`,
			[]string{"Agatha Caleo"}},
		{"a date line going on with by and no name", `<div class="node__meta"><time datetime="2017-03-01T12:00:00Z">03/01/2017</time> by the editors</div>`, nil},
		{"an author box's label and the bio after it", `<p>About the Author:</p><p>Juliette Carreiro is a content creator with five years of experience in SEO.</p>`,
			[]string{"Juliette Carreiro"}},
		{"an author box whose bio opens with no name", `<p>About the Author:</p><p>Our team writes about careers in tech.</p>`, nil},
		{"a writer who goes by a first name, as the author page spells it", `<div class="entry-meta"><p>by <a href="https://example.com/author/amanda/">Amanda</a> · Dec 20, 2025</p></div>`,
			[]string{"Amanda"}},
		{"a role's author page names nobody", `<div class="entry-meta"><p>by <a href="https://example.com/author/admin/">Admin</a> · Dec 20, 2025</p></div>`, nil},
		{"an author box's name heading over its bio", `<div class="blog-author"><img src="a.webp" alt=""><div><h4>Bence Kovács</h4><p>Bence is a software developer who writes about audio plugins, user interfaces and the tools behind them.</p></div></div>`,
			[]string{"Bence Kovács"}},
		{"an author box's label heading, then the name", `<div class="author-box"><h3>About The Author</h3><h4>Jane Roe</h4><p>Jane has covered city hall for a decade, and writes about budgets, zoning and the people they touch.</p></div>`,
			[]string{"Jane Roe"}},
		{"an author box whose heading names nobody", `<div class="author-box"><h3>Our Editorial Team</h3><p>Our editorial team writes about budgets, zoning and the people they touch, and answers every letter.</p></div>`, nil},
		{"a byline's name part beside the writer's role", `<div class="post-author"><div class="post-author__name">Joakim Edin</div><div class="post-author__role">Research &amp; Development</div></div>`,
			[]string{"Joakim Edin"}},
		{"a byline's name part beside the day", `<div class="byline"><span class="byline-name">Ana María Ruiz</span> <span>Updated daily since 2019</span></div>`,
			[]string{"Ana María Ruiz"}},
		{"a desk credited by its role", `<div class="byline">By Resy Staff</div>`, []string{"Resy Staff"}},
		{"a contributor credit that names no one else", `<meta name="twitter:label1" content="Written by"><meta name="twitter:data1" content="SFist Contributor">`,
			[]string{"SFist Contributor"}},
		{"a role beside a name is the name's title", `<div class="byline">By Jane Roe, Staff Writer</div>`, []string{"Jane Roe"}},
		{"a related story's card credits its own author, not this story's",
			`<div class="author" itemscope itemtype="http://schema.org/Person"><div itemprop="name">by <a href="/profile/linda-rosencrance/">Linda Rosencrance</a></div></div>` +
				`<aside class="related-small"><article itemscope itemtype="https://schema.org/Article"><a class="card" href="/article/4144306/why-integrations-are-hard.html">` +
				`<h3>Why integrations are harder than expected</h3><div class="card__info" itemprop="author" itemscope itemtype="https://schema.org/Person"><span itemprop="name">By Thai Vong</span></div></a></article></aside>`,
			[]string{"Linda Rosencrance"}},
		{"a summary card's interview-by label", `<meta name="twitter:label1" content="Interview by"><meta name="twitter:data1" content="Sylvia Bishop">`,
			[]string{"Sylvia Bishop"}},
		{"a colophon in the author meta credits the site's makers, not the writer",
			`<meta name="author" content="content: MarketingSherpa, design: Scott McDaniel, code: Steve Beger, MECLABS">` +
				`<div id="content_authors">by <span class="author"><a href="/about/#daniel-burstein-bio">Daniel Burstein</a></span></div>`,
			[]string{"Daniel Burstein"}},
		{"an author box's link and label are no names",
			`<h2 class="author-heading">By Damien Walter</h2>` + body + `<p class="bio"><a class="more" href="/author/damiengwalter/" rel="author">View more posts</a></p>`,
			[]string{"Damien Walter"}},
		{"a label before the name", `<div class="byline">Author: Ashley Biancuzzo</div>`, []string{"Ashley Biancuzzo"}},
		{"the site's name beside the writer's is no second author", `<meta name="author" content="Ashley Biancuzzo, PCWorld"><meta property="og:site_name" content="PCWorld">`,
			[]string{"Ashley Biancuzzo"}},
		{"a job title alone after the name", `<div class="byline">By Mayank Gupta, CEO of CaseBasix</div>`, []string{"Mayank Gupta"}},
		{"published by", `<div class="entry-meta">Published by Damien Walter</div>`, []string{"Damien Walter"}},
		{"posted on a day by", `<p>Posted on March 3, 2024 by Jane Roe</p>`, []string{"Jane Roe"}},
		{"a day before the credit", `<p>March 3, 2024 by <a href="/about/">Jane Roe</a></p>`, []string{"Jane Roe"}},
		{"a day before a sentence that goes on with by", `<p>March 3, 2024 by the river</p>`, nil},
		{"a credit line's role after a comma", `<p>By Jane Roe, Staff Writer</p>`, []string{"Jane Roe"}},
		{"names and roles after commas", `<p>By Jane Roe, John Doe and Ann Lee, Reporters</p>`, []string{"Jane Roe", "John Doe", "Ann Lee"}},
		{"a timeline's day before another credit", `<ul><li>March 5, 2024 — Interviewed by Detective Sam Hart</li></ul>`, nil},
		{"a bio's credit line", `<div class="bio"><p>Written by <strong>Kyle Mathews</strong> who lives and works in San Francisco building useful things.</p></div>`, []string{"Kyle Mathews"}},
		{"a credit line going on with a separator and the day", `<div>By <strong>Jane Roe</strong> | March 3, 2024</div>`, []string{"Jane Roe"}},
		{"story by", `<p>Story by Jane Roe</p>`, []string{"Jane Roe"}},
		{"the author box's cards of her other stories are no credits",
			`<div class="author-bio"><div class="author-bio__name">By Linda Rosencrance</div><details><summary><h2 class="author-bio__cards-title">More from this author</h2></summary>` +
				`<ul class="author-bio__cards"><li class="author-bio__card"><a class="card" href="/article/4063419/ways.html"><span class="card__content-type">feature</span>` +
				`<h3 class="card__title"><span>Ways CIOs can synergize modernization and legacy infrastructure</span></h3><div><span>Oct 8, 2025</span></div></a></li></ul></details></div>`,
			[]string{"Linda Rosencrance"}},
		{"degrees after the name are the name's", `<div class="byline">By Dylan Bailey, MS, RD, FAND</div>`, []string{"Dylan Bailey"}},
		{"a department after a job title is no name", `<div class="byline">By Daniel Burstein, Senior Director, Content & Marketing</div>`, []string{"Daniel Burstein"}},
		{"a note in brackets after each name", `<div class="byline">By Lance Ryan (Content Manager) and Jeffrey Callahan (Data Analyst)</div>`, []string{"Lance Ryan", "Jeffrey Callahan"}},
		{"an authors label", `<div class="byline">Authors: Julie Weisenhorn and Natalie Hoidal</div>`, []string{"Julie Weisenhorn", "Natalie Hoidal"}},
		{"a byline's one author link beside a beat and a job title, past a list of columnists",
			`<ul class="columnists"><li><a href="/blogs/author/andy-serwer/">Andy Serwer</a></li><li><a href="/blogs/author/sam-ro/">Sam Ro</a></li></ul>` +
				`<div class="author"><a class="author-link" href="https://news.example/author/ben-silverman">Ben Silverman</a> <div class="author-title">Games Editor</div></div>`,
			[]string{"Ben Silverman"}},
		{"an author box's learn-more link is no name", `<div class="author-bio">Paramita Ghosh writes about data. <a href="/author/paramita-ghosh/">Learn More</a></div>`,
			nil},
		{"an editor's credit after the writer's", `<p class="byline">Written by Rob Ewaschuk<br>Edited by Betsy Beyer</p>`, []string{"Rob Ewaschuk"}},
		{"a medical reviewer after the writer", `<div class="byline">By Jane Roe Medically reviewed by John Doe, MD</div>`, []string{"Jane Roe"}},
		{"interview by", `<p>Interview by Jane Roe</p>`, []string{"Jane Roe"}},
		{"words and pictures by one writer", `<p>Words and photos by Jane Roe</p>`, []string{"Jane Roe"}},
		{"a photographer's credit after the writer's", `<p>By Jane Roe, Photo: John Doe</p>`, []string{"Jane Roe"}},
		{"a byline with a reading time", `<div class="byline">Jane Roe · 5 min read</div>`, []string{"Jane Roe"}},
		{"a credit line for another paper", `<p>By Jane Roe, for The Guardian</p>`, []string{"Jane Roe"}},
		{"a sign-in box named authorization is no byline", `<div id="authorization"><a href="/signin">Sign In</a>| <a href="/register">Sign Up</a></div><div class="byline">By Jane Roe</div>`,
			[]string{"Jane Roe"}},
		{"a summary card's story-by label", `<meta name="twitter:label1" content="Story by"><meta name="twitter:data1" content="Jane Roe">`,
			[]string{"Jane Roe"}},
		{"a wire story's reporting and editing credits", `<p>Reporting by Jane Roe; Editing by John Doe</p>`, []string{"Jane Roe"}},
		{"a given name that begins with staff is a name", `<div class="byline">By Staffan Lindberg and Jane Roe</div>`, []string{"Staffan Lindberg", "Jane Roe"}},
		{"a menu's heading is no credit line", `<nav><div role="menu"><h4>By Event Type</h4><a href="/conferences/">Conferences</a></div></nav>`, nil},
		{"a WordPress data layer's post author", `<script>var dataLayer_content = {"pagePostType":"page","pagePostAuthor":"Krystyna Nowak"};</script>`,
			[]string{"Krystyna Nowak"}},
		{"Chartbeat's authors", `<script>var _sf_async_config = _sf_async_config || {}; _sf_async_config.authors = 'Lisa Jennings, Tom O\'Neill';</script>`,
			[]string{"Lisa Jennings", "Tom O'Neill"}},
		{"an analytics slug names no one", `<script>_sf_async_config.authors = "elaine-chen";</script>`, nil},
		{"a byline's name over its role", `<div class="md-post__authors"><span class="md-profile__description"><strong>Oliver Grant</strong><br>Platform engineer</span></div>`,
			[]string{"Oliver Grant"}},
		{"a shown byline before the data layer's account", `<script>dataLayer.push({"pagePostAuthor":"Site Editor"});</script><div class="byline">By Jane Roe</div>`,
			[]string{"Jane Roe"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			head, credit := "", tc.credit
			if strings.HasPrefix(credit, "<meta") {
				head, credit = credit, ""
			}
			page := `<html><head><title>A story</title>` + head + `</head><body><article><h1>A story</h1>` + credit + body + `</article></body></html>`
			got := mustExtract(t, page, "https://example.com/news/a-story").Authors
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("Authors = %q, want %q", got, tc.want)
			}
		})
	}
}

// A credit line is the story's byline, never its text: the annotators
// leave it out wherever it stands.
func TestExtract_CreditLinesAreNoText(t *testing.T) {
	t.Run("a heading that reads as a credit stays", func(t *testing.T) {
		page := `<html><head><title>A story</title><meta name="author" content="Maria Olsen"></head><body><article><h1>A story</h1>` +
			pTags(articleParas(3)) + `<h3>By Public Transport</h3>` + pTags(articleParas(6)[3:]) + `</article></body></html>`
		checkText(t, mustExtract(t, page, "https://example.com/news/a-story").Text, []string{"By Public Transport"}, nil)
	})
	body := pTags(articleParas(6))
	for _, credit := range []string{
		`<p>By Jane Roe</p>`,
		`<div class="entry-meta">By Jane Roe</div>`,
		`<div class="post-meta">By <a href="/author/jane-roe/">Jane Roe</a> on March 3, 2024</div>`,
		`<p class="post-info">Written by Jane Roe on March 3, 2024</p>`,
		`<p>Posted on March 3, 2024 by Jane Roe</p>`,
		`<p>By Jane Roe and John Doe</p>`,
	} {
		page := `<html><head><title>A story</title></head><body><article><h1>A story</h1>` + credit + body + `</article></body></html>`
		a := mustExtract(t, page, "https://example.com/news/a-story")
		checkText(t, a.Text, []string{articleParas(1)[0]}, []string{"Jane Roe"})
		if len(a.Authors) == 0 || a.Authors[0] != "Jane Roe" {
			t.Errorf("%s: Authors = %q, want Jane Roe first", credit, a.Authors)
		}
	}
}

// A credit line opens with the page's own word for "by": "Von" on a page
// declared German, "Par" on a French one, "Por" on a Spanish or
// Portuguese one, "بقلم" on an Arabic one, "作者" on a Chinese one; in
// scripts without capitals, the name is known by its length.
func TestExtract_CreditLinesInThePagesLanguage(t *testing.T) {
	body := pTags(articleParas(6))
	cases := []struct{ name, lang, credit, want string }{
		{"German, and its day", "de", `<p>Von Anna Schmidt und Jonas Weber · Montag, 4. Dezember 2023</p>`, "Anna Schmidt|Jonas Weber"},
		{"German, with a colon", "de-AT", `<p>Von: Anna Schmidt</p>`, "Anna Schmidt"},
		{"Spanish", "es", `<p>Por Juan Pérez y Ana López</p>`, "Juan Pérez|Ana López"},
		{"French, and its day", "fr", `<p>Par Jean Dupont, le 3 mars 2024</p>`, "Jean Dupont"},
		{"a French sentence that opens with par", "fr", `<p>Par ailleurs, le Conseil Municipal a voté.</p>`, ""},
		{"Italian", "it", `<p>di Mario Rossi e Giulia Bianchi</p>`, "Mario Rossi|Giulia Bianchi"},
		{"an Italian surname is no credit", "it", `<p>Di Maria Rossi</p>`, ""},
		{"Dutch", "nl", `<p>Door Jan de Vries</p>`, "Jan de Vries"},
		{"Italian, the day before the credit", "it", `<p>5 marzo 2024 di Giovanni Rossi</p>`, "Giovanni Rossi"},
		{"German, the day before the credit", "de", `<p>5. März 2024 von Hans Müller</p>`, "Hans Müller"},
		{"a German day before a place is no credit", "de", `<p>5. März 2024 von Berlin nach Hamburg</p>`, ""},
		{"an anniversary's day before a name is a kicker", "de", `<p>9. November 1989 von Günter Schabowski</p>`, ""},
		{"German, a weekday before the credit", "de", `<p>Dienstag, 5. März 2024 von Hans Müller</p>`, "Hans Müller"},
		{"a lecture's time and speaker are no credit", "de", `<p>Mittwoch, 13. März 2024, 18:15 Uhr von Klaus Berger</p>`, ""},
		{"Italian, a numeric day before the credit", "it", `<p>05/03/2024 di Giovanni Rossi</p>`, "Giovanni Rossi"},
		{"Norwegian", "nb", `<p>Av Ola Nordmann</p>`, "Ola Nordmann"},
		{"a label read out before the name, Spanish", "es", `<ul role="list"><li><span class="vh">Autor, </span><span>Mariana Echeverri</span></li><li><span class="vh">Título del autor, </span><span>BBC News Mundo</span></li></ul>`, "Mariana Echeverri"},
		{"a label read out before the name, English", "en", `<ul role="list"><li><span class="vh">Author, </span><span>Jane Roe</span></li><li><span class="vh">Role, </span><span>BBC News</span></li></ul>`, "Jane Roe"},
		{"a label with a comma in running text is no credit", "en", `<p>Author, teacher and activist Jane Roe spoke at the rally on Saturday.</p>`, ""},
		{"Danish", "da", `<p>Af Mette Frederiksen</p>`, "Mette Frederiksen"},
		{"Polish, a label", "pl", `<p>Autor: Jan Kowalski</p>`, "Jan Kowalski"},
		{"Russian, a label", "ru", `<p>Автор: Анна Смирнова</p>`, "Анна Смирнова"},
		{"Turkish", "tr", `<p>Yazar: Ayşe Yılmaz</p>`, "Ayşe Yılmaz"},
		{"Indonesian", "id", `<p>Oleh Budi Santoso</p>`, "Budi Santoso"},
		{"Dutch door on an English page is text", "en", `<p>Door Jan de Vries</p>`, ""},
		{"Arabic", "ar", `<p>بقلم: أحمد علي</p>`, "أحمد علي"},
		{"Hebrew", "he", `<p>מאת דנה כהן</p>`, "דנה כהן"},
		{"Chinese, a label and a full-width colon", "zh-CN", `<p>作者：张伟</p>`, "张伟"},
		{"Chinese, a slash and a list", "zh", `<p>文/张伟、李娜</p>`, "张伟|李娜"},
		{"a Chinese reporter in brackets, the paper before", "zh", `<p>（本报记者 张伟）</p>`, "张伟"},
		{"a Chinese reporter with no space, and where they file from", "zh-TW", `<p>記者王小明／台北報導</p>`, "王小明"},
		{"an agency's reporters", "zh", `<p>新华社记者 张伟、李明</p>`, "张伟|李明"},
		{"a reporter's notes are no credit", "zh", `<p>记者手记</p>`, ""},
		{"a press conference is no credit", "zh", `<p>记者招待会</p>`, ""},
		{"a photographer's credit is no writer's", "zh", `<p>（新华社记者李明摄）</p>`, ""},
		{"an agency's dateline and its reporters", "zh", `<p>新华社北京3月3日电（记者 张伟 李明）国务院常务会议今天研究部署推进城市更新工作。</p>`, "张伟|李明"},
		{"a dateline's reporter with no space", "zh", `<p>中新网北京3月3日电(记者张伟)国务院常务会议今天召开。</p>`, "张伟"},
		{"a dateline in full-width digits, a stringer after the reporter", "zh", `<p>人民网北京３月３日电 （记者王小红 通讯员李明）会议今天召开。</p>`, "王小红"},
		{"a Taiwanese agency's dateline", "zh-TW", `<p>中央社台北3日電（記者王小明）行政院今天通過預算案。</p>`, "王小明"},
		{"a dateline before a reporter's notes", "zh", `<p>新华社北京3月3日电（记者手记）这是一次难忘的采访。</p>`, ""},
		{"a dateline's credit says reported", "zh", `<p>新华社北京3月3日电（记者 张伟 报道）国务院常务会议今天召开。</p>`, "张伟"},
		{"a dateline's credit names an editor's role", "zh", `<p>新华社北京3月3日电（记者 张伟 编辑）国务院常务会议今天召开。</p>`, "张伟"},
		{"a paper's own news, its reporter", "zh", `<p>本报讯（记者 张伟 通讯员 李明）近日，市政府召开常务会议。</p>`, "张伟"},
		{"a dateline without a credit", "zh", `<p>新华社北京3月3日电 国务院常务会议今天召开。</p>`, ""},
		{"a Japanese reporter", "ja", `<p>記者 山田 太郎</p>`, "山田 太郎"},
		{"a Japanese reporter after a colon", "ja", `<p>記者：山田太郎</p>`, "山田太郎"},
		{"a Chinese sentence about a reporter is text", "zh", `<p>记者张伟今天在北京采访了多位市民和专家学者。</p>`, ""},
		{"a Chinese word that opens with 文 is text", "zh", `<p>文化部今天发布了新的规定。</p>`, ""},
		{"Japanese", "ja", `<p>文：山田 太郎</p>`, "山田 太郎"},
		{"Korean, a reporter's byline", "ko", `<p class="byline">홍길동 기자 hong@example.com</p>`, "홍길동"},
		{"an Arabic sentence that opens with كتب is text", "ar", `<p>كتب الطلاب رسائل إلى المجلس البلدي حول الميزانية الجديدة.</p>`, ""},
		{"what a newspaper wrote is no credit", "ar", `<p>كتبت الصحيفة أن الحكومة ستعلن</p>`, ""},
		{"a Chinese profile heading", "zh", `<p>作者 简介</p>`, ""},
		{"an editorial office is no person", "zh", `<p>作者：编辑部</p>`, ""},
		{"a Japanese author link's label", "ja", `<div class="author"><a href="/author/yamada/">記事一覧</a></div>`, ""},
		{"a Chinese author link", "zh", `<p><a href="/author/zhangwei">张伟</a></p>`, "张伟"},
		{"a Chinese author box's bio lists no names", "zh", `<div class="author-box"><h4>张伟</h4><p>张伟，资深记者，长期关注城市交通与环境。</p></div>`, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			page := `<html lang="` + tc.lang + `"><head><title>A story</title></head><body><article><h1>A story</h1>` + tc.credit + body + `</article></body></html>`
			if got := strings.Join(mustExtract(t, page, "https://example.com/news/a-story").Authors, "|"); got != tc.want {
				t.Errorf("Authors = %q, want %q", got, tc.want)
			}
		})
	}
}

// An agency's dateline credits the story's reporters and opens its first
// paragraph, which stays; a photographer's credit in a caption, though
// its element is called "author", names no writer.
func TestExtract_ChineseDatelineCreditKeepsItsParagraph(t *testing.T) {
	page := `<html lang="zh-CN"><head><title>全国冬小麦播种基本完成</title></head><body><div class="main"><h1>全国冬小麦播种基本完成</h1><div id="detail">` +
		`<p>新华社北京11月14日电（记者周欣然、韩松）记者14日从农业农村部获悉，截至11月13日，全国冬小麦播种面积已超过3.3亿亩，播种进度达97%，基本与常年持平。</p>` +
		`<p class="detailPic">11月10日，农技人员在麦田里查看小麦出苗情况。<span class="author">新华社记者 张浩然 摄</span></p>` +
		`<p>受前期部分主产区持续降雨影响，今年秋种一度偏慢，各地抢抓晴好天气加快机播进度，目前黄淮海主产区已基本完成播种任务，晚播麦田的管理成为下一阶段的重点。</p>` +
		`<p>农业农村部近日印发通知，要求各地围绕保苗安全越冬、促弱转壮目标，因地因苗制定技术方案，对晚播弱苗要适时镇压保墒、增施肥料，对旺长麦田要控旺转壮。</p>` +
		`<p>专家表示，今冬气温总体偏高，病虫害越冬基数可能增加，各地要加强监测预警，做到早发现、早防治，为明年夏粮丰收打下坚实基础。</p>` +
		`</div></div></body></html>`
	a := mustExtract(t, page, "http://www.news.cn/politics/20251114/a.html")
	if got := strings.Join(a.Authors, "|"); got != "周欣然|韩松" {
		t.Errorf("Authors = %q, want the dateline's reporters", got)
	}
	if !strings.Contains(a.Text, "记者14日从农业农村部获悉") {
		t.Errorf("the dateline's paragraph is gone from the text:\n%s", a.Text)
	}
}

// Declared authors that only name the site (an Organization in JSON-LD, the
// brand in the author meta) give way to the person the page credits; with
// no such person, or a credit that is the site again, they stay.
func TestExtract_DeclaredAuthorsNamingTheSiteGiveWay(t *testing.T) {
	body := pTags(articleParas(6))
	ldOrg := `<script type="application/ld+json">{"@type":"BlogPosting","headline":"A story","author":{"@type":"Organization","name":"GlossGenius"}}</script>`
	cases := []struct {
		name, head, credit string
		want               []string
	}{
		{"an organization and a shown byline", ldOrg, `<div class="text__author">Shauna Mitchell</div>`, []string{"Shauna Mitchell"}},
		{"the brand as author meta and a credit line", `<meta name="author" content="Gloss Genius">`, `<p>by Meaghan Weeden</p>`, []string{"Meaghan Weeden"}},
		{"the site name and no person", `<meta property="og:site_name" content="Podium"><meta name="author" content="Podium">`, ``, []string{"Podium"}},
		{"a byline with the site's name run in", ldOrg, `<div class="byline">Shauna Mitchell GlossGenius</div>`, []string{"GlossGenius"}},
		{"a byline that is the site again", ldOrg, `<div class="author">Author GlossGenius</div>`, []string{"GlossGenius"}},
		{"a person declared stays before any byline", `<meta name="author" content="Jane Roe">`, `<div class="byline">John Doe</div>`, []string{"Jane Roe"}},
		{"the site's name and its town, then a credit line", `<meta property="og:site_name" content="DER SPIEGEL"><meta name="author" content="DER SPIEGEL, Hamburg, Germany">`,
			`<p>By Katrin Hoffmann</p>`, []string{"Katrin Hoffmann"}},
		{"the site's name and its town, and no person", `<meta property="og:site_name" content="DER SPIEGEL"><meta name="author" content="DER SPIEGEL, Hamburg, Germany">`,
			``, []string{"DER SPIEGEL"}},
		{"a firm with its legal form, the publisher too, and a shown byline",
			`<script type="application/ld+json">{"@type":"BlogPosting","headline":"A story","author":{"@type":"Organization","name":"Harmon & Reyes, PLLC"},"publisher":{"@type":"Organization","name":"Harmon & Reyes, PLLC"}}</script>`,
			`<p class="fusion-meta-info">By <a href="/author/daniel-harmon/">Daniel Harmon</a> | March 3rd, 2025 | Car Accidents</p>`, []string{"Daniel Harmon"}},
		{"an organization and a byline named for the site's tests", ldOrg,
			`<div data-testid="byline-new-contributors"><div><span>Eleanor Hughes</span><div><span>BBC News, Somerset</span></div></div></div>`, []string{"Eleanor Hughes"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			page := `<html><head><title>A story</title>` + tc.head + `</head><body><article><h1>A story</h1>` + tc.credit + body + `</article></body></html>`
			got := mustExtract(t, page, "https://www.glossgenius.example/blog/a-story").Authors
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("Authors = %q, want %q", got, tc.want)
			}
		})
	}
}

// Cards of other stories are <article>s too: a short one with a linked
// heading credits its own writer, not the page's.
func TestExtract_CardArticlesCreditOtherStories(t *testing.T) {
	body := pTags(articleParas(6))
	card := func(credit string) string {
		return `<article class="related-post"><h3><a href="/blog/how-escrow-analysis-works">How Escrow Analysis Works</a></h3>` + credit + `<time>Jan 18, 2024</time></article>`
	}
	for _, tc := range []struct {
		name, byline, credit string
		want                 []string
	}{
		{"a byline class", `<div class="post-meta"><a href="/author/benjamin-cole">Benjamin Cole</a></div>`, `<p class="post-author">By Alicia Romero</p>`, []string{"Benjamin Cole"}},
		{"a credit line", `<div class="post-meta"><a href="/author/benjamin-cole">Benjamin Cole</a></div>`, `<footer><span>By Alicia Romero</span></footer>`, []string{"Benjamin Cole"}},
		{"the story's own byline in its article", `<p class="post-author">By Benjamin Cole</p>`, ``, []string{"Benjamin Cole"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			page := `<html><head><title>Fixed or adjustable</title></head><body><main><article><h1>Fixed or adjustable</h1>` + tc.byline + body + `</article>` +
				`<section><h2>Related posts</h2>` + card(tc.credit) + card(tc.credit) + `</section></main></body></html>`
			if got := mustExtract(t, page, "https://blog.example.com/fixed-or-adjustable").Authors; strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("Authors = %q, want %q", got, tc.want)
			}
		})
	}
}

// A control or a dated element wrapped around a large subtree is read no
// further than shortTextNodes nodes: its text is not short.
func TestShortText_LooksAtFewNodes(t *testing.T) {
	doc, err := html.Parse(strings.NewReader(`<div id="d">` + strings.Repeat("<span></span>", 10000) + `March 12, 2025</div><p id="p">By <b>Jane</b> Roe</p>`))
	if err != nil {
		t.Fatal(err)
	}
	var div, p *html.Node
	var find func(*html.Node)
	find = func(n *html.Node) {
		for _, a := range n.Attr {
			if a.Key == "id" && a.Val == "d" {
				div = n
			} else if a.Key == "id" && a.Val == "p" {
				p = n
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			find(c)
		}
	}
	find(doc)
	if got := shortText(div, 160); got != "" {
		t.Errorf("shortText of 10,000 empty spans and a date = %q, want none", got)
	}
	if got := shortText(p, 80); got != "By Jane Roe" {
		t.Errorf("shortText = %q, want %q", got, "By Jane Roe")
	}
}

// servicePage is a removal firm's service page, with head in its <head>
// and lead under its headline.
func servicePage(head, lead string) string {
	return `<html><head><title>Office Relocation Services | Example Movers</title><meta property="og:type" content="website">` + head +
		`</head><body><nav><a href="/">Home</a><a href="/services/">Our services</a><a href="/pricing">Pricing</a><a href="/contact">Contact us</a></nav><main>
		<h1>Office relocation</h1>` + lead + `<p>We move offices of every size, and our crews work nights and weekends so your team loses no working day. We plan every move with you, and our project managers stay with you until the last desk is in place.</p>
		<h2>Why choose us</h2><ul><li>Our crews are trained and insured.</li><li>We pack, label and set up your IT equipment.</li><li>You get one fixed price, with no hidden fees.</li></ul>
		<p>Call us for a free consultation, or request a quote online: we answer within one business day.</p>
		<a class="btn" href="/quote">Get a quote</a><a class="btn" href="tel:5550100">Call now</a><form><input name="email"><input name="phone"><textarea></textarea><button>Request a quote</button></form></main></body></html>`
}

// A page rather than a post (Yoast) dates itself only in its WebPage
// object: that day is the story's, but a service page's dates the page.
func TestExtract_AStoryTakesItsWebPagesDay(t *testing.T) {
	graph := func(modified string) string {
		return `<script type="application/ld+json">{"@context":"https://schema.org","@graph":[{"@type":"WebPage","@id":"https://example.com/p/#webpage",` +
			`"datePublished":"2024-03-17T19:47:39+00:00","dateModified":"` + modified + `"},{"@type":"WebSite","name":"Example"}]}</script>` +
			`<meta property="article:modified_time" content="` + modified + `">`
	}
	story := func(head, shown string) string {
		return `<html><head><title>A story</title>` + head + `</head><body><article><h1>A story</h1>` + shown + pTags(articleParas(6)) + `</article></body></html>`
	}
	service := servicePage(graph("2024-05-03T10:57:58+00:00"), "")
	cases := []struct {
		name, page, url, want string
	}{
		{"a story dated only by its WebPage", story(graph("2024-05-03T10:57:58+00:00"), ""), "https://example.com/guides/a-story/", "2024-03-17"},
		{"a story's own date line wins", story(graph("2024-05-03T10:57:58+00:00"), `<p class="text-muted">March 19, 2024</p>`), "https://example.com/guides/a-story/", "2024-03-19"},
		{"a story that shows its last edit's day as its date gives none", story(graph("2025-04-19T08:00:00+00:00"), `<span class="post-date">April 19, 2025</span>`),
			"https://example.com/guides/a-story/", ""},
		{"a service page's WebPage dates only the page", service, "https://www.example-movers.com/services/office-relocation/", ""},
		{"a health site's MedicalWebPage", story(`<script type="application/ld+json">{"@context":"https://schema.org","@type":"MedicalWebPage","datePublished":"2022-09-20T08:00:00Z"}</script>`, ""),
			"https://example.com/health/vitamin-d/", "2022-09-20"},
		{"a recipe in a graph", story(`<script type="application/ld+json">{"@context":"https://schema.org","@graph":[{"@type":"WebSite","name":"Example"},{"@type":"Recipe","name":"A story","datePublished":"2021-05-04"}]}</script>`, ""),
			"https://example.com/recipes/a-story/", "2021-05-04"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := mustExtract(t, tc.page, tc.url)
			if got := publishedDay(a); got != tc.want {
				t.Errorf("PublishedAt = %q, want %q (is_article %v)", got, tc.want, a.IsArticle)
			}
		})
	}
}

func TestExtract_AStoryShowingOnlyItsUpdatedDayIsDatedByIt(t *testing.T) {
	story := func(head, shown string) string {
		return `<html><head><title>A guide</title>` + head + `</head><body><article><h1>A guide</h1>` + shown + pTags(articleParas(6)) + `</article></body></html>`
	}
	const updated = `<div class="intro"><span class="small">Updated November 18, 2025</span></div>`
	service := servicePage("", `<p>Last updated: May 3, 2024</p>`)
	cases := []struct {
		name, page, url, want string
	}{
		{"a story that shows only its updated day", story("", updated), "https://example.com/topics/best-gps-watch", "2025-11-18"},
		{"a German story that shows only its updated day", story("", `<p>Aktualisiert am 18. November 2025</p>`), "https://example.com/topics/best-gps-watch", "2025-11-18"},
		{"the same day when the page declares it modified", story(`<meta property="article:modified_time" content="2025-11-18T09:00:00Z">`, updated),
			"https://example.com/topics/best-gps-watch", "2025-11-18"},
		{"a shown publication day wins", story("", `<p class="text-muted">Published March 2, 2025</p>`+updated), "https://example.com/topics/best-gps-watch", "2025-03-02"},
		{"a declared publication day wins", story(`<meta property="article:published_time" content="2024-06-01T08:00:00Z">`, updated),
			"https://example.com/topics/best-gps-watch", "2024-06-01"},
		{"an updated day outside the URL's month is not read", story("", updated), "https://example.com/2025/12/best-gps-watch", ""},
		{"a service page's updated day dates only the page", service, "https://www.example-movers.com/services/office-relocation/", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := mustExtract(t, tc.page, tc.url)
			if got := publishedDay(a); got != tc.want {
				t.Errorf("PublishedAt = %q, want %q (is_article %v, kind %s)", got, tc.want, a.IsArticle, a.PageKind)
			}
		})
	}
}

func TestExtract_ATimeInTheSitesMenuIsNotTheStorys(t *testing.T) {
	menu := `<header><nav><ul><li><a href="/news/careers-month">Careers month</a><time class="datetime" datetime="2025-01-31T12:00:00Z">01/31/2025</time></li>` +
		`<li><a href="/news/elections">Elections</a><time class="datetime" datetime="2025-01-16T12:00:00Z">01/16/2025</time></li></ul></nav></header>`
	body := pTags(articleParas(6))
	cases := []struct{ name, page, want string }{
		{"the story's time after a dated menu",
			`<html><head><title>A story</title></head><body>` + menu + `<main><article><h1>A story</h1><time datetime="2017-03-01T12:00:00Z">03/01/2017</time>` + body + `</article></main></body></html>`,
			"2017-03-01"},
		{"a dated menu alone dates nothing",
			`<html><head><title>A story</title></head><body>` + menu + `<main><article><h1>A story</h1>` + body + `</article></main></body></html>`,
			""},
		{"the story's header outside its article is no menu",
			`<html><head><title>A story</title></head><body><header class="page-head"><h1>A story</h1><time datetime="2016-09-14T07:07:00-04:00">Sept 14, 2016</time></header><article>` + body + `</article></body></html>`,
			"2016-09-14"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := mustExtract(t, tc.page, "https://example.com/newsletter-article/a-story")
			if got := publishedDay(a); got != tc.want {
				t.Errorf("PublishedAt = %q, want %q", got, tc.want)
			}
		})
	}
}

// A page is neither published nor modified after it was fetched (none
// rather than a wrong day); a day's slack keeps a zoneless date from a
// place ahead of UTC. Without a fetch time the reference is now.
func TestExtract_NoDayAfterTheFetch(t *testing.T) {
	page := func(published string) string {
		return `<html><head><title>A story</title><meta property="article:published_time" content="` + published + `">` +
			`<meta property="article:modified_time" content="` + published + `"></head><body><article><h1>A story</h1>` +
			pTags(articleParas(6)) + `</article></body></html>`
	}
	fetched := time.Date(2024, 3, 5, 12, 0, 0, 0, time.UTC)
	nextYear := time.Now().AddDate(0, 6, 0).Format(time.DateOnly)
	cases := []struct {
		name, published string
		fetched         time.Time
		want            string
	}{
		{"declared before the fetch", "2024-03-04T09:00:00Z", fetched, "2024-03-04"},
		{"a zoneless day ahead of UTC", "2024-03-06", fetched, "2024-03-06"},
		{"declared days after the fetch", "2024-03-09T09:00:00Z", fetched, ""},
		{"half a year from now, fetched now", nextYear, time.Time{}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a, err := Extract([]byte(page(tc.published)), "https://example.com/news/a-story", Options{FetchedAt: tc.fetched})
			if err != nil {
				t.Fatal(err)
			}
			if got := publishedDay(a); got != tc.want {
				t.Errorf("PublishedAt = %q, want %q", got, tc.want)
			}
			if (a.ModifiedAt != nil) != (tc.want != "") {
				t.Errorf("ModifiedAt = %v, want it only with a publication day", a.ModifiedAt)
			}
		})
	}
}

// Sites that name their parts in their own language are read as those
// that name them in English: the comments below a German story are not its
// text, a French "auteur" element names the writer, a Spanish "fecha" one
// gives the day, and "autor" is a whole word ("autorotate" is a carousel).
func TestExtract_ClassNamesInThePagesLanguage(t *testing.T) {
	body := pTags(articleParas(6))
	comments := `<section class="kommentare"><h2>Kommentare</h2>` + pTags([]string{
		"Leser schreibt: Das ist ein langer Kommentar über die Fähre, die wieder fährt, und über die Preise der Tickets.",
		"Ein anderer Leser antwortet mit einem noch längeren Kommentar über den Hafen, das Wetter und die Fahrpläne.",
	}) + `</section>`
	singular := `<div id="kommentar-bereich"><ol class="kommentar-liste"><li class="leserkommentar"><span class="autor">Max Leser</span>` + pTags([]string{
		"Leser schreibt: Das ist ein langer Kommentar über die Fähre, die wieder fährt, und über die Preise der Tickets.",
	}) + `</li></ol></div>`
	cases := []struct {
		name, lang, head, after string
		wantAuthor, wantDay     string
		notInText               string
	}{
		{"German comments and author", "de", `<span class="autor">Anna Schmidt</span>`, comments, "Anna Schmidt", "", "Leser schreibt"},
		{"German comments named in the singular", "de", ``, singular, "", "", "Leser schreibt"},
		{"French author", "fr", `<div class="article-auteur">Jean Dupont</div>`, ``, "Jean Dupont", "", ""},
		{"Spanish day, below the story", "es", ``, `<footer><span class="fecha-publicacion">12 de marzo de 2024</span></footer>`, "", "2024-03-12", ""},
		{"a carousel that rotates", "en", `<div class="autorotate">Winter Harbour Walks</div>`, ``, "", "", ""},
		{"a photo credit is no author", "es", `<span class="autor">Foto: EFE</span>`, ``, "", "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			page := `<html lang="` + tc.lang + `"><head><title>Die Fähre fährt wieder</title></head><body><article><h1>Die Fähre fährt wieder</h1>` +
				tc.head + body + `</article>` + tc.after + `</body></html>`
			a := mustExtract(t, page, "https://example.com/nachrichten/faehre")
			if got := strings.Join(a.Authors, "|"); got != tc.wantAuthor {
				t.Errorf("Authors = %q, want %q", got, tc.wantAuthor)
			}
			day := ""
			if a.PublishedAt != nil {
				day = a.PublishedAt.Format("2006-01-02")
			}
			if day != tc.wantDay {
				t.Errorf("day = %q, want %q", day, tc.wantDay)
			}
			if tc.notInText != "" && strings.Contains(a.Text, tc.notInText) {
				t.Errorf("text holds %q:\n%s", tc.notInText, a.Text)
			}
		})
	}
}

// Date lines labelled in the languages CC-NEWS carries beyond Western
// Europe's: a publication label dates the story, an updated one only a
// story that shows no other day, and either line leaves the text.
func TestExtract_DateLinesLabelledInOtherScripts(t *testing.T) {
	body := pTags(articleParas(6))
	cases := []struct{ name, lines, want, gone string }{
		{"Russian, labelled", `<p>Опубликовано: 12 марта 2024 г.</p>`, "2024-03-12", "Опубликовано"},
		{"Russian, updated beside published", `<p>Обновлено 14 марта 2024</p><p>Опубликовано 12 марта 2024</p>`, "2024-03-12", "Обновлено"},
		{"Chinese, labelled, with its time", `<p>发布时间：2016年10月14日 07:17</p>`, "2016-10-14", "发布时间"},
		{"Japanese, updated only", `<p>更新日：2024年3月12日</p>`, "2024-03-12", "更新日"},
		{"Polish, with its weekday", `<p>wtorek, 12 marca 2024</p>`, "2024-03-12", "wtorek"},
		{"Turkish, labelled", `<p>Yayınlandı: 12 Kasım 2024 Salı</p>`, "2024-11-12", "Yayınlandı"},
		{"a Russian sentence that names a day is text", `<p>Встреча пройдёт 12 марта 2024 года в Москве.</p>`, "", ""},
		{"Russian, with the year's г. and a time", `<p>Опубликовано: 12 марта 2024 г. 10:15</p>`, "2024-03-12", "Опубликовано"},
		{"Russian, updated only, with г.", `<p>Обновлено: 12 марта 2024 г.</p>`, "2024-03-12", "Обновлено"},
		{"a Korean count is no day", `<p class="date">2024년 3월 12개 기업 참여</p>`, "", ""},
		{"a chart's datum is no date element", `<p><span class="datum-label">Figures as of March 3, 2019</span></p>`, "", ""},
		{"Arabic, labelled, with its weekday", `<p>نشر في: الثلاثاء، 12 مارس 2024</p>`, "2024-03-12", "نشر"},
		{"Arabic-Indic digits", `<p>١٢ مارس ٢٠٢٤</p>`, "2024-03-12", "مارس"},
		{"Arabic-Indic digits in a date element, with a clock", `<span class="date">الجمعة ٢٢ مارس ٢٠٢٤ - ١٠:٣٠ ص</span>`, "2024-03-22", ""},
		{"the Levant's months", `<p>نشر بتاريخ 3 تشرين الأول 2023</p>`, "2023-10-03", ""},
		{"Arabic, updated beside published", `<p>آخر تحديث: 14 مارس 2024</p><p>نشر في 12 مارس 2024</p>`, "2024-03-12", "تحديث"},
		{"Hebrew, labelled", `<p>פורסם: 12 במרץ 2024</p>`, "2024-03-12", "פורסם"},
		{"Czech, labelled", `<p>Publikováno: 12. března 2024</p>`, "2024-03-12", "Publikováno"},
		{"Greek, labelled", `<p>Δημοσιεύθηκε: 12 Μαρτίου 2024</p>`, "2024-03-12", "Δημοσιεύθηκε"},
		{"Hindi, labelled", `<p>प्रकाशित: 12 मार्च 2024</p>`, "2024-03-12", "प्रकाशित"},
		{"Finnish, updated only", `<p>Päivitetty 12.3.2024</p>`, "2024-03-12", "Päivitetty"},
		{"a Persian year from the Hijra is no day", `<p>۱۲ اسفند ۱۴۰۲</p>`, "", ""},
		{"an Arabic sentence that names a day is text", `<p>يعقد الاجتماع في 12 مارس 2024 في القاهرة لمناقشة الميزانية.</p>`, "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			page := `<html><head><title>Паром</title></head><body><article><h1>Паром возвращается</h1>` + tc.lines + body + `</article></body></html>`
			a := mustExtract(t, page, "https://example.com/news/parom")
			if got := publishedDay(a); got != tc.want {
				t.Errorf("PublishedAt = %q, want %q", got, tc.want)
			}
			if tc.gone != "" && strings.Contains(a.Text, tc.gone) {
				t.Errorf("text keeps the date line %q:\n%s", tc.gone, a.Text[:200])
			}
		})
	}
}

// A page whose markup declares one person and whose credit line names
// another credits the writer; the declared name is the account that
// posted it. Where the page shows the declared name too, or its credit
// lines name several people (the cards of other stories), or the credit
// is a caption's, the declaration stands.
func TestExtract_ShownCreditOverTheAccountThatPosted(t *testing.T) {
	body := pTags(articleParas(6))
	meta := `<meta name="author" content="Luke Daigle">`
	card := func(name string) string {
		return `<div class="card"><a href="/other-story">Another story</a><p>by ` + name + `</p></div>`
	}
	cases := []struct{ name, head, credit, after, want string }{
		{"one credit line", meta, `<div class="by-div"><p>By: Paul Fenaroli</p></div>`, ``, "Paul Fenaroli"},
		{"the declared name shown as a byline", meta, `<div class="byline">Luke Daigle</div>`, card("Ellie Hall"), "Luke Daigle"},
		{"credit lines naming several people", meta, ``, card("Ellie Hall") + card("Geoff Harris"), "Luke Daigle"},
		{"a caption's credit", meta, `<figure><img src="/b.jpg" alt=""><figcaption><a href="/book">The Mythical Man-Month</a><span> by Fred Brooks</span></figcaption></figure>`, ``, "Luke Daigle"},
		{"the same person, shorter", `<meta name="author" content="Brett">`, `<p>By Brett Larkin</p>`, ``, "Brett"},
		{"the declared name shown as plain text", meta, `<p>Luke Daigle | March 3, 2024</p>`, card("Mark Allen"), "Luke Daigle"},
		{"a credit line far below the headline", meta, ``, pTags(articleParas(40)) + `<div class="box"><p>By Mark Allen</p></div>`, "Luke Daigle"},
		{"a pull quote's credit", meta, `<blockquote><p>The harbour is our history.</p><p>By Alicia Moreno</p></blockquote>`, ``, "Luke Daigle"},
		{"a heading that opens with By", meta, `<h2>By The Numbers</h2>`, ``, "Luke Daigle"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			page := `<html><head><title>A story</title>` + tc.head + `</head><body><article><h1>A story</h1>` + tc.credit + body + `</article>` + tc.after + `</body></html>`
			if got := strings.Join(mustExtract(t, page, "https://www.example.com/blog/a-story").Authors, "|"); got != tc.want {
				t.Errorf("Authors = %q, want %q", got, tc.want)
			}
		})
	}
}

// A wrapper around the whole story whose classes say comments are open
// ("comments-open" on body, "category-commentary" on an article, a
// "has-comments" div holding the headline) is no comment section: the
// story's byline and day inside it stand.
func TestExtract_WrappersThatSayCommentsAreOpen(t *testing.T) {
	body := pTags(articleParas(6))
	meta := `<div class="byline">By Jane Roe</div><span class="post-date">March 3, 2024</span>`
	for _, tc := range []struct{ name, page string }{
		{"body", `<body class="post-template comments-open"><article><h1>A story</h1>` + meta + body + `</article></body>`},
		{"article", `<body><article class="post category-commentary tag-comments"><h1>A story</h1>` + meta + body + `</article></body>`},
		{"the headline's wrapper", `<body><div class="entry has-comments"><h1>A story</h1>` + meta + body + `</div></body>`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := mustExtract(t, `<html><head><title>A story</title></head>`+tc.page+`</html>`, "https://example.com/blog/a-story")
			if got := strings.Join(a.Authors, "|"); got != "Jane Roe" {
				t.Errorf("Authors = %q, want Jane Roe", got)
			}
			if got := publishedDay(a); got != "2024-03-03" {
				t.Errorf("PublishedAt = %q, want 2024-03-03", got)
			}
		})
	}
}
