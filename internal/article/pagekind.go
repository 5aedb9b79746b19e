package article

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"slices"
	"strings"
	"unicode"

	"github.com/newscrawl/newscrawl/internal/quickre"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// The page-kind model tells a story from the six other kinds of page WCXB's
// annotators label — service, product, collection, listing, forum and
// documentation pages — which the structural rules of classify.go cannot
// tell apart: a pricing page or a product page has as much prose as a
// short story. It is a multinomial logistic regression over the features
// below, trained by `make train-pagekind` (internal/article/kindtrain) on
// the tune half of WCXB's development split (CC-BY-4.0, Murrough Foley;
// see pagekind_model.json's "data" field); the check half and the other
// sets judge it. No feature names a site: they are markup types, page
// structure, the words of a URL path and the words of buttons and links.

// Page kinds the model adds to those of classify.go.
const (
	KindService       = "service"
	KindProduct       = "product"
	KindCollection    = "collection"
	KindForum         = "forum"
	KindDocumentation = "documentation"
)

// pageCounts are element counts and the cue words of the page's short
// controls (links and buttons), taken before pruning: a product page's
// "Add to cart" is chrome to the extractor but evidence to the classifier.
type pageCounts struct {
	forms, inputs, buttons, selects, textareas int
	pre, code, tables, listItems, links        int
	iframes, headings                          int
	cues                                       map[string]int // cue name -> controls carrying it
}

// controlCues are words of links and buttons, grouped by the kind of page
// that shows them. A control's words, lower-cased, are matched against
// whole phrases (addCues).
var controlCues = map[string][]string{
	"cart":    {"add to cart", "add to bag", "add to basket", "buy now", "in stock", "out of stock", "checkout", "add to wishlist", "shop now", "view cart", "sold out", "quick view", "write a review", "notify me"},
	"sales":   {"get a quote", "request a quote", "free quote", "book a demo", "request a demo", "get a demo", "schedule a demo", "contact us", "contact sales", "talk to sales", "free consultation", "book a call", "get started", "free trial", "start free", "call now", "book now", "schedule a", "get in touch", "pricing", "our services", "learn more"},
	"forum":   {"reply", "replies", "quote", "report", "like", "share post", "permalink", "joined", "posts", "members", "thread", "new topic", "log in to reply", "upvote", "downvote", "helpful", "solved", "accepted answer", "answers"},
	"docs":    {"edit this page", "edit on github", "on this page", "table of contents", "previous", "next", "api reference", "documentation", "docs", "was this page helpful", "view source", "copy", "getting started", "version", "changelog"},
	"story":   {"share on facebook", "share on twitter", "tweet", "read more", "related articles", "comments", "leave a comment", "subscribe", "newsletter", "print", "email"},
	"listing": {"read more", "continue reading", "load more", "older posts", "newer posts", "page 2", "next page", "view all", "see all", "show more"},
}

// foreignCues are controlCues' words in German, French, Spanish, Italian,
// Portuguese and Dutch: a shop's "In den Warenkorb" is its "Add to cart".
var foreignCues = map[string][]string{
	"cart": {"in den warenkorb", "jetzt kaufen", "ajouter au panier", "acheter maintenant", "añadir al carrito", "agregar al carrito", "comprar ahora",
		"aggiungi al carrello", "acquista ora", "adicionar ao carrinho", "comprar agora", "in winkelwagen", "nu kopen",
		"auf lager", "ausverkauft", "en stock", "épuisé", "agotado", "esaurito", "esgotado", "uitverkocht"},
	"sales": {"kontaktieren sie uns", "angebot anfordern", "kostenloses angebot", "termin vereinbaren", "contactez nous", "nous contacter", "demander un devis", "devis gratuit",
		"contáctenos", "contáctanos", "solicitar presupuesto", "presupuesto gratis", "contattaci", "richiedi un preventivo", "preventivo gratuito",
		"fale conosco", "entre em contato", "solicitar orçamento", "neem contact op", "offerte aanvragen", "gratis offerte",
		"mehr erfahren", "en savoir plus", "más información", "saiba mais", "scopri di più", "meer informatie"},
	"forum": {"antworten", "zitieren", "répondre", "citer", "responder", "citar", "rispondi", "beantwoorden", "mitglieder", "membres", "miembros", "membri", "membros", "leden"},
	"docs": {"diese seite bearbeiten", "auf dieser seite", "sur cette page", "en esta página", "in questa pagina", "nesta página", "op deze pagina",
		"inhaltsverzeichnis", "table des matières", "tabla de contenidos", "sommario"},
	"story": {"auf facebook teilen", "partager sur facebook", "compartir en facebook", "condividi su facebook", "compartilhar no facebook", "delen op facebook",
		"kommentare", "commentaires", "comentarios", "commenti", "comentários", "reacties", "drucken", "imprimer", "imprimir", "stampa", "afdrukken",
		"weiterlesen", "lire la suite", "leer más", "leggi tutto", "leia mais", "lees meer"},
	"listing": {"weiterlesen", "mehr laden", "lire la suite", "voir tout", "charger plus", "leer más", "ver todo", "cargar más", "leggi tutto", "vedi tutti", "carica altri",
		"leia mais", "ver todos", "carregar mais", "lees meer", "verder lezen", "bekijk alles", "meer laden",
		"nächste seite", "page suivante", "página siguiente", "pagina successiva", "próxima página", "volgende pagina"},
}

// countPage collects pageCounts from every element of the page.
func countPage(elems []*html.Node) pageCounts {
	c := pageCounts{cues: map[string]int{}}
	for _, n := range elems {
		switch n.DataAtom {
		case atom.Form:
			c.forms++
		case atom.Input:
			c.inputs++
		case atom.Button:
			c.buttons++
			c.addCues(n)
		case atom.Select:
			c.selects++
		case atom.Textarea:
			c.textareas++
		case atom.Pre:
			c.pre++
		case atom.Code:
			c.code++
		case atom.Table:
			c.tables++
		case atom.Li:
			c.listItems++
		case atom.A:
			c.links++
			c.addCues(n)
		case atom.Iframe:
			c.iframes++
		case atom.H1, atom.H2, atom.H3:
			c.headings++
		}
	}
	return c
}

// cuePhrases maps each phrase of controlCues to its groups (a phrase such
// as "read more" is in two), each list in a fixed order.
var cuePhrases = func() map[string][]string {
	m := map[string][]string{}
	for _, cues := range []map[string][]string{controlCues, foreignCues} {
		for group, phrases := range cues {
			for _, p := range phrases {
				m[p] = append(m[p], group)
			}
		}
	}
	for _, groups := range m {
		slices.Sort(groups)
	}
	return m
}()

// addCues counts the cue groups a short control's text carries: each run
// of one to four of its words is looked up among the phrases, and a group
// counts once per control.
func (c *pageCounts) addCues(n *html.Node) {
	words := strings.FieldsFunc(strings.ToLower(shortText(n, 40)), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
	})
	var seen [8]string
	found := seen[:0]
	for i := range words {
		for k := i + 1; k <= len(words) && k <= i+4; k++ {
			phrase := words[i]
			if k > i+1 {
				phrase = strings.Join(words[i:k], " ")
			}
			for _, g := range cuePhrases[phrase] {
				if !slices.Contains(found, g) {
					found = append(found, g)
					c.cues[g]++
				}
			}
		}
	}
}

// urlWords are path words that say what a page is, by group.
var urlWords = map[string][]string{
	"story":   {"blog", "blogs", "news", "article", "articles", "post", "posts", "story", "stories", "insights", "magazine", "journal", "opinion", "features", "press", "guide", "guides", "learn", "resources", "academy"},
	"product": {"product", "products", "p", "dp", "item", "items", "shop", "store", "buy", "sku"},
	"listing": {"category", "categories", "tag", "tags", "collections", "collection", "c", "archive", "archives", "topics", "topic", "page", "search", "author", "all", "browse"},
	"docs":    {"docs", "doc", "documentation", "api", "reference", "manual", "help", "support", "kb", "knowledge", "wiki", "faq", "tutorial", "reference-guide", "sdk", "developer", "developers", "en-us", "latest", "stable"},
	"forum":   {"forum", "forums", "thread", "threads", "t", "community", "questions", "question", "discussion", "discussions", "discuss", "r", "comments", "answers", "viewtopic", "showthread", "board", "boards"},
	"service": {"services", "service", "solutions", "solution", "pricing", "plans", "features", "about", "contact", "company", "industries", "platform", "locations", "location", "hire", "agency", "consulting", "repair", "installation"},
}

// foreignURLWords are urlWords in German, French, Spanish, Italian,
// Portuguese and Dutch ("artikel" is left out: a German shop's item and a
// German paper's story both live under /artikel/).
var foreignURLWords = map[string][]string{
	"story":   {"nachrichten", "aktuelles", "meldungen", "actualites", "actualite", "noticias", "noticia", "notizie", "notizia", "articolo", "articulo", "artigo", "nieuws"},
	"product": {"produkt", "produkte", "produit", "produits", "producto", "productos", "prodotto", "prodotti", "produto", "produtos"},
	"listing": {"kategorie", "kategorien", "categorie", "categoria", "categorias", "rubrik", "rubrique", "archiv", "archivio", "archivo", "arquivo", "suche", "recherche", "buscar", "cerca", "zoeken"},
	"docs":    {"hilfe", "aide", "ayuda", "aiuto", "ajuda", "dokumentation", "handbuch"},
	"forum":   {"foro", "foros", "discussione", "discussioni"},
	"service": {"leistungen", "dienstleistungen", "prestations", "servicios", "servizi", "servicos", "diensten", "kontakt", "contacto", "contatti", "contato",
		"ueber-uns", "uber-uns", "qui-sommes-nous", "sobre-nosotros", "chi-siamo", "quem-somos", "over-ons"},
}

// reURLNumericID finds a numeric id in a URL path (/item/48213).
var reURLNumericID = quickre.MustCompile(`(?:^|[/_.-])\d{4,}(?:[/_.-]|$)`)

// kindFeatureNames name the model's inputs, in order. Changing them needs
// a retrained model (kindtrain refuses a model whose names differ).
var kindFeatureNames = []string{
	"ld_article", "ld_product", "ld_offer", "ld_faq", "ld_forum", "ld_docs", "ld_business", "ld_list", "ld_howto", "ld_webpage_only",
	"og_article", "og_product", "og_website", "og_none",
	"declared_date", "url_date", "authors",
	"log_words", "log_paras", "para_share", "words_per_para", "link_density", "teaser_heads", "log_head_links", "log_articles", "log_images",
	"log_forms", "log_inputs", "log_buttons", "log_selects", "log_textareas", "log_code", "log_tables", "li_per_link", "log_links", "log_headings", "log_iframes",
	"cue_cart", "cue_sales", "cue_forum", "cue_docs", "cue_story", "cue_listing",
	"url_story", "url_product", "url_listing", "url_docs", "url_forum", "url_service", "url_root", "url_depth", "url_numeric_id", "url_html",
	"prices", "question_title", "title_words",
	"log_times", "we_rate", "you_rate", "cta_rate", "question_heads", "head_per_para", "first_para_dated",
	"rule_article", "rule_listing", "rule_gallery", "rule_other",
	"main_share", "list_share", "short_share",
	"published", // a day from any source: declared_date misses the shown ones, and service pages have neither
}

// kindInputs are what the features are computed from.
type kindInputs struct {
	sig       pageSignals
	counts    pageCounts
	authors   int
	blocks    []block
	text      string
	title     string
	timeTags  int    // <time> elements
	ruleKind  string // classify.go's verdict
	bodyText  int    // non-space runes of the whole body
	published bool   // a publication day from any source, shown ones too
}

// Words counted in the main text, by what they say of the page: a service
// page talks of "we" and "you" and asks to be called.
var (
	rateWords = wordClasses(map[int]string{
		wordWe:  "we our us we're we've",
		wordYou: "you your you're yours",
		wordCTA: "contact call quote schedule consultation pricing price book enroll signup demo hire order trial",
	})

	reTextDated = quickre.MustCompile(`\b(?:(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.? \d{1,2},? (?:19|20)\d\d|\d{1,2} (?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]* (?:19|20)\d\d|(?:19|20)\d\d-\d\d-\d\d)\b`)
)

// hasYear says whether s holds 19dd or 20dd, which every reTextDated
// match does: most openings have none, and the regexp is slow to say so.
func hasYear(s string) bool {
	for i := 0; i+3 < len(s); i++ {
		if (s[i] == '1' && s[i+1] == '9' || s[i] == '2' && s[i+1] == '0') && '0' <= s[i+2] && s[i+2] <= '9' && '0' <= s[i+3] && s[i+3] <= '9' {
			return true
		}
	}
	return false
}

// share is a/b, at most 1 (0 when b is 0).
func share(a, b int) float64 {
	if b <= 0 {
		return 0
	}
	return math.Min(float64(a)/float64(b), 1)
}

// The word classes of rateWords.
const (
	wordWe = iota + 1
	wordYou
	wordCTA
)

func wordClasses(classes map[int]string) map[string]int {
	m := map[string]int{}
	for class, words := range classes {
		for _, w := range strings.Fields(words) {
			m[w] = class
		}
	}
	return m
}

// wordRates are the shares of text's words in each class of rateWords.
// Words are runs of letters and apostrophes; only short ASCII words can be
// in the classes, and they are lower-cased in a fixed buffer.
func wordRates(text string) (we, you, cta float64) {
	var n, nWe, nYou, nCTA int
	var buf [10]byte
	count := func(w string) {
		n++
		if len(w) > len(buf) {
			return
		}
		for i := 0; i < len(w); i++ {
			c := w[i]
			if c >= 0x80 {
				return
			}
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			buf[i] = c
		}
		switch rateWords[string(buf[:len(w)])] {
		case wordWe:
			nWe++
		case wordYou:
			nYou++
		case wordCTA:
			nCTA++
		}
	}
	start := -1
	for i, r := range text {
		if unicode.IsLetter(r) || r == '\'' {
			if start < 0 {
				start = i
			}
		} else if start >= 0 {
			count(text[start:i])
			start = -1
		}
	}
	if start >= 0 {
		count(text[start:])
	}
	if n == 0 {
		return 0, 0, 0
	}
	return float64(nWe) / float64(n), float64(nYou) / float64(n), float64(nCTA) / float64(n)
}

// countPrices counts currency amounts in text ("$12", "€ 9", "15 €"), at
// most limit. The signs are found by their UTF-8 bytes: strings.IndexAny
// with multi-byte signs decodes every rune, and made this a quarter of
// the page-kind features' time.
func countPrices(text string, limit int) int {
	n := 0
	digit := func(i int) bool { return i >= 0 && i < len(text) && text[i] >= '0' && text[i] <= '9' }
	for at := 0; at < len(text) && n < limit; at++ {
		size := currencySign(text[at:])
		if size == 0 {
			continue
		}
		after := at + size
		if after < len(text) && text[after] == ' ' {
			after++
		}
		before := at - 1
		if before >= 0 && text[before] == ' ' {
			before--
		}
		if digit(after) || digit(before) {
			n++
		}
		at += size - 1
	}
	return n
}

// currencySign is the byte length of the $, €, £ or ¥ that s opens with,
// or 0.
func currencySign(s string) int {
	switch {
	case s[0] == '$':
		return 1
	case s[0] == 0xC2 && len(s) > 1 && (s[1] == 0xA3 || s[1] == 0xA5): // £ ¥
		return 2
	case s[0] == 0xE2 && len(s) > 2 && s[1] == 0x82 && s[2] == 0xAC: // €
		return 3
	}
	return 0
}

// features computes the model's input vector (kindFeatureNames order).
func (in kindInputs) features() []float64 {
	s, c := in.sig, in.counts
	b := func(v bool) float64 {
		if v {
			return 1
		}
		return 0
	}
	lg := func(n int) float64 { return math.Log1p(float64(n)) }
	ty := s.ld.types
	anyType := func(names ...string) bool {
		for _, n := range names {
			if ty[n] {
				return true
			}
		}
		return false
	}
	og := s.ogType
	words := map[string]bool{}
	depth, root, htmlExt := 0, isRootURL(s.pageURL), false
	if u, err := url.Parse(s.pageURL); err == nil {
		segs := strings.FieldsFunc(strings.ToLower(u.Path), func(r rune) bool { return r == '/' })
		depth = len(segs)
		for _, seg := range segs {
			htmlExt = htmlExt || strings.HasSuffix(seg, ".html") || strings.HasSuffix(seg, ".htm") || strings.HasSuffix(seg, ".php")
			for _, w := range strings.FieldsFunc(seg, func(r rune) bool { return r == '-' || r == '_' || r == '.' }) {
				words[w] = true
			}
			words[seg] = true
		}
	}
	urlGroup := func(g string) float64 {
		for _, list := range [...][]string{urlWords[g], foreignURLWords[g]} {
			for _, w := range list {
				if words[w] {
					return 1
				}
			}
		}
		return 0
	}
	cue := func(g string) float64 { return math.Log1p(float64(c.cues[g])) }
	paraShare, perPara, heads, qHeads := 0.0, 0.0, 0, 0
	if len(in.blocks) > 0 {
		paraShare = float64(s.paras) / float64(len(in.blocks))
	}
	mainRunes, items, short := 0, 0, 0
	for _, bl := range in.blocks {
		mainRunes += bl.runes
		if bl.tag == atom.Li {
			items++
		}
		if bl.runes < 40 {
			short++
		}
		if isHeading(bl.tag) {
			heads++
			if strings.HasSuffix(bl.text, "?") {
				qHeads++
			}
		}
	}
	we, you, cta := wordRates(in.text)
	head := in.text
	if len(head) > 600 {
		head = head[:600]
	}
	head = strings.ToLower(head)
	if s.paras > 0 {
		perPara = math.Log1p(float64(s.words) / float64(s.paras))
	}
	liPerLink := 0.0
	if c.links > 0 {
		liPerLink = math.Min(float64(c.listItems)/float64(c.links), 3)
	}
	prices := countPrices(in.text, 50)
	return []float64{
		b(s.ld.articleCounts > 0), b(anyType("product", "productgroup", "individualproduct")), b(anyType("offer", "aggregateoffer", "aggregaterating")),
		b(anyType("faqpage")), b(anyType("qapage", "discussionforumposting", "socialmediaposting", "question", "comment")),
		b(anyType("techarticle", "softwareapplication", "apireference", "softwaresourcecode")),
		b(anyType("service", "localbusiness", "professionalservice", "homeandconstructionbusiness", "store", "organization") && s.ld.articleCounts == 0),
		b(anyType("collectionpage", "itemlist", "searchresultspage", "offercatalog")), b(anyType("howto", "recipe")),
		b(anyType("webpage") && s.ld.articleCounts == 0 && len(ty) <= 4),
		b(strings.HasPrefix(og, "article")), b(strings.Contains(og, "product")), b(og == "website"), b(og == ""),
		b(s.dated), b(urlHasDate(s.pageURL)), b(in.authors > 0),
		lg(s.words), lg(s.paras), paraShare, perPara, s.bodyLinkDens, b(s.teaserHeads >= 3), lg(s.headLinks), lg(s.articles), lg(s.images),
		lg(c.forms), lg(c.inputs), lg(c.buttons), lg(c.selects), lg(c.textareas), lg(c.pre + c.code), lg(c.tables), liPerLink, lg(c.links), lg(c.headings), lg(c.iframes),
		cue("cart"), cue("sales"), cue("forum"), cue("docs"), cue("story"), cue("listing"),
		urlGroup("story"), urlGroup("product"), urlGroup("listing"), urlGroup("docs"), urlGroup("forum"), urlGroup("service"),
		b(root), math.Min(float64(depth), 6), b(reURLNumericID.MatchString(s.pageURL)), b(htmlExt),
		lg(prices), b(strings.Contains(in.title, "?")), lg(countWords(in.title)),
		lg(in.timeTags), we, you, cta, lg(qHeads),
		float64(heads) / float64(s.paras+1), b(hasYear(head) && reTextDated.MatchString(head)),
		b(in.ruleKind == KindArticle), b(in.ruleKind == KindListing), b(in.ruleKind == KindGallery), b(in.ruleKind == KindOther),
		share(mainRunes, in.bodyText), share(items, len(in.blocks)), share(short, len(in.blocks)),
		b(in.published),
	}
}

// KindModel is the page-kind model: a trained multinomial logistic
// regression, as pagekind_model.json holds it (kindtrain writes it).
type KindModel struct {
	Data     string      `json:"data"`     // what it was trained on, and the data's licence
	Command  string      `json:"command"`  // how to train it again
	Features []string    `json:"features"` // kindFeatureNames when trained
	Classes  []string    `json:"classes"`
	Mean     []float64   `json:"mean"`  // standardisation of each feature
	Scale    []float64   `json:"scale"` // (x - mean) / scale
	Weights  [][]float64 `json:"weights"`
	Bias     []float64   `json:"bias"`
	// ArticleFloor is the probability of "article" under which a page the
	// rules call an article is called another kind.
	ArticleFloor float64 `json:"article_floor"`
	// RescueFloor is the probability of "article" over which a page the
	// rules call a listing, gallery or other page is called an article.
	RescueFloor float64 `json:"rescue_floor"`
}

//go:embed pagekind_model.json
var kindModelJSON []byte

// pageKindModel is the embedded model; kindModelErr says why it is nil
// (a model trained on other features: TestPageKindModel_Fits fails, and
// the trainer can still run to make a new one).
var pageKindModel, kindModelErr = loadKindModel(kindModelJSON)

func loadKindModel(raw []byte) (*KindModel, error) {
	var m KindModel
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("article: page-kind model: %w", err)
	}
	if err := m.check(); err != nil {
		return nil, fmt.Errorf("article: page-kind model: %w", err)
	}
	return &m, nil
}

// check reports a model whose shape does not fit kindFeatureNames.
func (m *KindModel) check() error {
	if strings.Join(m.Features, ",") != strings.Join(kindFeatureNames, ",") {
		return fmt.Errorf("trained on other features; run make train-pagekind")
	}
	if len(m.Mean) != len(m.Features) || len(m.Scale) != len(m.Features) || len(m.Weights) != len(m.Classes) || len(m.Bias) != len(m.Classes) {
		return fmt.Errorf("shape does not fit its %d features and %d classes", len(m.Features), len(m.Classes))
	}
	for _, w := range m.Weights {
		if len(w) != len(m.Features) {
			return fmt.Errorf("a class has %d weights for %d features", len(w), len(m.Features))
		}
	}
	return nil
}

// Probabilities maps each class to its probability for feature vector x.
func (m *KindModel) Probabilities(x []float64) map[string]float64 {
	logits := make([]float64, len(m.Classes))
	top := math.Inf(-1)
	for k := range m.Classes {
		z := m.Bias[k]
		for i, v := range x {
			z += m.Weights[k][i] * (v - m.Mean[i]) / m.Scale[i]
		}
		logits[k] = z
		top = math.Max(top, z)
	}
	var sum float64
	for k := range logits {
		logits[k] = math.Exp(logits[k] - top)
		sum += logits[k]
	}
	p := make(map[string]float64, len(m.Classes))
	for k, c := range m.Classes {
		p[c] = logits[k] / sum
	}
	return p
}

// decide applies the model to the rules' verdict. The rules' empty pages
// and videos keep their kind, and so do the pages whose form alone says
// what they are (firm: a main text that is a run of linked headlines, a
// gallery with a caption's worth of words). A page the rules call an
// article stays one while the model's probability of "article" reaches
// ArticleFloor, and otherwise takes the model's likeliest other kind; any
// other page becomes an article when it reaches RescueFloor, and a page
// the rules could only call "other" takes the model's likeliest kind.
func (m *KindModel) decide(isArticle bool, kind string, firm bool, x []float64) (bool, string) {
	if m == nil || firm || kind == KindEmpty || kind == KindVideo {
		return isArticle, kind
	}
	p := m.Probabilities(x)[KindArticle]
	switch {
	case isArticle && p >= m.ArticleFloor, !isArticle && p >= m.RescueFloor:
		return true, KindArticle
	case !isArticle && kind != KindOther: // "other" is the rules' shrug: the model names it
		return false, kind
	}
	return false, m.likeliestOther(x)
}

// likeliestOther is the likeliest class that is not "article".
func (m *KindModel) likeliestOther(x []float64) string {
	best, bestP := KindOther, -1.0
	for c, p := range m.Probabilities(x) {
		if c != KindArticle && (p > bestP || p == bestP && c < best) {
			best, bestP = c, p
		}
	}
	return best
}

// Decide is what Extract makes of a page with this model: its article
// verdict and kind for the page-kind input s (see decide).
func (m *KindModel) Decide(s KindSample) (bool, string) {
	return m.decide(s.IsArticle, s.RuleKind, s.Firm, s.Features)
}

// KindSample is one page's model input, for the trainer.
type KindSample struct {
	Features  []float64 // in KindFeatureNames order
	RuleKind  string    // classify.go's kind before the model
	IsArticle bool      // classify.go's article verdict before the model
	Firm      bool      // the rules' verdict stands whatever the model says
}

// KindFeatureNames returns the names of the page-kind model's features.
func KindFeatureNames() []string { return append([]string(nil), kindFeatureNames...) }

// KindFeatures extracts a page as Extract does and returns the page-kind
// model's input and the rules' verdict, for the trainer (kindtrain).
func KindFeatures(raw []byte, pageURL string, opt Options) (KindSample, error) {
	opt = opt.withDefaults()
	opt.kindSample = &KindSample{}
	if _, err := Extract(raw, pageURL, opt); err != nil {
		return KindSample{}, err
	}
	return *opt.kindSample, nil
}
