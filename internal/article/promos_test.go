package article

import (
	"slices"
	"strings"
	"testing"
)

// Fixtures of the rest of issue 17 item 2, written for the project (not
// taken from a dev set): what sits inside an article's body without being
// part of it. Each case is a story of its own paragraphs with one
// structure dropped in; the story must stay whole and the structure go.

// storyParas are the paragraphs of the fixtures' story: a harbour
// reopening, long enough that every structure sits mid-body.
var storyParas = []string{
	"The harbour reopened to fishing boats on Monday, three weeks after the storm that tore the breakwater apart and sank two trawlers at their moorings.",
	"Engineers from the port authority worked through the nights to lay four thousand tonnes of rock, and the first boats left before dawn, their crews cheering from the decks.",
	"“We did not think we would be back before the spring,” said Marta Ilić, who has fished from the harbour for thirty years and lost her nets in the storm.",
	"The authority said the repair cost eleven million euros, most of it paid from an emergency fund set aside after the floods of 2019, and the rest by the regional government.",
	"Insurers have yet to settle most claims, and several owners said they had borrowed from relatives to buy new gear, fearing they would miss the whole season otherwise.",
	"A permanent wall, twice as high as the old one, is to be built next year, though the plans still need the approval of the environment ministry and of the town council.",
	"Until then, boats will leave only in daylight and in calm weather, and the harbour master will close the entrance whenever waves outside pass two metres.",
	"“The sea gave us a warning this winter,” Ilić said, coiling a rope on the quay. “Next time the wall has to hold, or there will be no harbour left to come back to.”",
}

// storyPage wraps the story's paragraphs, with extra inserted after the
// paragraph at index at, in an ordinary article page.
func storyPage(head, extra string, at int) string {
	var body strings.Builder
	for i, p := range storyParas {
		body.WriteString("<p>" + p + "</p>\n")
		if i == at {
			body.WriteString(extra)
		}
	}
	return `<html><head><title>Harbour reopens after the storm | Coast Post</title>` + head + `</head><body>
		<header><a href="/">Coast Post</a><nav><a href="/news">News</a> <a href="/sport">Sport</a></nav></header>
		<main><article><h1>Harbour reopens after the storm</h1><div class="story">` + body.String() + `</div></article></main>
		<footer><p>© Coast Post. All rights reserved.</p></footer></body></html>`
}

func TestExtractInsideTheBody(t *testing.T) {
	cases := []struct {
		name    string
		extra   string
		at      int
		want    []string // besides every story paragraph
		notWant []string
	}{
		{
			name: "a sign-up box with no class that says so",
			extra: `<div class="wp-block-group has-background"><h3>Get our best advice in your inbox</h3>` +
				`<p>Join 31,000 readers who get one practical email every Tuesday. No spam, unsubscribe anytime.</p>` +
				`<form action="/subscribe" method="post"><input type="email" name="email"><button type="submit">Subscribe</button></form></div>`,
			at:      3,
			notWant: []string{"Join 31,000", "best advice"},
		},
		{
			name:    "pull quote repeating a sentence of the story",
			extra:   `<blockquote class="quote quote--large"><p>“We did not think we would be back before the spring.”</p></blockquote>`,
			at:      4,
			notWant: nil, // checked below: the sentence appears once
		},
		{
			name:  "pull quote named so, in a div, repeating the story",
			extra: `<div class="pullquote"><p>The sea gave us a warning this winter ... Next time the wall has to hold</p></div>`,
			at:    2,
		},
		{
			name:  "quote styled as a pull quote that repeats nothing stays",
			extra: `<blockquote class="pullquote"><p>Harbours are only as strong as the walls that keep the winter out of them.</p></blockquote>`,
			at:    5,
			want:  []string{"only as strong as the walls"},
		},
		{
			name:  "quotation that repeats nothing stays",
			extra: `<blockquote><p>The breakwater shall be kept in good repair by the authority, at its own cost, for as long as the harbour is open to shipping.</p></blockquote>`,
			at:    3,
			want:  []string{"shall be kept in good repair by the authority"},
		},
		{
			name: "related-links box without a telling class",
			extra: `<div class="box box--inline"><h3>More on this story</h3><ul><li><a href="/a">How the storm hit the coast, hour by hour</a></li>` +
				`<li><a href="/b">Fishermen count the cost of a lost month at sea</a></li><li><a href="/c">Why the old breakwater failed</a></li></ul></div>`,
			at:      2,
			notWant: []string{"More on this story", "hour by hour", "lost month at sea", "old breakwater failed"},
		},
		{
			name:    "read-more line between paragraphs",
			extra:   `<p><strong>Read more:</strong> <a href="/d">The storm that sank two trawlers</a></p>`,
			at:      1,
			notWant: []string{"Read more", "The storm that sank two trawlers"},
		},
		{
			name: "newsletter promo between paragraphs",
			extra: `<div class="inline-block"><p><strong>Get the Coast Post morning briefing.</strong> The day's news from the coast, in your inbox before breakfast, free.</p>` +
				`<p><a href="/newsletters">Sign up</a></p></div>`,
			at:      5,
			notWant: []string{"morning briefing", "in your inbox", "Sign up"},
		},
		{
			name:    "newsletter pitch that asks for the sign-up at its end",
			extra:   `<p>Start every morning with the Tide Table, our pick of the coast's stories. Sign up for the free daily newsletter.</p>`,
			at:      6,
			notWant: []string{"Tide Table"},
		},
		{
			name:    "print subscription pitch",
			extra:   `<p>Get the Coast Post weekend edition delivered to your door every Saturday: 12 issues for £9.99.</p>`,
			at:      0,
			notWant: []string{"weekend edition"},
		},
		{
			name:  "story sentence that opens with a promo verb stays",
			extra: `<p>Download speeds in the harbour's new booking app doubled after the storm, the authority said.</p>`,
			at:    4,
			want:  []string{"Download speeds in the harbour's new booking app"},
		},
		{
			name:    "writer's biography after the story",
			extra:   `<div class="staff-bio"><p>Nora Kask covers the coast and its fisheries for the Coast Post. She grew up in a harbour town and spent two winters on a trawler before turning to reporting.</p></div>`,
			at:      7,
			notWant: []string{"Nora Kask", "two winters on a trawler"},
		},
		{
			name:    "an ad slot's label between dashes",
			extra:   `<div class="td-a-rec"><span class="td-adspot-title">- Advertisement -</span></div>`,
			at:      2,
			notWant: []string{"Advertisement"},
		},
		{
			name:    "a heading for screen readers only",
			extra:   `<h2 class="screen-reader-text">Reader Interactions</h2>`,
			at:      7,
			notWant: []string{"Reader Interactions"},
		},
		{
			name:    "a feedback widget's question",
			extra:   `<div class="helpful-block"><p>Was this article helpful?</p><a href="#yes">Yes</a> <a href="#no">No</a></div>`,
			at:      7,
			notWant: []string{"helpful"},
		},
		{
			name:    "an affiliate note",
			extra:   `<p><em>Disclosure: This post contains affiliate links. If you use them to make a purchase, we may earn a small commission at no extra cost to you.</em></p>`,
			at:      0,
			notWant: []string{"affiliate links"},
		},
		{
			name: "a story's sentences on commissions, affiliates and sign-ups stay",
			extra: `<p>The European Commission said the website had failed to remove illegal listings within 24 hours.</p>` +
				`<p>WTVD, the local ABC affiliate, reported that this site was evacuated shortly after noon.</p>` +
				`<p>Under the new rule, customers must be able to unsubscribe at any time with a single click, the agency said.</p>` +
				`<p>Join 5,000 people who have signed, the flyer urged, and the petition reached the council by June.</p>`,
			at:   4,
			want: []string{"European Commission", "local ABC affiliate", "unsubscribe at any time", "Join 5,000 people"},
		},
		{
			name:  "a story's sentences on affiliates and on being affiliated stay",
			extra: `<p>Affiliate programs paid the harbour's souvenir sellers a commission on every rod sold online.</p><p>Disclaimer: the fishermen's union is not affiliated with the port authority.</p>`,
			at:    4,
			want:  []string{"Affiliate programs paid", "not affiliated with the port authority"},
		},
		{
			name: "invitations to the publication's messenger channels and Google News",
			extra: `<div class="channel-rec"><p>Simak breaking news dan berita pilihan kami langsung di ponselmu. Akses berita Coast Post WhatsApp Channel : <a href="https://www.whatsapp.com/channel/0029Va">https://www.whatsapp.com/channel/0029Va</a>.</p></div>` +
				`<p>Mari bergabung di Grup Telegram "Coast Post News Update", caranya klik link https://t.me/coastpostupdate, kemudian join.</p>` +
				`<p><strong>Follow us on Google News</strong> for the latest from the coast.</p><p>Suivez-nous sur WhatsApp pour ne rien manquer.</p>` +
				`<p>Bądź na bieżąco! Obserwuj nas w Wiadomościach Google.</p>` +
				`<p>Únete a nuestro canal ¡El Heraldo ya está en WhatsApp!, desde tu dispositivo móvil entérate de las noticias más relevantes del día.</p>`,
			at:      5,
			notWant: []string{"WhatsApp Channel", "Grup Telegram", "Google News", "Suivez-nous", "Obserwuj nas", "Únete"},
		},
		{
			name:    "a call to subscribe to the publication on WhatsApp",
			extra:   `<div class="article__whatsapp"><p>Subscribe to Coast Post on WhatsApp and stay up to date with the latest news.</p><a href="https://whatsapp.com/channel/coastpost">Follow</a></div>`,
			at:      6,
			notWant: []string{"on WhatsApp"},
		},
		{
			name:    "a call for tips and an end-of-article marker",
			extra:   `<p><em>Do you work at the port authority? Got a tip? Contact this reporter via email at nkask@coastpost.example or Signal at 555-0199.</em></p><div class="end"><h3>End of Article</h3></div>`,
			at:      7,
			notWant: []string{"Got a tip", "End of Article"},
		},
		{
			name:  "a story's sentence on tips stays",
			extra: `<p>The harbour master said he had a tip for anyone buying a used trawler: check the hull before the engine.</p>`,
			at:    4,
			want:  []string{"had a tip for anyone buying a used trawler"},
		},
		{
			name: "a story's sentences on messenger channels stay",
			extra: `<p>Residents were told to follow official updates on Telegram, where the council posts a warning before every closure.</p>` +
				`<p>The fishermen's channel, t.me/harbourwatch, posted a video of the breaking wall on Sunday night.</p>` +
				`<p>Families were asked to join the neighbourhood WhatsApp group that the harbour master set up after the storm.</p>`,
			at:   4,
			want: []string{"follow official updates on Telegram", "t.me/harbourwatch", "neighbourhood WhatsApp group"},
		},
		{
			name: "a newsletter box and a donation appeal, each with its heading",
			extra: `<div class="story-element factbox"><p class="factbox-headline">Unser Hafen-Newsletter</p><p>Was ist los am Hafen? Unser kostenloser Newsletter informiert Sie jeden Tag. Jetzt abonnieren!</p></div>` +
				`<div class="story-element ask"><h3>Independent journalism is a public good</h3><p>We believe everyone deserves to know what happens on the coast. That is why we keep our work free for all: support us with a contribution today.</p><a href="/give">Give</a></div>`,
			at:      4,
			notWant: []string{"Hafen-Newsletter", "Jetzt abonnieren", "public good", "free for all"},
		},
		{
			name: "the writer's handle, a reading time, a video label and a newsletter line",
			extra: `<p><i>Follow Coast Post's Nora Kask on X @NoraKask.</i></p><p>3 min read</p><h3>watch now</h3>` +
				`<p>Stay on top of the coast with Harbour Notes, our weekly subscriber-only newsletter.</p>`,
			at:      2,
			notWant: []string{"@NoraKask", "3 min", "watch now", "Harbour Notes"},
		},
		{
			name:  "a story's subheading before a sentence on a newsletter stays",
			extra: `<h2>Back at sea</h2><p>Stay up to date: the harbour master said the port's newsletter would list every closure.</p>`,
			at:    4,
			want:  []string{"Back at sea"},
		},
		{
			name:    "promo paragraph for the app",
			extra:   `<p><em>Download the Coast Post app for breaking news alerts on your phone — it's free on iOS and Android.</em></p>`,
			at:      3,
			notWant: []string{"Download the Coast Post app"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := mustExtract(t, storyPage("", tc.extra, tc.at), "https://coastpost.example/news/harbour-reopens")
			checkText(t, a.Text, append(slices.Clone(storyParas), tc.want...), tc.notWant)
			for _, q := range []string{"We did not think we would be back", "The sea gave us a warning"} {
				if n := strings.Count(a.Text, q); n != 1 {
					t.Errorf("%q appears %d times, want 1:\n%s", q, n, a.Text)
				}
			}
		})
	}
}

// A membership pitch of several paragraphs in a box beside the story (a
// sibling whose prose scores like the story's next part) goes whole; a
// part of the story that holds a newsletter line keeps its paragraphs.
func TestExtractPitchBoxBesideTheStory(t *testing.T) {
	pitch := `<div class="box"><h2>Join the Coast Post</h2>
		<p>For less than a coffee a week you get unlimited access to every story, the morning briefing and the archive, on every device.</p>
		<p>Members are invited to our events, read our investigations first and help choose what we cover next, because reporting is better with readers in it.</p>
		<p>You can cancel anytime, and your saved stories stay yours for a month after you leave.</p>
		<p><a href="/join">Join now</a></p></div>`
	part := func(ps []string, extra string) string {
		return `<div class="part">` + pTags(ps[:1]) + extra + pTags(ps[1:]) + `</div>`
	}
	page := `<html><head><title>Harbour reopens after the storm | Coast Post</title></head><body><nav><a href="/">Home</a></nav>
		<main>` + pitch + part(storyParas[:4], "") + `<div class="ad"><a href="https://ads.example/1">Ad</a></div>` +
		part(storyParas[4:], `<p>Sign up for our newsletter to get the coast's news every morning.</p>`) + `</main></body></html>`
	a := mustExtract(t, page, "https://coastpost.example/news/harbour-reopens")
	checkText(t, a.Text, storyParas, []string{"coffee a week", "Members are invited", "cancel anytime", "Join now", "Sign up for our newsletter"})
}

// The story's sign-off set as its last paragraphs, with no class that
// says so: the writer's bio goes when it opens with the page's writer,
// and so do the credits to those who contributed and the print edition's
// note; a closing paragraph about someone else, or one that only opens
// with the writer's name, stays.
func TestExtractSignOffAtTheEnd(t *testing.T) {
	head := `<meta name="author" content="Nora Kask">`
	cases := []struct {
		name, extra   string
		want, notWant []string
	}{
		{"the writer's bio in italics", `<p><i>Nora Kask is a coast reporter for the Coast Post. She covers fisheries and ports.</i></p>`, nil, []string{"Nora Kask is a coast reporter"}},
		{"what the writer covers", `<p>Nora Kask covers the coast and its fisheries.</p>`, nil, []string{"Nora Kask covers"}},
		{"a closing line about someone else", `<p>Marta Ilić has fished from the harbour for thirty years and means to go on.</p>`, []string{"Marta Ilić has fished"}, nil},
		{"a closing line that opens with the writer's name but is no bio", `<p>Nora Kask's grandfather fished from this harbour until the storm of 1962.</p>`, []string{"grandfather fished from this harbour"}, nil},
		{"the contributors' credits", `<p><i>Associated Press writer Rio Yamat in Split contributed to this report.</i></p><p>(Reporting by Ivo Perić; Editing by Anna Berg)</p>`, nil, []string{"contributed to this report", "Reporting by"}},
		{"files from an agency", `<p><i>— With files from The Canadian Press</i></p>`, nil, []string{"With files from"}},
		{"the agency's assistance and the print edition's note", `<p>— With assistance from Alice Gledhill</p><p><i>This article appeared in the Europe section of the print edition under the headline "Back to sea"</i></p>`, nil, []string{"With assistance", "print edition"}},
		{"the writer's byline element at the end", `<div class="view-article-byline"><strong>BY NORA KASK</strong> [nora.kask@coastpost.example]</div>`, nil, []string{"NORA KASK"}},
		{"a desk's signature", `<p>REDACCIÓN JUSTICIA</p>`, nil, []string{"REDACCIÓN"}},
		{"an editor's initials", `<p>rcr</p>`, nil, []string{"rcr"}},
		{"initials in brackets, the agency's first", `<p>(dpa/kle)</p>`, nil, []string{"kle"}},
		{"a closing word in capitals stays", `<p>FIN</p>`, []string{"FIN"}, nil},
		{"the editor's credit", `<p class="editor">Editor: Helen Wright</p>`, nil, []string{"Helen Wright"}},
		{"the writer's name and day in brackets", `<p class="article-footnote">(Nora Kask, 20.11.2025)</p>`, nil, []string{"20.11.2025"}},
		{"an editor's note stays", `<p>Editor's note: the harbour master asked that the boats' names be left out.</p>`, []string{"Editor's note"}, nil},
		{"a closing line on what a fund contributed stays", `<p>The regional fund contributed to this repair as well, paying for the rock brought in from the quarry.</p>`, []string{"The regional fund contributed to this repair"}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := mustExtract(t, storyPage(head, tc.extra, len(storyParas)-1), "https://coastpost.example/news/harbour-reopens")
			if len(a.Authors) != 1 || a.Authors[0] != "Nora Kask" {
				t.Fatalf("Authors = %q, want Nora Kask", a.Authors)
			}
			checkText(t, a.Text, append(slices.Clone(storyParas), tc.want...), tc.notWant)
		})
	}
}
