package article

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/newscrawl/newscrawl/internal/quickre"
)

// Text-level vocabulary: whole blocks that are UI text, section headings
// that end the article, and bare datelines.

// boilerplatePhrases are whole short blocks that are UI text, not content
// (compared lower-cased, trailing punctuation removed).
var boilerplatePhrases = map[string]bool{
	"advertisement": true, "advertising": true, "ad": true, "sponsored": true,
	"sponsored content": true, "story continues below": true, "story continues below advertisement": true,
	"continue reading below": true, "article continues below": true, "continue reading": true,
	"read more": true, "read more below": true, "share": true, "share this": true, "share this article": true,
	"share this story": true, "share on facebook": true, "share on twitter": true, "tweet": true,
	"email": true, "print": true, "comments": true, "comment": true, "leave a comment": true,
	"related": true, "related articles": true, "related stories": true, "related content": true,
	"recommended": true, "more from": true, "you may also like": true, "you might also like": true,
	"sign up": true, "subscribe": true, "subscribe now": true, "follow us": true, "skip to content": true,
	"skip to main content": true, "view all": true, "add to cart": true, "add to basket": true, "shop now": true,
	"back to top": true, "click here": true, "loading": true, "scroll to continue with content": true,
	"photo": true, "image": true, "video": true, "getty images": true, "close": true, "menu": true,
	"whatsapp": true, "facebook": true, "twitter": true, "linkedin": true, "pinterest": true, "reddit": true,
	"copy link": true, "link copied": true, "link kopieren": true, "copier le lien": true, "copiar enlace": true, "copia link": true,
	"copiar link": true, "link kopiëren": true, "kopioi linkki": true, "kopiera länk": true, "kopier lenke": true, "kopiuj link": true, "watch now": true, "view comments": true, "show comments": true,
	"we recommend": true, "most popular": true, "most read": true, "trending": true, "top stories": true,
	"tags": true, "topics": true, "filed under": true, "see also": true, "also read": true, "next": true, "previous": true,
	"advert": true, "adverts": true, "this slideshow requires javascript": true, "javascript is disabled": true,
	"sharing is caring": true, "share this post": true, "share this page": true, "print this article": true,
	"end of article": true, "end of story": true, "table of contents": true, "was this article helpful": true, "was this page helpful": true, "was this post helpful": true, "was this helpful": true, "do you like the content of this article": true, "did you like this article": true, "did you enjoy this article": true, "contents": true, "toggle": true, "show more": true, "show less": true,
	"hirdetés": true, "publicitate": true, "διαφήμιση": true, "quảng cáo": true, "إعلان": true, "פרסומת": true, "विज्ञापन": true, "โฆษณา": true,
	"pokračování článku pod reklamou": true, "iklan": true, "reklam": true, "mainos": true, "annonce": true, "publicidade": true, "реклама": true,
	"광고": true, "広告": true, "广告": true, "advertentie": true, "reklame": true,
	"anzeige": true, "werbung": true, "publicité": true, "publicidad": true, "pubblicità": true, "reklama": true,
	"lesen sie auch": true, "lesen sie mehr": true, "mehr zum thema": true, "weiterlesen": true, "teilen": true, "artikel teilen": true,
	"drucken": true, "kommentare": true, "lire aussi": true, "à lire aussi": true, "lire la suite": true, "voir aussi": true,
	"partager": true, "imprimer": true, "commentaires": true, "lee también": true, "leer más": true, "compartir": true,
	"imprimir": true, "comentarios": true, "leggi anche": true, "leggi di più": true, "condividi": true, "commenti": true,
	"leia também": true, "leia mais": true, "veja também": true, "compartilhar": true, "comentários": true,
	"lees ook": true, "lees meer": true, "delen": true, "reacties": true,
	"читать далее": true, "поделиться": true, "комментарии": true, "подписаться": true, "читайте также": true,
	"читайте також": true, "поділитися": true, "коментарі": true, "czytaj też": true, "czytaj także": true,
	"czytaj więcej": true, "zobacz też": true, "zobacz także": true, "udostępnij": true, "komentarze": true,
	"devamını oku": true, "paylaş": true, "yorumlar": true, "ilgili haberler": true, "les også": true, "les mer": true,
	"läs också": true, "läs även": true, "läs mer": true, "læs også": true, "læs mere": true, "kommentarer": true,
	"annonse": true, "annons": true, "baca juga": true, "bagikan": true, "komentar": true, "baca selengkapnya": true,
	"分享": true, "评论": true, "相关阅读": true, "阅读更多": true, "推荐阅读": true, "查看更多": true,
	"シェア": true, "コメント": true, "続きを読む": true, "あわせて読みたい": true, "공유": true, "댓글": true, "더보기": true, "관련기사": true,
}

// isBoilerplateText reports short UI texts that carry no content, between
// dashes too ("- Advertisement -").
func isBoilerplateText(s string) bool {
	if len(s) > 60 {
		return false
	}
	t := strings.ToLower(strings.TrimRight(strings.TrimLeft(strings.TrimSpace(s), "-–—*[( "), ".:!?…>»›→-–—*]) "))
	return boilerplatePhrases[t] || reLoading.MatchString(s) || strings.Contains(t, "min") && reReadingTime.MatchString(s)
}

// maxAffiliateNote is the longest block (runes) read as an affiliate note.
const maxAffiliateNote = 400

// isAffiliateNote reports the note that a page's links earn its owner a
// commission ("Disclosure: This post contains affiliate links …", "As an
// Amazon Associate …"): a label or "this post" and the commission, not a
// story's sentence about affiliate marketing.
func isAffiliateNote(b block) bool {
	if b.runes > maxAffiliateNote || isHeading(b.tag) {
		return false
	}
	low := strings.ToLower(b.text)
	if !strings.Contains(low, "affiliate") && !strings.Contains(low, "commission") && !strings.Contains(low, "qualifying purchases") {
		return false // most blocks
	}
	return reCommission.MatchString(low) && reAffiliateNote.MatchString(low)
}

// reCommission is what an affiliate note is about: affiliate links, a
// commission earned, qualifying purchases ("the European Commission", "an
// ABC affiliate" and "affiliated" are not).
var reCommission = quickre.MustCompile(`\baffiliate (?:links?|ones|marketer|partners?|programs?)\b|\b(?:earn|earns|receive|receives|make|makes|get)\b.{0,30}\bcommissions?\b|\bqualifying purchases\b`)

// reAffiliateNote is an affiliate note's label or its words for the page,
// lower-cased.
var reAffiliateNote = quickre.MustCompile(`^\W*(?:disclosure|disclaimer|editorial note|affiliate disclosure|advertising disclosure)\b|^\W*affiliate links (?:are|may)\b|\b(?:this|our)\s+(?:blog\s+)?(?:post|article|page|site|website|review|guide)\b|\bamazon associate\b`)

// reLoading matches a placeholder that a script replaces once the page has
// loaded: "Loading paragraph...", "Loading reviews…", "Please wait...".
// reReadingTime is a reading time alone on its line ("3 min", "5 min
// read", "8 Minuten Lesezeit", "Lesezeit: 4 Min.").
var reReadingTime = quickre.MustCompile(`(?i)^\W*(?:(?:reading time|read time|lesezeit|temps de lecture|tiempo de lectura|tempo de leitura|tempo di lettura|leestijd):?\s*)?\d{1,3}\s*(?:min|mins|minutes?|minuten|minutos|minuti)\.?(?:\s+(?:read|reading|lesezeit|de lecture|de lectura|de leitura|di lettura|leestijd))?\W*$`)

var reLoading = quickre.MustCompile(`(?i)^\s*(?:loading|please wait)\b.{0,24}(?:\.\.\.|…)\s*$`)

// maxPromo is the longest block (runes) read as a call to action.
const maxPromo = 250

// rePromo matches a call to action set inside a story: a block that opens
// by asking the reader to sign up, subscribe, download or follow something
// of the publisher's (the verb followed by "the", "our", "for" …, so that
// "Download speeds in the app rose" stays prose), that offers to land in the reader's inbox or
// letterbox, that asks for a newsletter sign-up anywhere, or that sells a
// membership ("unlimited access", "become a member", "cancel anytime"), or
// that counts the readers already signed up and mails them ("Join 31,000
// readers who get one email every Tuesday"), or that only promises an
// easy way out ("No spam. Unsubscribe anytime."), or that asks for tips
// ("Got a tip? Contact this reporter via email …"), or that asks for money
// to keep the site "free for all", or to follow a writer's handle
// ("Follow Jane Roe on X @janeroe."), or to subscribe ("Hier kostenlos
// abonnieren.").
var rePromo = quickre.MustCompile(`(?i)^\W*(?:sign(?:ing)? up|subscribe|register|download|install|get|join|follow|listen to|try)\s+(?:now\s+)?(?:for|to|on|up|us|the|our|a|an|free|this|today'?s)\b.{0,80}\b(?:newsletters?|briefings?|inbox|apps?|alerts|podcasts?|digest|updates|emails?|free trial)\b|\b(?:in|to|into) your inbox\b|\b(?:sign up|subscribe) (?:for|to) (?:\S+ ){0,5}newsletters?\b|\bdelivered (?:straight |right |directly )?(?:to|through|into) your (?:inbox|letterbox|door)\b` +
	`|` + foreignNewsletterPromo + `|` + channelPromo + `|\b(?:got|have) a (?:news )?tip\?.{0,80}\b(?:contact|email|reach)\b|\bkeep (?:\S+ ){1,3}free for (?:all|everyone|everybody)\b|^\W*(?:stay|keep) (?:on top of|up to date|informed|in the loop)\b.{0,150}\bnewsletters?\b|^\W*follow\b.{0,80}@\w+\W*$|\b(?:jetzt|hier)(?: kostenlos| gratis)? abonnieren\b|\bunlimited (?:digital )?access\b|\bbecome an? (?:member|subscriber|supporter|patron)\b|\bsupport (?:independent|quality|our|local) journalism\b|\bcancel any ?time\b|^\W*(?:no spam\W+)?unsubscribe (?:any ?time|at any time)\W*$|^[\s*•·-]*join (?:over |more than )?[\d,.]+\s*(?:k|m|million|thousand)?\+? (?:other )?(?:readers|subscribers|people|members)\b.{0,80}\b(?:emails?|inbox|newsletters?|subscribe|unsubscribe)\b`)

// foreignNewsletterPromo asks for a newsletter sign-up, or offers "our"
// newsletter, in Spanish, French, German, Italian, Portuguese and Dutch
// ("Puedes seguir a EL PAÍS Andalucía en Facebook y X, o apuntarte aquí
// para recibir nuestra newsletter semanal"; not "el ministerio recibe el
// boletín oficial").
const foreignNewsletterPromo = `\b(?:suscr[ií]b(?:e|ete|irte)|ap[uú]nt(?:ate|arte)|abonnez-vous|inscrivez-vous|abonnieren sie|melden sie sich|iscriviti|iscriverti|assine|inscreva-se|cadastre-se|schrijf je in|meld je aan)\b.{0,60}\b(?:newsletters?|boletín|boletines)\b` +
	`|\b(?:recib(?:ir|e|a)|recevez|recevoir|erhalten sie|ricevere|ricevi|receber|receba|ontvang(?:en)?)\b.{0,30}\b(?:nuestr[oa]s?|notre|nos|unseren?|nostr[ae]|noss[ao]s?|onze)\b.{0,20}\b(?:newsletters?|boletín|boletines)\b`

// channelPromo asks the reader to follow the publication on a messenger
// channel or Google News: "Follow us on Google News", "Join our WhatsApp
// channel", "Suivez-nous sur WhatsApp", "Únete a nuestro canal … en
// WhatsApp", or a block that writes out a
// channel's invitation link (Kompas: "… WhatsApp Channel :
// https://www.whatsapp.com/channel/…", "klik link https://t.me/…, kemudian
// join"). A story's "residents were told to follow updates on Telegram"
// names no "us"; a Telegram link in a story asks nobody to join.
const channelPromo = `\b(?:(?:follow|join|siga|folgen sie|folge|ikuti|takip edin|obserwuj|śledź)\s+(?:us|uns|kami|bizi|nas)|suivez-nous|síguenos|seguici|folgt uns|volg ons)\b.{0,30}\b(?:whatsapp|telegram|google news|wiadomościach google)\b` +
	`|(?:únete|únase|junte-se|rejoignez)\s.{0,40}\b(?:canal|chaîne)\b.{0,60}\b(?:whatsapp|telegram)\b` +
	`|\bjoin our (?:\S+ ){0,3}(?:whatsapp|telegram) (?:channel|group|community)\b|^\W*(?:subscribe to|follow) (?:\S+ ){1,3}on (?:whatsapp|telegram|google news)\b` +
	`|\b(?:whatsapp\.com/channel/|chat\.whatsapp\.com/|news\.google\.com/publications/|t\.me/(?:\+|joinchat/))` +
	`|\bt\.me/\w+.{0,80}\b(?:join|klik|click)\b|\b(?:join|klik|click)\b.{0,80}\bt\.me/\w`

// isPromo reports short blocks that are a call to action, not content.
func isPromo(b block) bool {
	return b.runes <= maxPromo && !isHeading(b.tag) && promoText(b.text)
}

// promoVerbs open a call to action; promoWords are in every other kind.
// Checked before rePromo, which is slow on the many blocks that are
// neither (most of a story).
var (
	promoVerbs = []string{"sign", "subscribe", "register", "download", "install", "get", "join", "follow", "listen", "try"}
	promoWords = []string{"inbox", "newsletter", "free for", "abonnieren", "boletín", "boletines", "delivered", "unlimited", "become a", "journalism", "cancel any", "unsubscribe", "tip?", "whatsapp", "telegram", "t.me/", "google news", "wiadomościach google"}
)

// promoText reports text that rePromo matches.
func promoText(s string) bool {
	low := strings.ToLower(s)
	lead := strings.TrimLeftFunc(low, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	maybe := slices.ContainsFunc(promoVerbs, func(v string) bool { return strings.HasPrefix(lead, v) }) ||
		slices.ContainsFunc(promoWords, func(w string) bool { return strings.Contains(low, w) })
	return maybe && rePromo.MatchString(s)
}

// reStrongEnd matches headings that introduce other stories or comments.
var reStrongEnd = quickre.MustCompile(`(?i)^(?:related(?: articles| stories| content| posts| news| coverage| reading)?|you (?:may|might) (?:also )?(?:like|enjoy|be interested in)|recommended(?: for you| stories| articles| reading)?|more (?:stories|news|articles)(?: like this)?|(?:\d+ )?comments?|leave a (?:comment|reply)|(?:post|add) a comment|what to read next|editor'?s picks|popular (?:posts|stories|articles)|most (?:popular|read|viewed|shared|emailed)(?: (?:stories|articles|posts|now|today|this week))?|trending(?: now| stories)?` +
	`|você (?:pode|também pode) gostar|veja também|(?:artigos|notícias|posts) relacionad[oa]s|(?:también )?te puede interesar|noticias relacionadas|sur le même sujet|articles similaires|das könnte sie auch interessieren|potrebbe interessarti|articoli correlati|похожие (?:статьи|записи)|самые популярные.*|関連記事|関連ニュース|相关文章|相关新闻|相關新聞|관련\s?뉴스|(?:\d+ )?(?:` + commentsIn + `))$`)

// commentsIn is "comments" as a heading writes it in German, French,
// Spanish, Italian, Portuguese, Dutch, Russian, Ukrainian, Polish,
// Turkish, the Nordic languages, Japanese and Korean: plurals only, since
// a German "Kommentar" over a story marks it an opinion piece.
const commentsIn = `kommentare|commentaires|comentarios|commenti|comentários|reacties|комментарии|коментарі|komentarze|yorumlar|kommentarer|コメント|댓글`

// reEndHeading matches headings that start trailing boilerplate sections.
var reEndHeading = quickre.MustCompile(`(?i)^(?:related(?: articles| stories| content| posts| news| coverage| links| reading)?|more (?:from|on|in|stories|news|articles|coverage)\b.*|read (?:more|next|also)\b.*|recommended(?: for you| stories| articles| reading)?|you (?:may|might) (?:also )?(?:like|enjoy|be interested in).*|(?:leave a |post a |add a )?(?:comments?|reply|replies|responses?)\b.*|\d+ (?:comments?|responses?|replies)|share (?:this|the)\b.*|about the authors?|trending(?: now| stories)?|most (?:popular|read|viewed|shared)\b.*|popular (?:posts|stories|articles)|latest (?:news|stories|posts|articles)|top stories|editor'?s picks|sign up\b.*|subscribe\b.*|newsletter|don'?t miss\b.*|what to read next|further reading|see also|tags?|topics?|categories|filed under|more\b.{0,30}\b(?:stories|news|articles|posts|coverage|reads)` +
	`|você (?:pode|também pode) gostar.*|veja também|leia também|(?:artigos|notícias|posts) relacionad[oa]s|` +
	`(?:también )?te puede interesar|noticias relacionadas|(?:à )?lire aussi|sur le même sujet|articles similaires|` +
	`das könnte sie auch interessieren|mehr zum thema|weitere artikel|potrebbe interessarti|articoli correlati|leggi anche|` +
	`похожие (?:статьи|записи)|читайте также|関連記事|相关文章|관련\s?기사|` +
	`(?:\d+ )?(?:` + commentsIn + `|komentar|评论)|` +
	`この記事を書いた人|関連ニュース|ニュースレター|コメントプラス|相关新闻|相關新聞|관련\s?뉴스|` +
	`читайте також|czytaj (?:też|także)|zobacz (?:też|także)|ilgili haberler|les også|läs (?:också|även)|læs også|baca juga|相关阅读|推荐阅读|あわせて読みたい)$`)

// dateWords are the words a dateline may hold besides numbers: true for
// those that date it (a month, a weekday, a zone's abbreviation), false
// for labels and the parts of a time ("10 p.m." alone is no dateline). A
// month named in another language dates a line when its name is spelled
// out; abbreviated, it is allowed beside a year ("02 Ago 2017"); and it
// is no dateline word where it is a word or a name in English or its
// own language: "Set 1: 6-4", "Gen 2", "Mars 2020" and "Maja 2024" stay
// in the text.
var dateWords = func() map[string]bool {
	m := map[string]bool{}
	for _, zone := range strings.Fields("est edt cst cdt mst mdt pst pdt akst akdt hst cet cest bst eet eest msk aest aedt acst awst nzst nzdt jst kst hkt sgt") {
		m[zone] = true
	}
	for _, w := range strings.Fields("am pm a p m gmt utc et ct mt pt st nd rd th updated published posted on at last modified " +
		"uhr stand um vom le à el de il op las alle às om em datum fecha segunda terça quarta quinta sexta feira " +
		"veröffentlicht erschienen aktualisiert publié publiée mis jour publicado publicada actualizado actualizada " +
		"pubblicato pubblicata aggiornato modifica modificato modificata modifié modifiée modificado modificada geändert atualizado atualizada gepubliceerd bijgewerkt " +
		"опубликовано опубліковано обновлено оновлено г opublikowano zaktualizowano yayınlandı güncellendi " +
		"publisert oppdatert publicerad uppdaterad publiceret opdateret diterbitkan diperbarui " +
		"发布时间 發佈時間 发布于 发表于 更新时间 更新時間 公開日 投稿日 更新日 配信 입력 수정 " +
		"نشر نشرت في تاريخ النشر بتاريخ آخر تحديث محدث ص م פורסם פורסמה תאריך עודכן עדכון " +
		"publikováno publikované aktualizováno aktualizované publicat actualizat julkaistu päivitetty klo " +
		"δημοσιεύθηκε δημοσίευση ενημερώθηκε ενημέρωση प्रकाशित अपडेट") {
		m[w] = false
	}
	for w := range englishMonths {
		m[w] = true
	}
	for w := range foreignMonths {
		m[w] = utf8.RuneCountInString(w) >= 5 || strings.IndexFunc(w, func(r rune) bool { return r > unicode.MaxASCII }) >= 0
	}
	for _, w := range weekdays {
		m[w] = true
	}
	// Words that are months or weekdays and also common words or names:
	// "Maja 2024", "Pazar 2024", "Minggu 1" (a week) are content.
	for _, w := range strings.Fields("set gen mag mars mayo") {
		delete(m, w)
	}
	for w := range besideADay {
		delete(m, w)
	}
	return m
}()

// datePrepositions are the date words that mean "on" or "in": before a
// year alone they open a heading.
var datePrepositions = map[string]bool{"on": true, "في": true, "am": true, "le": true, "el": true, "il": true, "op": true, "em": true, "vom": true, "um": true, "à": true, "at": true}

// besideADay are months' and weekdays' names that are also words or names
// ("Maja", "Pazar", "Minggu" is a week), read as a date's only beside a
// day's number and with a year: "12 maja 2024", "Senin, 12 Agustus 2024".
var besideADay = map[string]bool{
	"maja": true, "maj": true, "mart": true, "ocak": true, "ekim": true, "luty": true,
	"pazar": true, "cuma": true, "senin": true, "rabu": true, "kamis": true, "sabtu": true, "minggu": true,
}

// reCJKDate is a word that is a year, its month or its day in Chinese,
// Japanese or Korean and nothing else ("2024年3月12日", "2024년");
// "2024年度财务报告" is a heading.
var reCJKDate = quickre.MustCompile(`^(?:19|20)\d\d(?:年(?:\d{1,2}月(?:\d{1,2}日)?)?|년)$`)

// cjkPunct says whether r is punctuation of the CJK blocks, which splits
// a CJK date from its label ("发布时间：2016年10月14日"). Other punctuation
// stays in its word: "2019–2024" is a range, no dateline.
func cjkPunct(r rune) bool {
	return unicode.IsPunct(r) && (r >= 0x3000 && r <= 0x303f || r >= 0xff00 && r <= 0xffef)
}

// isDateline reports short blocks made only of a date/time stamp.
func isDateline(s string) bool {
	if len(s) > 80 {
		return false
	}
	words := strings.FieldsFunc(foldDigits(strings.ToLower(s)), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 0x7f && !cjkPunct(r) && r != '،' && !unicode.IsSpace(r))
	})
	isDay := func(i int) bool {
		return i >= 0 && i < len(words) && len(words[i]) <= 2 && words[i][0] >= '0' && words[i][0] <= '9'
	}
	numbers, prepositions, year, named := 0, 0, false, false
	for i, w := range words {
		if w[0] >= '0' && w[0] <= '9' {
			numbers++
			year = year || len(w) == 4 && (w[:2] == "19" || w[:2] == "20")
			named = named || reCJKDate.MatchString(w)
			continue
		}
		dates, ok := dateWords[w]
		if _, besideDay := besideADay[w]; besideDay && (isDay(i-1) || isDay(i+1)) {
			ok = true // the year dates the line: "Maja, 5" is a name and an age
		}
		if !ok {
			return false
		}
		named = named || dates
		if datePrepositions[w] {
			prepositions++
		}
	}
	// A bare time ("10 p.m.") may be a live-blog entry heading, and a year
	// after a preposition alone a section's ("في 1948", "on 1948"): keep
	// them. "Published 2024" is a stamp.
	headingYear := numbers == 1 && prepositions > 0 && prepositions == len(words)-1
	return numbers > 0 && (named || year && !headingYear)
}
