package article

import (
	"strings"
	"unicode"
)

// stopwords holds very frequent function words per language; a page's
// language is the one whose list covers most of its words.
var stopwords = map[string][]string{
	"en": {"the", "and", "of", "to", "in", "is", "that", "for", "it", "with", "was", "on", "as", "are", "this", "be", "by", "have", "from", "at", "not", "but", "they", "he", "she", "which", "you", "has", "were", "been"},
	"de": {"der", "die", "und", "das", "ist", "nicht", "ein", "eine", "zu", "den", "mit", "sich", "von", "auf", "dem", "für", "auch", "im", "es", "wird", "des", "dass", "wie", "aus", "bei", "sie", "oder", "nach", "noch"},
	"fr": {"le", "la", "les", "et", "des", "est", "un", "une", "du", "que", "dans", "pour", "qui", "pas", "sur", "au", "plus", "par", "avec", "ce", "il", "sont", "ont", "mais", "aux", "elle", "cette", "nous", "été"},
	"es": {"el", "la", "los", "las", "de", "que", "y", "en", "un", "una", "es", "por", "con", "para", "del", "se", "no", "al", "lo", "como", "más", "pero", "sus", "su", "fue", "este", "ha", "son", "también"},
	"it": {"il", "di", "che", "la", "e", "un", "una", "per", "non", "sono", "con", "del", "della", "le", "gli", "nel", "alla", "si", "da", "anche", "ha", "è", "più", "come", "dei", "questo", "ma", "al", "delle"},
	"pt": {"o", "a", "os", "as", "de", "que", "e", "do", "da", "em", "um", "uma", "para", "com", "não", "no", "na", "por", "mais", "dos", "das", "se", "ao", "como", "foi", "seu", "sua", "são", "também"},
	"nl": {"de", "het", "een", "en", "van", "is", "dat", "op", "te", "in", "voor", "niet", "met", "zijn", "die", "er", "aan", "ook", "als", "maar", "om", "bij", "nog", "wordt", "door", "naar", "werd", "heeft", "dan"},
	"sv": {"och", "att", "det", "som", "en", "är", "av", "för", "med", "till", "den", "har", "de", "inte", "om", "ett", "på", "var", "men", "jag", "från", "vi", "så", "kan", "ska", "hade", "eller", "efter", "sig"},
	"da": {"og", "at", "det", "som", "en", "er", "af", "for", "med", "til", "den", "har", "de", "ikke", "om", "et", "på", "var", "men", "jeg", "fra", "vi", "så", "kan", "skal", "havde", "eller", "efter", "sig"},
	"no": {"og", "i", "det", "som", "en", "er", "av", "for", "med", "til", "den", "har", "de", "ikke", "om", "et", "på", "var", "men", "jeg", "fra", "vi", "så", "kan", "skal", "hadde", "eller", "etter", "seg"},
	"pl": {"i", "w", "nie", "na", "się", "z", "do", "to", "że", "jest", "o", "jak", "ale", "po", "co", "tak", "za", "od", "przez", "już", "czy", "jego", "tym", "są", "oraz", "być", "dla", "ich", "który"},
	"tr": {"ve", "bir", "bu", "da", "de", "için", "ile", "çok", "ne", "daha", "olarak", "gibi", "olan", "en", "ama", "kadar", "sonra", "her", "değil", "mi", "o", "ya", "şey", "var", "ben", "onun", "oldu", "ise", "göre"},
	"id": {"yang", "dan", "di", "ini", "itu", "dengan", "untuk", "tidak", "dari", "dalam", "akan", "pada", "juga", "ke", "karena", "ada", "oleh", "mereka", "bisa", "kami", "sudah", "saya", "atau", "lebih", "telah", "seperti", "tersebut", "hanya", "namun"},
	"ru": {"и", "в", "не", "на", "что", "с", "по", "это", "как", "он", "а", "к", "из", "но", "за", "то", "от", "о", "так", "для", "его", "все", "уже", "она", "был", "бы", "они", "было", "при"},
	"uk": {"і", "в", "не", "на", "що", "з", "та", "це", "як", "до", "у", "за", "він", "й", "від", "але", "про", "для", "його", "вже", "так", "які", "був", "була", "їх", "є", "ще", "щоб", "коли"},
	"ro": {"și", "în", "de", "la", "cu", "a", "care", "nu", "este", "pe", "din", "o", "un", "mai", "pentru", "să", "se", "au", "ca", "fost", "sunt", "dar", "lui", "fi", "prin", "după", "sau", "acest", "această"},
	"cs": {"a", "se", "na", "je", "v", "že", "to", "s", "z", "do", "o", "jako", "ale", "pro", "by", "k", "jsou", "tak", "který", "po", "jeho", "od", "byl", "už", "také", "bude", "až", "při", "když"},
	"hu": {"a", "az", "és", "hogy", "nem", "is", "egy", "meg", "de", "van", "csak", "már", "el", "ki", "még", "mint", "volt", "ez", "azt", "fel", "vagy", "lesz", "kell", "után", "minden", "ha", "mert", "pedig", "szerint"},
	"fi": {"ja", "on", "ei", "se", "että", "oli", "hän", "kun", "mutta", "ovat", "myös", "tai", "jo", "niin", "kuin", "vain", "mukaan", "sen", "ole", "joka", "ovat", "nyt", "sitä", "jos", "voi", "vielä", "hänen", "tämä", "sekä"},
}

// stopIndex maps a word to the languages listing it.
var stopIndex = func() map[string][]string {
	m := map[string][]string{}
	for lang, ws := range stopwords {
		for _, w := range ws {
			m[w] = append(m[w], lang)
		}
	}
	return m
}()

// normLang reduces a language tag ("en-US", "en_GB", "EN") to its primary
// subtag; invalid values give "".
func normLang(s string) string {
	s = strings.TrimSpace(strings.ToLower(s))
	if i := strings.IndexAny(s, "-_,; "); i >= 0 {
		s = s[:i]
	}
	if len(s) < 2 || len(s) > 3 {
		return ""
	}
	for _, c := range s {
		if c < 'a' || c > 'z' {
			return ""
		}
	}
	return s
}

// detectLanguage guesses the language of text: scripts first (CJK, Cyrillic,
// Arabic, ...), then Latin-script stopword frequencies. "" when unsure.
func detectLanguage(text string) string {
	if len(text) > 20000 {
		text = text[:20000]
	}
	var kana, hangul, han, cyr, arabic, hebrew, greek, thai, deva, latin int
	for _, c := range text {
		switch {
		case c < 0x80:
			if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
				latin++
			}
		case unicode.In(c, unicode.Hiragana, unicode.Katakana):
			kana++
		case unicode.Is(unicode.Hangul, c):
			hangul++
		case unicode.Is(unicode.Han, c):
			han++
		case unicode.Is(unicode.Cyrillic, c):
			cyr++
		case unicode.Is(unicode.Arabic, c):
			arabic++
		case unicode.Is(unicode.Hebrew, c):
			hebrew++
		case unicode.Is(unicode.Greek, c):
			greek++
		case unicode.Is(unicode.Thai, c):
			thai++
		case unicode.Is(unicode.Devanagari, c):
			deva++
		case unicode.IsLetter(c):
			latin++
		}
	}
	total := kana + hangul + han + cyr + arabic + hebrew + greek + thai + deva + latin
	if total < 20 {
		return ""
	}
	switch {
	case kana*10 > total:
		return "ja"
	case hangul*3 > total:
		return "ko"
	case han*3 > total:
		return "zh"
	case arabic*2 > total:
		return "ar" // Persian/Urdu share the script; Arabic is the common case
	case hebrew*2 > total:
		return "he"
	case greek*2 > total:
		return "el"
	case thai*2 > total:
		return "th"
	case deva*2 > total:
		return "hi"
	}
	counts := map[string]int{}
	words := 0
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) }) {
		words++
		for _, l := range stopIndex[w] {
			counts[l]++
		}
	}
	best, bestN, second := "", 0, 0
	for l, n := range counts {
		if n > bestN || (n == bestN && l < best) {
			best, bestN, second = l, n, bestN
		} else if n > second {
			second = n
		}
	}
	if words < 5 || bestN*10 < words || bestN == second {
		return ""
	}
	return best
}
