package article

import (
	"slices"
	"strings"
	"unicode"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// regionKinds are the page kinds whose text is the page's main region
// rather than a story: a listing's, a product's or a service's content is
// its items, short lines and links, which the story extraction drops as
// teasers and chrome. A forum thread reads better as posts (the story
// extraction); an empty page or a video has no region to speak of.
var regionKinds = map[string]bool{
	KindListing: true, KindCollection: true, KindGallery: true, KindOther: true,
	KindService: true, KindProduct: true, KindDocumentation: true,
}

// regionChrome are the tags that frame a page's main region rather than
// belong to it, and forms: their controls are pruned already, and the
// labels and help lines around them go with them.
var regionChrome = map[atom.Atom]bool{
	atom.Header: true, atom.Nav: true, atom.Footer: true, atom.Aside: true, atom.Form: true, atom.Dialog: true,
}

// productAsides are class/id words (whole, lower-cased, split at anything
// not a letter) of the parts of a product page about other things than
// the product: its customers' reviews and the other products it sells
// beside it.
var productAsides = map[string]bool{
	"review": true, "reviews": true, "ratings": true, "related": true, "upsell": true, "upsells": true,
	"crosssell": true, "recommended": true, "recommendations": true, "recently": true,
}

// regionShare is the share of the region's words under which the story
// extraction's text gives way to the region's. A story the model mistook
// for a listing keeps its text: the extraction found most of the region.
const regionShare = 0.5

// minRegionWords is the least text a <main> must hold to be the region:
// an empty one is a script's mount point.
const minRegionWords = 20

// regionBlocks renders the page's main region: its <main> elements (or
// role=main) when they hold text, else the whole body, without the
// header, navigation, footer, asides and forms around it, the overlays
// (hc.overlay) and the blocks of UI text, and, on a product page, without
// its reviews and other products (productAsides).
func regionBlocks(body *html.Node, product bool, hc hintCache, bud *budget) []block {
	var mains []*html.Node
	words := 0
	walkElements(body, func(n *html.Node) bool {
		if n.DataAtom == atom.Main || attr(n, "role") == "main" {
			mains = append(mains, n)
			words += countWords(rawText(n))
			return false // a <main> inside another is part of it
		}
		return true
	})
	roots := []*html.Node{body}
	if words >= minRegionWords {
		roots = mains
	}
	blocks := renderBlocks(roots, func(n *html.Node) bool {
		return regionChrome[n.DataAtom] || hc.overlay(n) || (product && namedAmong(n, productAsides))
	}, bud)
	return slices.DeleteFunc(blocks, func(b block) bool { return isBoilerplateText(b.text) })
}

// mostlyAside reports blocks whose text lies mostly inside elements named
// for a product page's reviews or other products.
func mostlyAside(bs []block) bool {
	aside, all := 0, 0
	for _, b := range bs {
		all += b.runes
		for n := b.node; n != nil; n = n.Parent {
			if namedAmong(n, productAsides) {
				aside += b.runes
				break
			}
		}
	}
	return aside*2 > all
}

// namedAmong reports an element whose class or id holds one of words.
func namedAmong(n *html.Node, words map[string]bool) bool {
	for _, a := range n.Attr {
		if a.Key != "class" && a.Key != "id" {
			continue
		}
		for _, w := range strings.FieldsFunc(strings.ToLower(a.Val), func(r rune) bool { return !unicode.IsLetter(r) }) {
			if words[w] {
				return true
			}
		}
	}
	return false
}

// useRegion makes the region's text a's text, unless the story extraction
// already kept half of it or more; story holds that extraction's blocks.
// Two kinds take a region with text whatever the story's length: a
// collection, whose items are its content and whose longest prose is a
// shop's copy beside them, and a product page whose story is mostly its
// customers' reviews or other products (productAsides).
func useRegion(a *Article, story, region []block) {
	text := joinBlocks(region)
	words := countWords(text)
	always := a.PageKind == KindCollection || a.PageKind == KindProduct && mostlyAside(story)
	if always && words >= minRegionWords || float64(a.WordCount) < regionShare*float64(words) {
		a.Text, a.WordCount = text, words
	}
}
