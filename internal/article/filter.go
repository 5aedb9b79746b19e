package article

import (
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/newscrawl/newscrawl/internal/quickre"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// filterBlocks drops UI-text blocks and link lists (but those a sentence
// introduces), and cuts the text at a trailing "Related"/"Comments" style
// heading.
func filterBlocks(bs []block, titles []string, st *statTable) []block {
	bs = dropSlideshow(bs)
	bs = dropPullQuotes(bs)
	bs = dropSecondCopy(bs)
	total := 0
	for _, b := range bs {
		total += b.runes
	}
	lists := listShares(bs)
	out := bs[:0]
	seen := 0 // runes kept so far: the story told before a heading
	prose := false
	var story *html.Node // the element that holds the story's last paragraph so far
	var box *html.Node   // a box set between the story's paragraphs (inlineBox), whose blocks go
	for i, b := range bs {
		if box != nil && contains(box, b.node) {
			continue
		}
		if headingLike(b) && (isEndHeading(b.text) || isStrongEnd(b.text)) {
			// A "you may also like" style heading ends the story, unless
			// it heads a box set between the story's paragraphs; weaker
			// ones ("Subscribe") end it unless real prose follows (an inline
			// box in the middle of the story), then only the heading goes.
			if seen*5 >= total && isStrongEnd(b.text) {
				if box = inlineBox(bs, i, story); box != nil {
					continue
				}
				break
			}
			if proseRunes(bs[i+1:]) < 100 {
				break
			}
			continue
		}
		if isPromo(b) {
			if n := len(out); n > 0 && headsBox(out[n-1], b, story) {
				seen -= out[n-1].runes
				out = out[:n-1]
			}
			continue
		}
		if isBoilerplateText(b.text) || isDateline(b.text) || isStampLine(b) || isAffiliateNote(b) {
			continue
		}
		if (b.tag == atom.H1 && (isTitle(b.text, titles) || (!prose && nearTitle(b.text, titles)))) || (b.tag == atom.H2 && !prose && isTitle(b.text, titles)) {
			continue // the headline, reported as Title
		}
		if b.runes >= 80 {
			prose = true
		}
		if isProse(b) {
			story = b.node.Parent
		}
		// A linked subheading introducing prose (a product in a gift guide)
		// is content; linked headings in a row are a teaser list.
		if linkBlock(b) && !(isHeading(b.tag) && i+1 < len(bs) && isProse(bs[i+1])) && !proseList(b, lists) && !inIntroducedList(b.node, st) {
			continue
		}
		seen += b.runes
		out = append(out, b)
	}
	return out
}

// inlineBox is the box that a strong end heading (bs[i]) heads inside the
// story: an element set between the story's paragraphs — below story, the
// element that holds the story's last paragraph so far, and followed by
// more of the story's paragraphs in that same element (a "Related" list
// between paragraphs). Nil when the heading sits in the story's element
// itself, or nothing of the story follows the box.
func inlineBox(bs []block, i int, story *html.Node) *html.Node {
	if story == nil {
		return nil
	}
	box := bs[i].node
	for box != nil && box.Parent != story {
		box = box.Parent
	}
	if box == nil || box == bs[i].node {
		return nil
	}
	for _, b := range bs[i+1:] {
		if isProse(b) && b.node.Parent == story && !contains(box, b.node) {
			return box
		}
	}
	return nil
}

// headsBox reports a short line or heading (h) that heads the box a
// promo (p) is in: the newsletter's name or the appeal's slogan above its
// pitch ("Unser München-Newsletter", "Explanatory journalism is a public
// good"), in the same element as the pitch and not in story, the element
// that holds the story's last paragraph so far.
func headsBox(h, p block, story *html.Node) bool {
	box := p.node.Parent
	return headingLike(h) && h.runes <= maxBoxHeading && box != nil && h.node.Parent == box && box != story
}

// maxBoxHeading is the longest heading (runes) read as a promo box's.
const maxBoxHeading = 80

// withoutBylines drops the blocks that are credit lines naming one of the
// page's authors (pageMeta.creditLines): a byline, never the story's
// text. A heading or a list item stays ("By Public Transport"), and so
// does a line whose name is not the story's writer (a quoted letter's
// "Written by Maria Lopez, age 9").
func withoutBylines(bs []block, credits map[*html.Node]string, authors []string) []block {
	if len(credits) == 0 || len(authors) == 0 {
		return bs
	}
	out := bs[:0:0]
	for _, b := range bs {
		credit, ok := credits[b.node]
		if ok && !isHeading(b.tag) && b.tag != atom.Li && namesAuthor(credit, authors) {
			continue
		}
		out = append(out, b)
	}
	return out
}

// maxSignOff is the longest block (runes) read as the story's sign-off.
const maxSignOff = 400

// reSignOffLine is a story's closing line about the story itself: the
// credit to others who worked on it ("(Reporting by Jane Roe; Editing by
// John Doe)", "— With assistance from Jane Roe"), and a desk's, an
// editor's or the writer's signature ("REDACCIÓN JUSTICIA", "rcr",
// "(kle)", "Editor: Helen Wright", Der Standard's "(Katharina Gruber,
// 20.11.2025)"). Every branch opens at the line's start, and one ^ before
// them all lets the matcher try that position only (a ^ per branch does
// not: 578 ns against 88 µs on a 356-byte paragraph). reSignOffNote says
// the same of a note anywhere in the line ("Jane Roe contributed to this
// report.", the print edition's note "This article appeared in the
// Business section of the print edition …", "A version of this article
// appears in print on …"; quickre looks for its words first). The human
// truths leave contributor credits out (five of the six ScrapingHub pages
// that carry one).
var (
	reSignOffLine = quickre.MustCompile(`(?i)^(?:\W*(?:additional )?reporting by\b|\W*(?:writing|editing) by\b|\W*with (?:additional )?assistance from\b|\W*with files from\b` +
		`|\W*(?:redacción|redacao|redação|rédaction|redaktion|redazione|redactie)\b[^.!?]{0,40}$|(?-i:\(?\p{Ll}{2,4}(?:/\p{Ll}{2,4})*\)?$)` +
		`|\W*(?:editor|edited by)\s*:?\s+\p{Lu}[\p{L}'’.-]*(?:\s+\p{Lu}[\p{L}'’.-]*){0,3}$|(?-i:\(\p{Lu}[\p{L}'’.-]*(?:\s+\p{Lu}[\p{L}'’.-]*){0,3},\s*\d{1,2}\.\s?\d{1,2}\.\s?\d{2,4}\)$))`)
	reSignOffNote = quickre.MustCompile(`(?i)\bcontributed (?:reporting|to this (?:report|story|article))\b|\bappear(?:s|ed) in (?:the )?(?:\S+ ){0,6}print edition\b|\bappears in print on\b`)
)

// withoutSignOff drops, among the last three blocks, the story's sign-off:
// the credit to its contributors or the print edition's note
// (reSignOffLine, reSignOffNote), and the writer's bio, set in the
// story's own body without a class that says so (isWriterBio). The human
// truths leave bios out (three of four pages on WCXB and ScrapingHub that
// carry one).
func withoutSignOff(bs []block, authors []string) []block {
	out := bs
	for i := len(bs) - 1; i >= 0 && i >= len(bs)-3; i-- {
		b := bs[i]
		if b.runes > maxSignOff || isHeading(b.tag) || !reSignOffLine.MatchString(b.text) && !reSignOffNote.MatchString(b.text) && !isWriterBio(b.text, authors) {
			continue
		}
		if len(out) == len(bs) {
			out = slices.Clone(bs)
		}
		out = slices.Delete(out, i, i+1)
	}
	return out
}

// isWriterBio reports text that opens with one of authors and says what
// the writer is or does ("Eric Song is IGN's deal curator …", "Steven
// Mufson covers the White House.").
func isWriterBio(text string, authors []string) bool {
	if len(authors) == 0 {
		return false
	}
	m := reBioOpening.FindStringSubmatch(text)
	return m != nil && slices.ContainsFunc(authors, func(a string) bool { return strings.EqualFold(a, m[1]) })
}

// namesAuthor reports whether a credit line's names, split as the
// authors are ("Jane Roe and John Doe"), hold one of the authors.
func namesAuthor(credit string, authors []string) bool {
	names, _ := splitAuthors(credit)
	return slices.ContainsFunc(names, func(n string) bool {
		return slices.ContainsFunc(authors, func(a string) bool { return strings.EqualFold(a, n) })
	})
}

// maxStampLine is the longest block (runes) read as a timestamp line.
const maxStampLine = 200

// isStampLine reports a block that is the story's time stamp rather than
// its text, told by markup and so in any language: a short line whose own
// flow holds a <time> (or an itemprop date) and either an author mark
// ("Le Monde | 4.5.2015 à 13h36 | Par Jane Doe") or little else than the
// stamp with a year ("sexta-feira, 22 de outubro de 2010 às 20:13",
// "Updated on: November 19, 2019 / 10:07 AM / CBS News"). A bare time
// without a year ("10:07 AM") stays: it may head a live-blog entry.
func isStampLine(b block) bool {
	if b.runes >= maxStampLine || b.node == nil || isHeading(b.tag) {
		return false
	}
	stamp, authored := 0, false
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode || isBlock(c) {
				continue // another block's text, judged on its own
			}
			ip := strings.ToLower(attr(c, "itemprop"))
			switch {
			case c.DataAtom == atom.Time || ip == "datepublished" || ip == "datemodified" || ip == "datecreated":
				r, _ := measureText(rawText(c))
				stamp += r
				continue
			case ip == "author" || attr(c, "rel") == "author":
				authored = true
			}
			walk(c)
		}
	}
	walk(b.node)
	if stamp == 0 {
		return false
	}
	return authored || (stamp*2 >= b.runes && reYear.MatchString(b.text))
}

// reYear matches a year of this or the last century.
var reYear = quickre.MustCompile(`\b(?:19|20)\d\d\b`)

// headingLike reports blocks that may title a page section: real headings
// and short stand-alone lines, but not table cells or list items.
func headingLike(b block) bool {
	if !isHeading(b.tag) && b.runes >= 40 {
		return false
	}
	for n, i := b.node, 0; n != nil && i < 6; n, i = n.Parent, i+1 {
		switch n.DataAtom {
		case atom.Td, atom.Th, atom.Li, atom.Dt, atom.Dd:
			return false
		}
	}
	return true
}

// isEndHeading reports a heading that introduces trailing boilerplate.
func isEndHeading(s string) bool {
	return reEndHeading.MatchString(strings.TrimRight(strings.TrimSpace(s), ":.!…"))
}

// isStrongEnd reports headings that always introduce other stories or comments.
func isStrongEnd(s string) bool {
	return reStrongEnd.MatchString(strings.TrimRight(strings.TrimSpace(s), ":.!…"))
}

// proseRunes counts text in link-poor blocks of paragraph length.
func proseRunes(bs []block) int {
	n := 0
	for _, b := range bs {
		if isProse(b) {
			n += b.runes
		}
	}
	return n
}

// isProse reports a link-poor block of paragraph length.
func isProse(b block) bool {
	return b.runes >= 80 && b.linkLen*10 < b.runes*3
}

// isTitle reports whether a heading repeats one of the page's titles, or
// most of one compared on letters and digits alone: a kicker set in the
// heading without a space before the headline ("Neues
// WehrdienstgesetzBundestag beschließt …") is the title's "Neues
// Wehrdienstgesetz: Bundestag beschließt …".
func isTitle(h string, titles []string) bool {
	low, squashed := strings.ToLower(strings.TrimSpace(h)), ""
	if len(low) < 4 {
		return false
	}
	for _, t := range titles {
		if t == "" {
			continue
		}
		if strings.Contains(strings.ToLower(t), low) {
			return true
		}
		if squashed == "" {
			squashed = alnumLower(h)
		}
		if st := alnumLower(t); len(squashed)*2 >= len(st) && strings.Contains(st, squashed) {
			return true
		}
	}
	return false
}

// alnumLower is s lower-cased, with only its letters and digits.
func alnumLower(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return unicode.ToLower(r)
		}
		return -1
	}, s)
}

// linkBlock reports blocks that are essentially links ("Read more: ...",
// teaser lines); prose that merely contains many links is kept.
func linkBlock(b block) bool {
	if b.runes == 0 || b.linkLen*2 <= b.runes {
		return false
	}
	if b.tag == atom.P && b.linkLen*10 < b.runes*9 && endsSentence(b.text) && !strings.HasSuffix(b.text, "...") {
		return false // a sentence whose subject happens to be linked
	}
	return b.runes-b.linkLen < 40 || (b.linkLen*10 > b.runes*8 && b.runes < 300)
}

// reSlideCounter matches a slideshow caption's counter: "3/50 Title", "3 of 50".
var reSlideCounter = quickre.MustCompile(`^\s*(\d{1,3})\s*(?:/|of)\s*(\d{1,3})(?:\s|$)`)

// minSlides is how many numbered captions make a slideshow;
// minArticleBeside the prose (runes) beside it that makes it an article's.
const (
	minSlides        = 3
	minArticleBeside = 800
)

// dropSlideshow removes an embedded slideshow's captions (short blocks
// numbered "k/N" with one N, each followed by its caption) from an
// article's text. A page with little prose beside them is a gallery and
// keeps them.
func dropSlideshow(bs []block) []block {
	var at []int
	var of string
	for i, b := range bs {
		m := reSlideCounter.FindStringSubmatch(b.text)
		if m == nil || b.runes > 200 {
			continue
		}
		k, _ := strconv.Atoi(m[1])
		if n, _ := strconv.Atoi(m[2]); k == 0 || k > n {
			continue
		}
		if of != "" && m[2] != of {
			return bs // two counters: not one slideshow
		}
		of = m[2]
		at = append(at, i)
	}
	if len(at) < minSlides {
		return bs
	}
	// The last caption runs as far as the captions before it did.
	gap := (at[len(at)-1] - at[0]) / (len(at) - 1)
	from, to := at[0], min(len(bs), at[len(at)-1]+max(gap, 1))
	if proseRunes(bs[:from])+proseRunes(bs[to:]) < minArticleBeside {
		return bs
	}
	return append(bs[:from:from], bs[to:]...)
}

// inIntroducedList reports a block drawn inside an item (<li>, or a <p>
// in one) of a list a sentence introduces (see introduced).
func inIntroducedList(n *html.Node, st *statTable) bool {
	for i := 0; n != nil && i < 3; i, n = i+1, n.Parent {
		if n.DataAtom == atom.Li {
			return n.Parent != nil && introduced(n.Parent, st)
		}
	}
	return false
}

// listShare is the text and linked text of one list's item blocks.
type listShare struct{ runes, links, items int }

// listShares sums the item blocks of each list.
func listShares(bs []block) map[*html.Node]*listShare {
	m := map[*html.Node]*listShare{}
	for _, b := range bs {
		if b.tag != atom.Li || b.node == nil || b.node.Parent == nil {
			continue
		}
		ls := m[b.node.Parent]
		if ls == nil {
			ls = &listShare{}
			m[b.node.Parent] = ls
		}
		ls.runes += b.runes
		ls.links += b.linkLen
		ls.items++
	}
	return m
}

// proseList reports a list item among items that are mostly prose: a
// link-only item there is one point of the article, not a teaser.
func proseList(b block, lists map[*html.Node]*listShare) bool {
	if b.tag != atom.Li || b.node == nil || b.node.Parent == nil {
		return false
	}
	ls := lists[b.node.Parent]
	return ls != nil && ls.items >= 3 && ls.links*2 < ls.runes
}

// nearTitle reports a heading sharing most of its words with one of the
// page's titles (half or more): the headline, worded a little
// differently from <title>.
func nearTitle(h string, titles []string) bool {
	hw := strings.FieldsFunc(strings.ToLower(h), notWordRune)
	if len(hw) == 0 {
		return false
	}
	for _, t := range titles {
		tw := map[string]bool{}
		for _, w := range strings.FieldsFunc(strings.ToLower(t), notWordRune) {
			tw[w] = true
		}
		n := 0
		for _, w := range hw {
			if tw[w] {
				n++
			}
		}
		if n*2 >= len(hw) {
			return true
		}
	}
	return false
}

// notWordRune separates words.
func notWordRune(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }

// dropPullQuotes removes quotation blocks that repeat the article's own
// text (a pull quote set in large type beside the paragraph it comes from).
// A quotation that repeats nothing, e.g. a letter the story cites, stays.
func dropPullQuotes(bs []block) []block {
	var quotes []int
	quote := map[int]bool{}
	for i, b := range bs {
		if inQuote(b.node) || namedQuote(b.node) {
			quotes = append(quotes, i)
			quote[i] = true
		}
	}
	if len(quotes) == 0 {
		return bs
	}
	var prose strings.Builder
	for i, b := range bs {
		if !quote[i] && !isHeading(b.tag) {
			prose.WriteString(letters(b.text))
			prose.WriteByte('|')
		}
	}
	text := prose.String()
	drop := map[int]bool{}
	for _, i := range quotes {
		drop[i] = repeats(bs[i].text, text)
	}
	out := bs[:0]
	for i, b := range bs {
		if !drop[i] {
			out = append(out, b)
		}
	}
	return out
}

// minCopy is the number of distinct paragraphs (of minCopyRunes or more)
// a repeated stretch needs to be a second copy of the story: one
// paragraph said twice (a refrain, a fixture's filler) is not.
const (
	minCopy      = 3
	minCopyRunes = 80
)

// dropSecondCopy removes a stretch of blocks that repeats, in order, an
// earlier stretch holding minCopy distinct paragraphs or more: the story
// laid out twice (once per screen size), of which a reader sees one.
func dropSecondCopy(bs []block) []block {
	first := make(map[string]int, len(bs))
	drop := make([]bool, len(bs))
	dropped := false
	for j := 0; j < len(bs); j++ {
		i, seen := first[bs[j].text]
		if !seen {
			first[bs[j].text] = j
			continue
		}
		k, distinct := 0, map[string]bool{}
		for i+k < j && j+k < len(bs) && bs[i+k].text == bs[j+k].text {
			if bs[j+k].runes >= minCopyRunes {
				distinct[bs[j+k].text] = true
			}
			k++
		}
		if len(distinct) >= minCopy {
			for t := j; t < j+k; t++ {
				drop[t] = true
			}
			dropped = true
			j += k - 1
		}
	}
	if !dropped {
		return bs
	}
	out := bs[:0]
	for i, b := range bs {
		if !drop[i] {
			out = append(out, b)
		}
	}
	return out
}

// namedQuote reports a block in an element named as a quote ("pullquote",
// "quote-large"), a few levels up at most.
func namedQuote(n *html.Node) bool {
	for i := 0; n != nil && i < 3; n, i = n.Parent, i+1 {
		if strings.Contains(strings.ToLower(classID(n)), "quote") {
			return true
		}
	}
	return false
}

// repeats reports whether every part of q (split at ellipses, the cuts a
// pull quote makes) long enough to tell is found in text, and one is.
func repeats(q, text string) bool {
	found := false
	for _, part := range reEllipsis.Split(q, -1) {
		l := letters(part)
		if len([]rune(l)) < minRepeat {
			continue
		}
		if !strings.Contains(text, l) {
			return false
		}
		found = true
	}
	return found
}

// minRepeat is the letters a quotation must share with the story to be
// called a repeat of it.
const minRepeat = 20

// reEllipsis matches the ellipses that mark cuts in a quotation.
var reEllipsis = quickre.MustCompile(`\.\.\.|…|\[\.\.\.\]`)

// letters lower-cases s and keeps only its letters and digits, so
// quotation marks, dashes and spacing do not hide a repeat.
func letters(s string) string {
	var sb strings.Builder
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			sb.WriteRune(unicode.ToLower(r))
		}
	}
	return sb.String()
}
