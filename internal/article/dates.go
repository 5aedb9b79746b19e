package article

import (
	"cmp"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/newscrawl/newscrawl/internal/quickre"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// dateLayouts are tried in order on a trimmed date string.
var dateLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05Z0700",
	"2006-01-02T15:04:05.999999999Z0700",
	"2006-01-02T15:04Z07:00",
	"2006-01-02T15:04:05",
	"2006-01-02T15:04:05.999999999",
	"2006-01-02T15:04",
	"2006-01-02 15:04:05Z07:00",
	"2006-01-02 15:04:05 Z0700",
	"2006-01-02 15:04:05 -07:00",
	"2006-01-02 15:04:05 MST",
	"2006-01-02 15:04:05",
	"2006-01-02 15:04",
	"2006-01-02",
	"2006/01/02 15:04:05",
	"2006/01/02",
	"20060102",
	"2006-01",
	time.RFC1123Z,
	time.RFC1123,
	time.RFC850,
	time.ANSIC,
	"Mon, 2 Jan 2006 15:04:05 -0700",
	"Mon, 2 Jan 2006 15:04:05 MST",
	"Mon Jan 2 2006 15:04:05 GMT-0700",
	"January 2, 2006 3:04 PM",
	"January 2, 2006 15:04",
	"January 2, 2006",
	"Jan 2, 2006 3:04 PM",
	"Jan 2, 2006",
	"Jan. 2, 2006",
	"2 January 2006 15:04",
	"2 January 2006",
	"2 Jan 2006",
	"02.01.2006 15:04",
	"02.01.2006",
	"2006 Jan 2", // citation_publication_date, as scholarly pages write it
	"2006 Jan",
}

var (
	// reURLDate finds /2019/11/19/, /2019-11-19/ or /20191119/ style path dates.
	reURLDate = quickre.MustCompile(`(?:^|[/_-])((?:19|20)\d\d)[/_-]?(0[1-9]|1[0-2])[/_-]?(0[1-9]|[12]\d|3[01])(?:[/_.+-]|$)`)
	// reURLNamedDate finds /2023/october/03/.
	reURLNamedDate = quickre.MustCompile(`(?i)/((?:19|20)\d\d)/(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*/(0?[1-9]|[12]\d|3[01])(?:[/_.+-]|$)`)
	// reURLMonth finds /2019/11/ when no day is present.
	reURLMonth = quickre.MustCompile(`/((?:19|20)\d\d)/(0[1-9]|1[0-2])/`)
	// reISOInText finds an ISO-like date inside free text.
	reISOInText = quickre.MustCompile(`((?:19|20)\d\d)-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])(?:[T ](\d\d):(\d\d)(?::(\d\d))?)?`)
	reSpaces    = quickre.MustCompile(`\s+`)
)

// parseDate parses the date formats seen in metadata; it rejects years far
// outside the web's lifetime to avoid misreading ids as dates.
func parseDate(s string) *time.Time {
	s = strings.TrimSpace(reSpaces.ReplaceAllString(s, " "))
	if len(s) < 6 || len(s) > 64 {
		return nil
	}
	// Seconds since the epoch.
	if n, err := strconv.ParseInt(s, 10, 64); err == nil && len(s) >= 9 {
		if len(s) >= 13 {
			n /= 1000
		}
		t := time.Unix(n, 0).UTC()
		return plausible(t)
	}
	s2 := strings.TrimSuffix(strings.TrimSuffix(s, " UTC"), " GMT")
	if strings.HasSuffix(s, " UTC") || strings.HasSuffix(s, " GMT") {
		s2 += "Z"
		s2 = strings.Replace(s2, " ", "T", 1)
	}
	for _, cand := range []string{s, s2} {
		for _, l := range dateLayouts {
			if t, err := time.Parse(l, cand); err == nil {
				return plausible(t)
			}
		}
	}
	if m := reISOInText.FindStringSubmatch(s); m != nil {
		return dateFromParts(m[1], m[2], m[3], m[4], m[5], m[6])
	}
	return nil
}

// plausible keeps dates between 1990 and a year from now.
func plausible(t time.Time) *time.Time {
	if t.Year() < 1990 || t.After(time.Now().AddDate(1, 0, 0)) {
		return nil
	}
	return &t
}

// notAfter drops a date later than the fetch (zero: now): a future day is
// a scheduled or mistyped stamp, and none is better than a wrong one. A
// day's slack keeps a date given without its zone, read as UTC midnight,
// from a place ahead of UTC.
func notAfter(t *time.Time, fetched time.Time) *time.Time {
	if fetched.IsZero() {
		fetched = time.Now()
	}
	if t != nil && t.After(fetched.Add(24*time.Hour)) {
		return nil
	}
	return t
}

// dateFromParts builds a UTC date from numeric strings (empty time parts = 0).
func dateFromParts(y, mo, d, h, mi, sec string) *time.Time {
	num := func(s string) int {
		n, _ := strconv.Atoi(s)
		return n
	}
	t := time.Date(num(y), time.Month(num(mo)), num(d), num(h), num(mi), num(sec), 0, time.UTC)
	if t.Day() != num(d) || int(t.Month()) != num(mo) {
		return nil // e.g. 31 February, or a 13th month
	}
	return plausible(t)
}

// urlDate extracts a publication date from the URL path; a path that
// names only the month (/2019/11/) gives its first day with dayKnown false.
func urlDate(u string) (t *time.Time, dayKnown bool) {
	if i := strings.Index(u, "://"); i >= 0 {
		u = u[i+3:]
	}
	if i := strings.IndexByte(u, '/'); i >= 0 {
		u = u[i:]
	} else {
		return nil, false
	}
	if m := reURLDate.FindStringSubmatch(u); m != nil {
		t := dateFromParts(m[1], m[2], m[3], "", "", "")
		return t, t != nil
	}
	if m := reURLNamedDate.FindStringSubmatch(u); m != nil {
		t := dateFromParts(m[1], monthNumbers[strings.ToLower(m[2])], m[3], "", "", "")
		return t, t != nil
	}
	if m := reURLMonth.FindStringSubmatch(u); m != nil {
		return dateFromParts(m[1], m[2], "01", "", "", ""), false
	}
	return nil, false
}

// urlHasDate reports whether the URL path names a month or a day (a
// feature of the page-kind model, trained with both).
func urlHasDate(u string) bool {
	t, _ := urlDate(u)
	return t != nil
}

// reShownDate finds a day written for people in a dated element's text
// (lower-cased): "march 12, 2025", "sep 1st, 2023", "dec 28 sat 2013",
// "12 nov 2025", "2025-12-17", "2025.12.17", "2019/1/22", "23.07.2025"
// (with dots the day comes first, unless the second number is above 12:
// "2.23.2025"; never after a version's mark: "version 3.15.2026"),
// "2/24/2026" and "24-2-2026" (with slashes or dashes, an order one
// number settles: above 12 is the day), "2024年3月12日" and "2024년 3월
// 12일" (Chinese, Japanese, Korean); rarer forms are reRareDate's.
// "03/10/2023" is read only where the page's language settles the order
// (shownDate's slashes). The day first, the month may be named
// in any language of monthNumbers, and the day written as those languages
// write it ("12. märz 2024", "1er mars 2024", "12 de marzo de 2024"); the
// month first, as English writes it, only in English (englishMonth: "gen
// 6, 2022" is a product's generation, "set 6, 2019" a match).
var reShownDate = quickre.MustCompile(`(?:^|[^a-z0-9])(?:` +
	englishMonth + `\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(?:(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*\.?,?\s+)?((?:19|20)\d\d)` +
	`|(\d{1,2})` + dayMark + `(?:of\s+|de\s+)?` + shownMonth + `\.?,?\s+(?:de\s+)?((?:19|20)\d\d)` +
	`|((?:19|20)\d\d)(?:[-/.]|\s*[年년]\s*)(\d{1,2})(?:[-/.]|\s*[月월]\s*)(\d{1,2})(?:[^0-9]|$)` +
	`|(\d{1,2})\.(\d{1,2})\.((?:19|20)\d\d)(?:[^0-9]|$)` +
	`|(\d{1,2})[/-](\d{1,2})[/-]((?:19|20)\d\d)(?:[^0-9]|$))`)

// reRareDate is the forms reShownDate leaves to a second look, as few
// pages write them and each submatch costs its every search: the year
// first before a Hungarian or Lithuanian month, a Thai month before a
// Buddhist-era year, and a year of two digits, this century's ("14.03.23",
// "06/03/19", "3/14/23"). With dots or dashes the day and the month are
// two digits each, as versions, model numbers and standings seldom write
// them ("2.1.24", "Bruins 3-1-24"), and not in brackets ("(25-12-10)").
// Its submatches follow reShownDate's (rareGroups).
var reRareDate = quickre.MustCompile(`(?:^|[^a-z0-9(])(?:` +
	`((?:19|20)\d\d)(?:\.|\s+m\.)\s+(` + monthAlternation(yearFirstMonths) + `)\.?\s+(\d{1,2})(?:\.|\s+d\.)` +
	`|(\d{1,2})\s+(` + monthAlternation(thaiMonths) + `)\s*((?:25|19|20)\d\d)(?:[^0-9]|$)` +
	`|(\d\d)\.(\d\d)\.(\d\d)(?:[^0-9.]|\.?$|\.\s)` +
	`|(\d{1,2})/(\d{1,2})/(\d\d)(?:[^0-9/-]|$)` +
	`|(\d\d)-(\d\d)-(\d\d)(?:[^0-9/)-]|$))`)

// rareGroups is where reRareDate's first submatch stands in shownDay's
// numbering: after reShownDate's fifteen.
const rareGroups = 16

// findShownDate is the bounds of the first day reShownDate finds in text
// and of its submatches, or else reRareDate's, numbered as shownDay reads
// them; nil if neither finds one.
func findShownDate(text string) []int {
	n := rareGroups + reRareDate.NumSubexp()
	loc := reShownDate.FindStringSubmatchIndex(text)
	if loc == nil {
		rare := reRareDate.FindStringSubmatchIndex(text)
		if rare == nil {
			return nil
		}
		loc = slices.Repeat([]int{-1}, 2*rareGroups)
		loc[0], loc[1] = rare[0], rare[1]
		loc = append(loc, rare[2:]...)
	}
	for len(loc) < 2*n {
		loc = append(loc, -1)
	}
	return loc
}

// shownDateIndex is the bounds of the first day reShownDate finds in t,
// or else reRareDate's, or nil.
func shownDateIndex(t string) []int {
	if loc := reShownDate.FindStringIndex(t); loc != nil {
		return loc
	}
	return reRareDate.FindStringIndex(t)
}

// englishMonth is a month named in English, known by its first three
// letters: "sept", "december", and the many languages whose names begin
// as English ones do ("marzo", "juni", "augusti", "maret").
const (
	englishMonth     = `(` + englishMonthName + `)`
	englishMonthName = `(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*`
)

// monthWords are the names of monthNumbers that englishMonth reads, as
// whole words, the longest first: where a name may stand before a day
// ("Jane Novak 12 May"), "nov" must not read a surname.
var monthWords = func() string {
	english := quickre.MustCompile(`^` + englishMonth + `$`)
	var names []string
	for n := range monthNumbers {
		if english.MatchString(n) {
			names = append(names, n)
		}
	}
	slices.SortFunc(names, func(a, b string) int { return cmp.Or(len(b)-len(a), strings.Compare(a, b)) })
	for i, n := range names {
		names[i] = regexp.QuoteMeta(n)
	}
	return strings.Join(names, "|")
}()

// shownMonth is englishMonth or one of monthNumbers' other names.
var shownMonth = `(` + englishMonthName + `|` + monthAlternation(otherMonths()) + `)`

// monthAlternation is a pattern of names' keys, quoted: Thai
// abbreviations hold dots.
func monthAlternation(names map[string]string) string {
	keys := slices.Sorted(maps.Keys(names))
	for i, k := range keys {
		keys[i] = regexp.QuoteMeta(k)
	}
	return strings.Join(keys, "|")
}

// dayMark is what follows a day before its month: "12 ", "12th ", "1er ",
// "1 er " (a <sup>'s text apart), "12. " or "12.".
const dayMark = `(?:\.\s*|\s?(?:st|nd|rd|th|er)\s+|\s+)`

// otherMonths are the names of foreignMonths that englishMonth does not
// read ("mai", "août", "março").
func otherMonths() map[string]string {
	english := quickre.MustCompile(`^` + englishMonth + `$`)
	m := map[string]string{}
	for name, n := range foreignMonths {
		if !english.MatchString(name) {
			m[name] = n
		}
	}
	return m
}

// monthNumber is the number of a month shownMonth matched: by its name,
// or by its first three letters.
func monthNumber(name string) string {
	if n, ok := monthNumbers[name]; ok {
		return n
	}
	return monthNumbers[name[:3]]
}

// englishMonths are the English months' names and abbreviations.
var englishMonths = map[string]string{
	"jan": "1", "january": "1", "feb": "2", "february": "2", "mar": "3", "march": "3", "apr": "4", "april": "4",
	"may": "5", "jun": "6", "june": "6", "jul": "7", "july": "7", "aug": "8", "august": "8",
	"sep": "9", "sept": "9", "september": "9", "oct": "10", "october": "10", "nov": "11", "november": "11", "dec": "12", "december": "12",
}

// monthNumbers are the months' names and abbreviations in English,
// German, French, Spanish, Italian, Portuguese and Dutch, lower-cased.
var monthNumbers = func() map[string]string {
	m := maps.Clone(englishMonths)
	for _, names := range []map[string]string{foreignMonths, yearFirstMonths, thaiMonths} {
		maps.Copy(m, names)
	}
	return m
}()

// yearFirstMonths are the months' names and abbreviations in Hungarian
// and Lithuanian, which write the year first ("2024. március 5.", "2024
// m. kovo 5 d."), and thaiMonths Thai's, with a Buddhist-era year after
// them ("5 มี.ค. 2567"): reRareDate reads each in its own order only.
var (
	yearFirstMonths = map[string]string{
		"január": "1", "jan": "1", "február": "2", "febr": "2", "március": "3", "márc": "3", "április": "4", "ápr": "4", "május": "5", "máj": "5",
		"június": "6", "jún": "6", "július": "7", "júl": "7", "augusztus": "8", "aug": "8", "szeptember": "9", "szept": "9",
		"október": "10", "okt": "10", "november": "11", "nov": "11", "december": "12", "dec": "12",
		"sausio": "1", "vasario": "2", "kovo": "3", "balandžio": "4", "gegužės": "5", "birželio": "6", "liepos": "7",
		"rugpjūčio": "8", "rugsėjo": "9", "spalio": "10", "lapkričio": "11", "gruodžio": "12",
	}
	thaiMonths = map[string]string{
		"มกราคม": "1", "กุมภาพันธ์": "2", "มีนาคม": "3", "เมษายน": "4", "พฤษภาคม": "5", "มิถุนายน": "6", "กรกฎาคม": "7",
		"สิงหาคม": "8", "กันยายน": "9", "ตุลาคม": "10", "พฤศจิกายน": "11", "ธันวาคม": "12",
		"ม.ค.": "1", "ก.พ.": "2", "มี.ค.": "3", "เม.ย.": "4", "พ.ค.": "5", "มิ.ย.": "6", "ก.ค.": "7", "ส.ค.": "8", "ก.ย.": "9",
		"ต.ค.": "10", "พ.ย.": "11", "ธ.ค.": "12",
	}
)

// foreignMonths are the months' names and abbreviations in German,
// French, Spanish, Italian, Portuguese and Dutch, and the names (Russian's
// abbreviations too) in Russian, Ukrainian, Polish, Turkish, the Nordic
// languages, Indonesian and Malay, Czech and Slovak, Romanian, Finnish,
// Greek, Hindi, Arabic and Hebrew, where englishMonth does not read
// them ("marca", "augusti" and "maret" begin as English months do, and
// are listed for isDateline).
// Abbreviations such as Indonesian "des" are left out: they are words too.
var foreignMonths = map[string]string{
	"января": "1", "январь": "1", "янв": "1", "февраля": "2", "февраль": "2", "фев": "2", "марта": "3", "март": "3",
	"апреля": "4", "апрель": "4", "апр": "4", "мая": "5", "май": "5", "июня": "6", "июнь": "6", "июн": "6",
	"июля": "7", "июль": "7", "июл": "7", "августа": "8", "август": "8", "авг": "8", "сентября": "9", "сентябрь": "9", "сен": "9", "сент": "9",
	"октября": "10", "октябрь": "10", "окт": "10", "ноября": "11", "ноябрь": "11", "ноя": "11", "нояб": "11", "декабря": "12", "декабрь": "12", "дек": "12",
	"січня": "1", "лютого": "2", "березня": "3", "квітня": "4", "травня": "5", "червня": "6",
	"липня": "7", "серпня": "8", "вересня": "9", "жовтня": "10", "листопада": "11", "грудня": "12",
	"stycznia": "1", "styczeń": "1", "lutego": "2", "luty": "2", "kwietnia": "4", "kwiecień": "4", "maja": "5", "maj": "5",
	"czerwca": "6", "czerwiec": "6", "lipca": "7", "lipiec": "7", "sierpnia": "8", "sierpień": "8", "września": "9", "wrzesień": "9",
	"października": "10", "październik": "10", "listopada": "11", "listopad": "11", "grudnia": "12", "grudzień": "12",
	"ocak": "1", "şubat": "2", "nisan": "4", "haziran": "6", "temmuz": "7", "ağustos": "8", "eylül": "9", "ekim": "10", "kasım": "11", "aralık": "12",
	"desember": "12", "agustus": "8", "ogos": "8", "disember": "12",
	// Arabic: the names Egypt and the Gulf use, spelt with and without
	// hamza, and the Levant's.
	"يناير": "1", "فبراير": "2", "مارس": "3", "أبريل": "4", "ابريل": "4", "إبريل": "4", "مايو": "5", "يونيو": "6", "يونيه": "6",
	"يوليو": "7", "يوليه": "7", "أغسطس": "8", "اغسطس": "8", "سبتمبر": "9", "أكتوبر": "10", "اكتوبر": "10", "نوفمبر": "11", "ديسمبر": "12",
	"كانون الثاني": "1", "شباط": "2", "آذار": "3", "نيسان": "4", "أيار": "5", "ايار": "5", "حزيران": "6", "تموز": "7", "آب": "8",
	"أيلول": "9", "ايلول": "9", "تشرين الأول": "10", "تشرين الاول": "10", "تشرين الثاني": "11", "كانون الأول": "12", "كانون الاول": "12",
	// Czech and Slovak, Romanian, Finnish, Greek (the genitive a day
	// takes), Hindi.
	"ledna": "1", "února": "2", "března": "3", "dubna": "4", "května": "5", "června": "6", "července": "7", "srpna": "8",
	"září": "9", "října": "10", "listopadu": "11", "prosince": "12",
	"januára": "1", "februára": "2", "apríla": "4", "mája": "5", "júna": "6", "júla": "7", "augusta": "8",
	"septembra": "9", "októbra": "10", "novembra": "11", "decembra": "12",
	"ianuarie": "1", "februarie": "2", "martie": "3", "aprilie": "4", "iunie": "6", "iulie": "7", "septembrie": "9",
	"octombrie": "10", "noiembrie": "11", "decembrie": "12",
	"tammikuuta": "1", "helmikuuta": "2", "maaliskuuta": "3", "huhtikuuta": "4", "toukokuuta": "5", "kesäkuuta": "6",
	"heinäkuuta": "7", "elokuuta": "8", "syyskuuta": "9", "lokakuuta": "10", "marraskuuta": "11", "joulukuuta": "12",
	"ιανουαρίου": "1", "φεβρουαρίου": "2", "μαρτίου": "3", "απριλίου": "4", "μαΐου": "5", "ιουνίου": "6", "ιουλίου": "7",
	"αυγούστου": "8", "σεπτεμβρίου": "9", "οκτωβρίου": "10", "νοεμβρίου": "11", "δεκεμβρίου": "12",
	"जनवरी": "1", "फ़रवरी": "2", "फरवरी": "2", "मार्च": "3", "अप्रैल": "4", "मई": "5", "जून": "6", "जुलाई": "7", "अगस्त": "8",
	"सितंबर": "9", "सितम्बर": "9", "अक्टूबर": "10", "अक्तूबर": "10", "नवंबर": "11", "नवम्बर": "11", "दिसंबर": "12", "दिसम्बर": "12",
	// Hebrew, alone and after "ב" ("12 במרץ 2024").
	"ינואר": "1", "פברואר": "2", "מרץ": "3", "מרס": "3", "אפריל": "4", "מאי": "5", "יוני": "6", "יולי": "7", "אוגוסט": "8",
	"ספטמבר": "9", "אוקטובר": "10", "נובמבר": "11", "דצמבר": "12",
	"בינואר": "1", "בפברואר": "2", "במרץ": "3", "במרס": "3", "באפריל": "4", "במאי": "5", "ביוני": "6", "ביולי": "7", "באוגוסט": "8",
	"בספטמבר": "9", "באוקטובר": "10", "בנובמבר": "11", "בדצמבר": "12",
	// Croatian (but "listopada": October there, November in Polish),
	// Estonian, Bengali. (Malay's "Mac" is left out: "13 Mac 2019" is a
	// product's name as often.)
	"siječnja": "1", "veljače": "2", "ožujka": "3", "travnja": "4", "svibnja": "5", "lipnja": "6", "srpnja": "7",
	"kolovoza": "8", "rujna": "9", "studenoga": "11", "studenog": "11", "prosinca": "12",
	"jaanuar": "1", "veebruar": "2", "märts": "3", "aprill": "4", "juuni": "6", "juuli": "7", "oktoober": "10", "detsember": "12",
	"জানুয়ারি": "1", "ফেব্রুয়ারি": "2", "মার্চ": "3", "এপ্রিল": "4", "মে": "5", "জুন": "6", "জুলাই": "7", "আগস্ট": "8",
	"সেপ্টেম্বর": "9", "অক্টোবর": "10", "নভেম্বর": "11", "ডিসেম্বর": "12",
	// Read by englishMonth already; listed so a dateline knows them.
	"marca": "3", "marzec": "3", "mart": "3", "mayıs": "5", "marts": "3", "maret": "3", "augusti": "8",
	"januar": "1", "jänner": "1", "januari": "1", "janvier": "1", "janv": "1", "enero": "1", "ene": "1", "gennaio": "1", "gen": "1", "janeiro": "1",
	"februar": "2", "februari": "2", "février": "2", "fevrier": "2", "févr": "2", "fév": "2", "febrero": "2", "febbraio": "2", "fevereiro": "2", "fev": "2",
	"märz": "3", "mär": "3", "mrz": "3", "maart": "3", "mrt": "3", "mars": "3", "marzo": "3", "março": "3",
	"avril": "4", "avr": "4", "abril": "4", "abr": "4", "aprile": "4",
	"mai": "5", "mei": "5", "mayo": "5", "maggio": "5", "mag": "5", "maio": "5",
	"juni": "6", "juin": "6", "junio": "6", "giugno": "6", "giu": "6", "junho": "6",
	"juli": "7", "juillet": "7", "juil": "7", "julio": "7", "luglio": "7", "lug": "7", "julho": "7",
	"augustus": "8", "août": "8", "aout": "8", "agosto": "8", "ago": "8",
	"septembre": "9", "septiembre": "9", "setiembre": "9", "settembre": "9", "sett": "9", "setembro": "9", "set": "9",
	"oktober": "10", "okt": "10", "octobre": "10", "octubre": "10", "ottobre": "10", "ott": "10", "outubro": "10",
	"novembre": "11", "noviembre": "11", "novembro": "11",
	"dezember": "12", "dez": "12", "décembre": "12", "decembre": "12", "déc": "12", "diciembre": "12", "dic": "12", "dicembre": "12", "dezembro": "12",
}

// shownDate is the first day reShownDate (or else reRareDate) finds in
// text, or nil, at the time of day written after it (or before it: "3:45
// PM EST, March 5, 2024") where that names its zone (withClock). slashes
// says how the page's language orders a slashed date's day and month. A
// line that gives the updated day first gives its published day
// ("Updated March 6 · Published March 5").
func shownDate(text string, slashes slashOrder) *time.Time {
	text = foldDigits(strings.ToLower(text))
	loc := findShownDate(text)
	if loc == nil {
		return nil
	}
	if loc[0] >= 6 && len(text)-loc[1] >= 6 && reUpdated.MatchString(text[:loc[0]]) { // each word is 6 bytes or more
		if p := rePublishedWord.FindStringIndex(text[loc[1]:]); p != nil {
			if d := shownDate(text[loc[1]+p[1]:], slashes); d != nil {
				return d
			}
		}
	}
	m := make([]string, len(loc)/2)
	for i := range m {
		if loc[2*i] >= 0 {
			m[i] = text[loc[2*i]:loc[2*i+1]]
		}
	}
	if m[10] != "" && reVersionLead.MatchString(text[:loc[20]]) || m[22] != "" && reVersionLead.MatchString(text[:loc[44]]) {
		return nil // "Version 3.15.2026", "1.3.15.2026": a release, no day
	}
	for _, g := range []int{22, 25, 28} { // a two-digit year's
		if m[g] != "" && afterWord(text[:loc[2*g]]) {
			return nil // "Node 18.12.20": a name's number, not a day
		}
	}
	day := shownDay(m, slashes)
	if day == nil && slashes == slashesUnknown {
		day = slashedByWeekday(m, text[:loc[0]])
	}
	if t := withClock(day, text[loc[1]:]); t != day { // withClock gives day itself where no clock follows
		return t
	}
	if pre := text[:loc[0]]; strings.IndexByte(pre, ':') >= 0 {
		if c := reClockBefore.FindStringSubmatch(pre); c != nil {
			return withClock(day, c[1])
		}
	}
	return day
}

var (
	// rePublishedWord labels a line's published day, lower-cased, as
	// reUpdated its updated day.
	rePublishedWord = quickre.MustCompile(`published|posted|veröffentlicht|erschienen|publiée?|publicad[oa]|pubblicato|gepubliceerd|опубликовано|опубліковано|opublikowano|yayınlandı|publisert|publicerad|publiceret|diterbitkan|发布时间|发布于|发表于|發佈時間|公開日|投稿日|입력`)
	// reClockBefore is a time of day with its zone just before a day,
	// a weekday between ("3:45 pm est, tue march 5"); after a bar the
	// time is another thing's ("Watch live at 7:00 PM ET | March 5").
	reClockBefore = quickre.MustCompile(`(?:^|[^\d.:])(\d{1,2}:\d{2}\s*(?:[ap]\.?\s?m\.?)?\s*(?:utc|gmt|[a-z]{2,5}))[\s,]*(?:` + weekday + `\.?,?\s*)?$`)
)

// slashOrder is how a page writes a slashed date's day and month.
type slashOrder int

const (
	slashesUnknown slashOrder = iota // "03/05/2024" is not read
	dayFirst                         // 5 March
	monthFirst                       // March 5
)

// slashedByWeekday reads a slashed date whose order is unknown by the
// weekday named just before it: in Drupal's default "Tue, 03/05/2024 -
// 10:12" the day is March 5, a Tuesday (May 3 was a Friday). It is nil
// where no English weekday stands there, or neither order or both give
// it.
func slashedByWeekday(m []string, pre string) *time.Time {
	pre = strings.TrimRight(pre, " ,")
	i := strings.LastIndexFunc(pre, func(r rune) bool { return !unicode.IsLetter(r) })
	wd, ok := englishWeekdays[strings.TrimSuffix(pre[i+1:], ".")]
	if !ok {
		return nil
	}
	var day *time.Time
	for _, order := range []slashOrder{monthFirst, dayFirst} {
		if d := shownDay(m, order); d != nil && d.Weekday() == wd {
			if day != nil {
				return nil // both orders fall on it ("Tue, 12/03/2024")
			}
			day = d
		}
	}
	return day
}

// englishWeekdays are the English names and abbreviations of weekdays.
var englishWeekdays = map[string]time.Weekday{
	"sun": time.Sunday, "sunday": time.Sunday, "mon": time.Monday, "monday": time.Monday,
	"tue": time.Tuesday, "tues": time.Tuesday, "tuesday": time.Tuesday, "wed": time.Wednesday, "wednesday": time.Wednesday,
	"thu": time.Thursday, "thur": time.Thursday, "thurs": time.Thursday, "thursday": time.Thursday,
	"fri": time.Friday, "friday": time.Friday, "sat": time.Saturday, "saturday": time.Saturday,
}

// slashOrderOf is the slashOrder of a page in lang: the day first in
// every language but English, those that write the year first and
// Filipino; in English, the day first where a region other than the
// United States, the Philippines or Canada says so. "en-US" says
// little: sites the world over keep it as their software's default, and
// write their own order.
func slashOrderOf(lang string) slashOrder {
	lang = strings.ToLower(strings.ReplaceAll(strings.TrimSpace(lang), "_", "-"))
	switch base, region, _ := strings.Cut(lang, "-"); {
	case normLang(base) == "":
		return slashesUnknown
	case base == "en" && (region == "" || region == "us" || region == "ph" || region == "ca"):
		return slashesUnknown
	case base == "zh" || base == "ja" || base == "ko" || base == "hu" || base == "lt" || base == "fa" || base == "fil" || base == "tl":
		return slashesUnknown
	}
	return dayFirst
}

// foldDigits writes Arabic-Indic, Persian, Devanagari and Bengali digits
// as ASCII ones ("١٢ مارس ٢٠٢٤" is "12 مارس 2024"), so that the day
// patterns read them. Persian pages count years from the Hijra (۱۴۰۳):
// no day is read there.
func foldDigits(s string) string {
	return strings.Map(func(r rune) rune {
		for _, zero := range nativeZeros {
			if r >= zero && r <= zero+9 {
				return '0' + r - zero
			}
		}
		return r
	}, s)
}

// nativeZeros are the zeros of the digit sets foldDigits reads.
var nativeZeros = [...]rune{'٠', '۰', '०', '০'}

// afterWord says whether pre, the text before a date, ends in a word that
// is no date label ("Node " before "18.12.20"; "Publisert: " and "Posted "
// are labels).
func afterWord(pre string) bool {
	pre = strings.TrimRight(pre, " ")
	i := strings.LastIndexFunc(pre, func(r rune) bool { return !unicode.IsLetter(r) })
	last := pre[i+1:]
	return last != "" && !reDateLine.MatchString(last)
}

// reVersionLead is what makes the dotted number after it a release's
// version, not a day.
var reVersionLead = quickre.MustCompile(`(?:\b(?:version|ver|release|build|firmware|model|python|kernel|ios|android|section)[.:]?\s*|\d\.)$`)

// shownDay is the day of reShownDate's submatches m.
func shownDay(m []string, slashes slashOrder) *time.Time {
	switch {
	case m[1] != "":
		return dateFromParts(m[3], monthNumber(m[1]), m[2], "", "", "")
	case m[5] != "":
		return dateFromParts(m[6], monthNumber(m[5]), m[4], "", "", "")
	case m[7] != "":
		if strings.ContainsAny(m[0], "年년") && !strings.HasSuffix(m[0], "日") && !strings.HasSuffix(m[0], "일") {
			return nil // "2024년 3월 12개 기업": twelve companies, no day
		}
		return dateFromParts(m[7], m[8], m[9], "", "", "")
	case m[10] != "":
		return dotted(m[10], m[11], m[12])
	case m[22] != "":
		return dotted(m[22], m[23], "20"+m[24]) // "14.03.23": this century's
	case m[25] != "":
		return slashed(m[25], m[26], "20"+m[27], slashes)
	case m[28] != "":
		return slashed(m[28], m[29], "20"+m[30], slashes)
	case m[16] != "":
		return dateFromParts(m[16], monthNumber(m[17]), m[18], "", "", "")
	case m[19] != "":
		if year, _ := strconv.Atoi(m[21]); year > 2400 {
			m[21] = strconv.Itoa(year - 543) // the Buddhist era's year
		}
		return dateFromParts(m[21], monthNumber(m[20]), m[19], "", "", "")
	}
	return slashed(m[13], m[14], m[15], slashes)
}

// dotted is the day a dotted date writes, the day first unless the second
// number is above 12 ("2.23.2025").
func dotted(a, b, year string) *time.Time {
	if month, _ := strconv.Atoi(b); month > 12 {
		return dateFromParts(year, a, b, "", "", "")
	}
	return dateFromParts(year, b, a, "", "", "")
}

// slashed is the day a slashed or dashed date writes: in the order a
// number above 12 settles, or else the page's language (slashes).
func slashed(a, b, year string, slashes slashOrder) *time.Time {
	x, _ := strconv.Atoi(a)
	y, _ := strconv.Atoi(b)
	switch {
	case x > 12 && y <= 12:
		return dateFromParts(year, b, a, "", "", "")
	case y > 12 && x <= 12:
		return dateFromParts(year, a, b, "", "", "")
	case slashes == dayFirst:
		return dateFromParts(year, b, a, "", "", "")
	case slashes == monthFirst:
		return dateFromParts(year, a, b, "", "", "")
	}
	return nil
}

// reClock is a time of day and its zone written just after a shown date
// ("10:07 AM EST", "at 3:15 p.m. ET", "14:30 CET", "13h36 UTC+2", "à
// 14h05", "klo 10.15 EET", "10時15分", "10:15 Uhr", after Russian's "г."
// for the year: a word that is no zone is read as none).
var reClock = quickre.MustCompile(`^\s*(?:(?:г\.?|года),?\s*)?(?:[,|/·•@–—-]\s*)?(?:(?:at|à|um|a las|alle|às|om|klo)\s+)?(\d{1,2})(?:[:h.]|時|시\s?)(\d{2})(?::\d{2}|分|분)?\s*(?:([ap])\.?\s?m\.?)?\s*\(?(?:(utc|gmt)\s*([+-]\d{1,2})(?::?(\d{2}))?|([a-z]{2,5}))?(?:\b|$)`)

// clockZones are the offsets, in minutes east of UTC, of the zone names
// news pages write after a time. Names used for two zones (IST) are left
// out: a time without its zone gives only its day.
var clockZones = map[string]int{
	"utc": 0, "gmt": 0, "wet": 0, "bst": 60, "west": 60, "cet": 60, "cest": 120, "eet": 120, "eest": 180, "msk": 180, "sast": 120,
	"et": -300, "est": -300, "edt": -240, "ct": -360, "cst": -360, "cdt": -300, "mt": -420, "mst": -420, "mdt": -360,
	"pt": -480, "pst": -480, "pdt": -420, "akst": -540, "akdt": -480, "hst": -600,
	"jst": 540, "kst": 540, "hkt": 480, "sgt": 480, "awst": 480, "acst": 570, "aest": 600, "aedt": 660, "nzst": 720, "nzdt": 780,
}

// zoneNames are clockZones' names as bylines write them, in capitals.
func zoneNames() string {
	var names []string
	for z := range clockZones {
		names = append(names, strings.ToUpper(z))
	}
	slices.Sort(names)
	return strings.Join(names, "|")
}

// usRegions are the zone names that mean standard or summer time by the
// date: "10:07 AM ET" in July is EDT.
var usRegions = map[string]bool{"et": true, "ct": true, "mt": true, "pt": true}

// usSummer says whether day falls in US daylight saving time: from the
// second Sunday of March to the first Sunday of November.
func usSummer(day time.Time) bool {
	sunday := func(month time.Month, nth int) time.Time {
		first := time.Date(day.Year(), month, 1, 0, 0, 0, 0, time.UTC)
		return first.AddDate(0, 0, (7-int(first.Weekday()))%7+7*(nth-1))
	}
	d := time.Date(day.Year(), day.Month(), day.Day(), 0, 0, 0, 0, time.UTC)
	return !d.Before(sunday(time.March, 2)) && d.Before(sunday(time.November, 1))
}

// withClock sets day's time from the clock at the start of rest when the
// clock names its zone; a time without one gives only its day, since the
// page's offset is unknown.
func withClock(day *time.Time, rest string) *time.Time {
	m := reClock.FindStringSubmatch(rest)
	if day == nil || m == nil {
		return day
	}
	h, mi, ok := clockOf(m)
	if !ok {
		return day
	}
	var off int
	switch {
	case m[4] != "":
		hours, _ := strconv.Atoi(m[5])
		mins, _ := strconv.Atoi(m[6])
		off = hours * 60
		if hours < 0 {
			mins = -mins
		}
		off += mins
	case m[7] != "":
		z, ok := clockZones[m[7]]
		if !ok {
			return day
		}
		off = z
		if usRegions[m[7]] && usSummer(*day) {
			off += 60
		}
	default:
		return day
	}
	t := time.Date(day.Year(), day.Month(), day.Day(), h, mi, 0, 0, time.FixedZone("", off*60))
	return &t
}

// wallClock is the time of day a shown date line gives after its date
// without naming a zone ("12.09.2024, 00.40 Uhr", "Sep 12, 2024 at 12:40
// AM"): the clock on the wall where the story was published.
func wallClock(line string) (hour, minute int, ok bool) {
	low := strings.ToLower(line)
	loc := shownDateIndex(low)
	if loc == nil {
		return 0, 0, false
	}
	m := reClock.FindStringSubmatch(low[loc[1]:])
	if m == nil || m[4] != "" {
		return 0, 0, false
	}
	if _, zone := clockZones[m[7]]; zone {
		return 0, 0, false
	}
	return clockOf(m)
}

// clockOf is the 24-hour time of a reClock match, false for an hour or a
// minute no clock shows.
func clockOf(m []string) (hour, minute int, ok bool) {
	h, _ := strconv.Atoi(m[1])
	mi, _ := strconv.Atoi(m[2])
	if h > 23 || mi > 59 || m[3] != "" && (h < 1 || h > 12) {
		return 0, 0, false
	}
	switch {
	case m[3] == "p" && h < 12:
		h += 12
	case m[3] == "a" && h == 12:
		h = 0
	}
	return h, mi, true
}

// Near the headline, a line that is a date and at most a label is the
// story's date on many pages whose markup names no date ("<p
// class="text-muted">December 15, 2025</p>" under the <h1>, "Published
// on: February 14, 2025"). The window is a few elements before the first
// headline (a date above it) and more after it (a byline row first; with
// share buttons and an author's avatar between, "Published March 9, 2026"
// came 32 elements after it).
const (
	dateLinesBefore = 8
	dateLinesAfter  = 40
)

// maxDateLine is the longest date line read, in bytes: both days and
// their times ("Publié le 1er août 2023 à 14h05, mis à jour le 2 août
// 2023 à 09h10"). The line must be days and labels alone, so a longer
// bound lets in no sentence.
const maxDateLine = 100

// dateLabel is what a date line may hold beside the date: a label of
// publication, a reading time and punctuation. "Updated" is not one: an
// updated stamp is not the publication day, and dates only a story that
// shows no other (pageMeta.updatedDay).
var dateLabel = `(?:` + dateLabelWords + `)*`

// dateLabelWords are dateLabel's words, one of which it repeats.
var dateLabelWords = `published|posted|date|on|` + publishedIn + `|` + weekday + `|г|года|\d+\s*min(?:ute)?s?(?:\s*read)?|ص|م|[\s:：|,،.•·—–-]`

// publishedIn is "published on" and "date" in German, French, Spanish,
// Italian, Portuguese, Dutch, Russian, Ukrainian, Polish, Turkish, the
// Nordic languages, Indonesian, Czech, Slovak, Romanian, Finnish, Greek,
// Hindi, Arabic, Hebrew, Chinese, Japanese and Korean.
const publishedIn = `veröffentlicht|erschienen|am|vom|datum|publiée?|mis en ligne|le|publicad[oa]|el|em|fecha|data|pubblicato|il|gepubliceerd|op|` +
	`опубликовано|опубліковано|дата|opublikowano|yayınlanma|yayınlandı|tarihi?|publisert|publicerad|publiceret|diterbitkan|` +
	`نشر|نشرت|في|تاريخ|النشر|بتاريخ|פורסם|פורסמה|תאריך|publikováno|publikované|publicat|julkaistu|δημοσιεύθηκε|δημοσίευση|प्रकाशित|` +
	`发布时间|發佈時間|发布于|发表于|发布|發布|發表|时间|時間|公開日|投稿日|配信|입력|등록`

// updatedIn is "updated" in the languages of publishedIn.
const updatedIn = `aktualisiert|mis à jour|actualizad[oa]|atualizad[oa]|aggiornat[oa]|bijgewerkt|` +
	`обновлено|оновлено|zaktualizowano|aktualizacja|güncellendi|güncelleme|oppdatert|uppdaterad|opdateret|diperbarui|` +
	`آخر تحديث|تحديث|محدث|עודכן|עדכון|aktualizováno|aktualizované|actualizat|päivitetty|ενημερώθηκε|ενημέρωση|अपडेट|` +
	`更新时间|更新時間|更新日|更新于|更新|수정`

// weekday is a day's name before its date ("Tuesday 3 March 2024",
// "Montag, 4. Dezember 2023").
var weekday = `(?:` + strings.Join(weekdays, "|") + `)`

// weekdays are the days' names in the languages of publishedIn but
// Hebrew, Japanese and Korean, and English's abbreviations, lower-cased.
var weekdays = strings.Fields(`mon monday tue tues tuesday wed wednesday thu thur thurs thursday fri friday sat saturday sun sunday
	montag dienstag mittwoch donnerstag freitag samstag sonnabend sonntag lundi mardi mercredi jeudi vendredi samedi dimanche
	lunes martes miércoles jueves viernes sábado domingo lunedì martedì mercoledì giovedì venerdì sabato domenica
	segunda-feira terça-feira quarta-feira quinta-feira sexta-feira maandag dinsdag woensdag donderdag vrijdag zaterdag zondag
	понедельник вторник среда четверг пятница суббота воскресенье poniedziałek wtorek środa czwartek piątek sobota niedziela
	pazartesi salı çarşamba perşembe cuma cumartesi pazar mandag tirsdag onsdag torsdag fredag lørdag søndag måndag tisdag lördag söndag
	senin selasa rabu kamis jumat sabtu minggu الأحد الاحد الاثنين الإثنين الثلاثاء الأربعاء الاربعاء الخميس الجمعة السبت
	星期一 星期二 星期三 星期四 星期五 星期六 星期日 星期天 周一 周二 周三 周四 周五 周六 周日`)

// leadClock is a time of day before a date line's day ("10:15 AM March
// 14, 2023"), which reDateLead admits as a label.
const leadClock = `\d{1,2}[:.]\d{2}(?:\s*[ap]\.?\s?m\.?)?`

var (
	// reDateLine is what stands after a date line's day, and reDateLead
	// what stands before it: the same, or a publication label behind a
	// word or two ("Essay - Published:", the story's kind or section), a
	// writer's credit ("Posted by Jane Roe on", "By Jane Roe |"), or a
	// time of day among labels (leadClock).
	reDateLine = quickre.MustCompile(`^` + dateLabel + `$`)
	reDateLead = quickre.MustCompile(`^(?:(?:` + dateLabelWords + `|` + leadClock + `)*|(?:\pL+[\s|•·—–-]+){1,2}(?:published|posted)(?:\s+on)?\s*:?|(?:posted|published|written|submitted)\s+by\s+[^|•·]{2,60}?\s+on(?:\s+` + weekday + `\.?,?)?|by(?:\s+[^\s|•·,:;]+){1,4}\s*[|•·—–-]?)$`)
	// reUpdatedLine is what an updated stamp's line may hold beside its day.
	reUpdatedLine = quickre.MustCompile(`^(?:last|updated|on|date|` + updatedIn + `|am|le|el|em|il|op|г|года|\d+\s*min(?:ute)?s?(?:\s*read)?|[\s:：|,.•·—–-])*$`)
	// reUpdatedAfterDay is an updated stamp's label after a date line's
	// day ("| Last updated: ", ", aktualisiert am"), its own day to follow
	// (afterDateLine).
	reUpdatedAfterDay = quickre.MustCompile(`^[\s|,.•·—–-]*(?:(?:last\s+)?(?:updated|modified)(?:\s+on)?|(?:` + updatedIn + `)(?:\s+(?:am|le|el|em|il|op))?)\s*[:：]?\s*`)
	// reUpdated is the word of an updated stamp, lower-cased.
	reUpdated = quickre.MustCompile(`updated|modified|` + updatedIn)
)

// dateLinesNearHeadline returns the texts of the elements around the
// first <h1> whose own short text is a date line, in document order, but
// none inside a comment, a teaser or other chrome (a reply's date), in a
// quote (an embedded post's date) or in the site's menus (inPageChrome).
func (pm *pageMeta) dateLinesNearHeadline() []string {
	return pm.linesNearHeadline(reDateLead, reDateLine)
}

// linesNearHeadline is dateLinesNearHeadline with what the lines may hold
// before and after their day.
func (pm *pageMeta) linesNearHeadline(lead, rest *quickre.Regexp) []string {
	nodes, h := pm.nodes, pm.firstH1
	if h < 0 {
		return nil
	}
	var lines []string
	for _, n := range nodes[max(h-dateLinesBefore, 0):min(h+dateLinesAfter, len(nodes))] {
		if n.DataAtom == atom.H1 || !ownTextHasDigit(n) {
			continue
		}
		t := foldDigits(strings.ToLower(shortText(n, maxDateLine)))
		loc := shownDateIndex(t)
		if loc == nil {
			continue
		}
		if pre := strings.TrimSpace(t[:loc[0]]); (lead.MatchString(pre) && !pm.othersCredit(pre) || creditLead(n, pre, lead)) && rest.MatchString(afterDateLine(t[loc[1]:])) &&
			!pm.inChrome(n) && !inQuote(n) && !pm.inPageChrome(n) && !namesToday(n) && !inDataTable(n) && !inCaption(n) && !pm.inTeaser(n) {
			lines = append(lines, t)
		}
	}
	return lines
}

// othersCredit reports a date line's lead, lower-cased, that credits by
// "by" another writer than the page's first credit (its byline, else the
// first credit line by the headline): a card's "By Jane Roe | March 1"
// under the story's "By Dana Whitfield".
func (pm *pageMeta) othersCredit(pre string) bool {
	name, ok := strings.CutPrefix(pre, "by ")
	if !ok {
		return false
	}
	name = strings.TrimRight(name, " |•·—–-")
	var first string
	if len(pm.bylines) > 0 {
		first = pm.bylines[0]
	} else if len(pm.creditedNearHeadline) > 0 {
		first = pm.creditedNearHeadline[0]
	} else {
		return false
	}
	first = strings.ToLower(first)
	return !strings.Contains(first, name) && !strings.Contains(name, first)
}

// creditLead reports a date line's lead, lower-cased, that opens with the
// credit of a link within the line to its writer's page, and holds after
// it what lead admits ("<a href="/author/jane-roe">Jane Roe</a> · 4 min
// read · March 5, 2024").
func creditLead(n *html.Node, pre string, lead *quickre.Regexp) bool {
	pre, by := strings.CutPrefix(pre, "by ")
	for d := range n.Descendants() {
		if d.DataAtom != atom.A {
			continue
		}
		name, _, account := writerLink(d)
		if name = strings.ToLower(name); name != "" && (!account || by) && strings.HasPrefix(pre, name) && lead.MatchString(strings.TrimSpace(pre[len(name):])) {
			return true
		}
	}
	return false
}

// inTeaser reports a date beside a link to another story: a related
// list's or a card's ("<li><a href=…>Council approves new cycling lanes
// after debate</a> <time>Sep 17</time></li>"). The teaser is a small block
// (teaserText) around the date, not what holds the headline; its link
// reads as a headline (five words or more) and leads to no author, tag or
// category page, and the date is not inside it (a permalink's date is the
// story's).
func (pm *pageMeta) inTeaser(n *html.Node) bool {
	p := n.Parent
	for depth := 0; p != nil && depth < teaserDepth; p, depth = p.Parent, depth+1 {
		if p.Type != html.ElementNode || p.DataAtom == atom.Body || p.DataAtom == atom.Main || pm.h1Holders[p] || pm.followsHeadline(p) || shortText(p, teaserText) == "" {
			return false
		}
		if pm.headlineLinkBeside(p, n) {
			return true
		}
	}
	return false
}

// followsHeadline says whether n stands just after the page's first h1,
// two elements between at most: the story's own meta line, whatever its
// links lead to ("In <a>Local News and Community Events</a> · March 3").
func (pm *pageMeta) followsHeadline(n *html.Node) bool {
	if pm.firstH1 < 0 {
		return false
	}
	h1 := pm.nodes[pm.firstH1]
	steps := 0
	for s := n.PrevSibling; s != nil && steps < 3; s = s.PrevSibling {
		if s.Type != html.ElementNode {
			continue
		}
		if s == h1 || pm.h1Holders[s] {
			return true
		}
		steps++
	}
	return false
}

const (
	teaserDepth = 4   // ancestors inTeaser looks through
	teaserText  = 400 // bytes of text a teaser holds at most
)

// headlineLinkBeside reports a link at or below p whose text reads as
// another story's headline (inTeaser): beside n, or around it with five
// words more than n's (a card wrapped in its link; a permalink around the
// date alone is the story's own).
func (pm *pageMeta) headlineLinkBeside(p, n *html.Node) bool {
	headline := func(c *html.Node) bool {
		text := rawText(c)
		words := countWords(text)
		if contains(c, n) {
			words -= countWords(rawText(n))
		}
		href := attr(c, "href")
		return words >= 5 && !isTopicPath(href) && !isAuthorPage(href) && pm.linksSibling(href) && !pm.isOwnHeadline(text)
	}
	if p.DataAtom == atom.A {
		return headline(p)
	}
	found := false
	walkElements(p, func(c *html.Node) bool {
		if found {
			return false
		}
		if c.DataAtom != atom.A {
			return true
		}
		found = headline(c)
		return false
	})
	return found
}

// linksSibling reports a link to another story of the site: a path that
// ends in a story's slug or number (reStorySlug), not the page itself (its
// address or its canonical one, whatever the scheme, the query or a
// trailing slash; "#comments"), not away ("Share this story on Facebook"),
// and not a section's page ("Back to all news and press releases": /news/).
// A page whose address is unknown has no siblings.
func (pm *pageMeta) linksSibling(href string) bool {
	base, err := url.Parse(cmp.Or(pm.pageURL, pm.canonical))
	if err != nil {
		return false
	}
	u, err := base.Parse(href)
	if err != nil || base.Host == "" || !sameSite(u.Host, base.Host) || !reStorySlug.MatchString(u.Path) {
		return false
	}
	for _, self := range []string{pm.pageURL, pm.canonical} {
		if s, err := base.Parse(self); err == nil && self != "" && sameSite(s.Host, u.Host) && strings.TrimSuffix(s.Path, "/") == strings.TrimSuffix(u.Path, "/") {
			return false
		}
	}
	return true
}

// reStorySlug is the end of a story's path: a slug of three words or more
// ("/council-approves-new-cycling-lanes"), or a number of five digits or
// more ("/story/7027012", "/a54ef-1392021.html").
var reStorySlug = quickre.MustCompile(`[^/]+[-_][^/]+[-_][^/]+/?$|\d{5}[^/]*/?$`)

// isOwnHeadline says whether a link's text is the page's own headline (a
// permalink on a page whose address is a short link).
func (pm *pageMeta) isOwnHeadline(text string) bool {
	for _, t := range append([]string{pm.htmlTitle, pm.get("og:title")}, pm.h1s...) {
		if t != "" && (sameWords(text, t) || containsFold(t, cleanInline(text))) {
			return true
		}
	}
	return false
}

// sameSite says whether two hosts are one, but for "www.".
func sameSite(a, b string) bool {
	return strings.EqualFold(strings.TrimPrefix(a, "www."), strings.TrimPrefix(b, "www."))
}

// inDataTable reports an element in a table that heads its columns (a
// <th>): a date there is data ("1/1/2013 | +13.1%"), not the story's.
// A page laid out in a table heads none.
func inDataTable(n *html.Node) bool {
	for p := n; p != nil; p = p.Parent {
		if p.Type == html.ElementNode && p.DataAtom == atom.Table {
			return holds(p, atom.Th)
		}
	}
	return false
}

// namesToday reports a date its element or that element's parent names
// as today's: a masthead's "Friday, December 19, 2025".
func namesToday(n *html.Node) bool {
	for i := 0; i < 2 && n != nil; i, n = i+1, n.Parent {
		if names := strings.ToLower(attr(n, "class") + " " + attr(n, "id")); strings.Contains(names, "today") || strings.Contains(names, "current-date") {
			return true
		}
	}
	return false
}

// afterDateLine is what stands after a date line's day once its time of
// day, an updated stamp and a writer's credit are cut ("3 March 2024 10.00
// GMT", "Published: March 3, 2024 | Last updated: March 5, 2024", "Posted
// on March 3, 2024 by Jane Roe"): none makes the line something other
// than a date line.
func afterDateLine(s string) string {
	s = withoutClock(s)
	if m := reUpdatedAfterDay.FindStringIndex(s); m != nil {
		if d := shownDateIndex(s[m[1]:]); d != nil && d[0] == 0 {
			s = s[:m[0]] + withoutClock(s[m[1]+d[1]:])
		}
	}
	s = reCreditAfterDay.ReplaceAllString(s, "")
	return strings.TrimSpace(s)
}

// withoutClock cuts the time of day s opens with (reClock), but the word
// of a credit that reClock read as a zone: in "at 10:12 by jane roe" the
// credit is reCreditAfterDay's.
func withoutClock(s string) string {
	m := reClock.FindStringSubmatchIndex(s)
	if m == nil {
		return s
	}
	if z := m[14]; z >= 0 && slices.Contains(creditWords, s[z:m[15]]) && !reNoWriter.MatchString(s[m[15]:]) {
		return s[z:]
	}
	return s[m[1]:]
}

// reNoWriter opens what follows "by" and names no writer: a place or a
// way ("6:40 pm by the old harbour wall", "by video conference").
var reNoWriter = quickre.MustCompile(`^\s+(?:the|a|an|our|video|phone|mail|email|appointment)\b`)

// creditWords open reCreditAfterDay's credit: "by" and its French,
// Spanish and Portuguese, German, Dutch and Italian words.
var creditWords = []string{"by", "par", "por", "von", "door", "di"}

// reCreditAfterDay is a writer's credit after a date line's day, lower-cased:
// "by" (or par, por, von, door, di) and one or two names of two to four
// words, or a site's account ("by admin"), to the end or a separator ("by
// jane roe | 5 min read"); a longer run after "by" is a sentence, a
// shorter one a deadline ("by midnight").
var reCreditAfterDay = quickre.MustCompile(`^[\s,]*(?:` + strings.Join(creditWords, "|") + `)\s+(?:` + creditName + `(?:\s+(?:and|&|et|y|und|en|e)\s+` + creditName + `)?|admin|administrator|editor|staff|webmaster)\s*(?:$|[,|•·])`)

// creditName is a name in reCreditAfterDay: two to four words (five
// run into a sentence: "on March 5, 2024 by noon the polls had closed").
const creditName = `[^\s,|•·]+(?:\s+[^\s,|•·]+){1,3}`

// ownTextHasDigit says whether a text child of n (not of its descendants)
// holds a digit: the element that writes the date, not its wrappers.
func ownTextHasDigit(n *html.Node) bool {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.TextNode && strings.ContainsAny(c.Data, "0123456789٠١٢٣٤٥٦٧٨٩۰۱۲۳۴۵۶۷۸۹०१२३४५६७८९০১২৩৪৫৬৭৮৯") {
			return true
		}
	}
	return false
}

// inChrome says whether n or one of its nearest ancestors is marked as
// what is never the story (hHardNeg: a comment section); see markedAbove.
func (pm *pageMeta) inChrome(n *html.Node) bool {
	return pm.markedAbove(n, func(a *html.Node) bool { return pm.hints.node(a)&hHardNeg != 0 })
}

// markedAbove says whether n or one of its nearest ancestors is marked.
// The page's wrappers are not, whatever their classes say: body, main, an
// article above n and whatever holds the headline, whose classes often
// say only that comments are open ("comments-open", "has-comments",
// "category-commentary").
func (pm *pageMeta) markedAbove(n *html.Node, marked func(*html.Node) bool) bool {
	for depth := 0; n != nil && depth < 12; n, depth = n.Parent, depth+1 {
		if n.Type != html.ElementNode || depth > 0 && n.DataAtom == atom.Article {
			continue
		}
		if n.DataAtom == atom.Body || n.DataAtom == atom.Main || n.DataAtom == atom.Html {
			return false
		}
		if marked(n) && !pm.wrapsHeadline(n) {
			return true
		}
	}
	return false
}

// wrapsHeadline says whether n holds the page's first <h1>.
func (pm *pageMeta) wrapsHeadline(n *html.Node) bool {
	if pm.firstH1 < 0 {
		return false
	}
	for p := pm.nodes[pm.firstH1].Parent; p != nil; p = p.Parent {
		if p == n {
			return true
		}
	}
	return false
}
