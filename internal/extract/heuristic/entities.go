package heuristic

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// entities are the candidates found in one article, most frequent first.
type entities struct {
	people, orgs, places []string
	surnames             map[string]string // last name → full name, for quote speakers
}

// word lists used to classify capitalised phrases (English news style).
var (
	personTitles = set("mr", "mrs", "ms", "miss", "dr", "prof", "professor", "sir", "dame", "lord", "lady",
		"president", "vice", "prime", "minister", "chancellor", "senator", "sen", "rep", "representative",
		"governor", "gov", "mayor", "judge", "justice", "king", "queen", "prince", "princess", "pope",
		"general", "gen", "colonel", "captain", "sergeant", "officer", "detective", "secretary", "ambassador",
		"chief", "executive", "ceo", "chairman", "chairwoman", "director", "spokesman", "spokeswoman", "coach", "rev")
	orgWords = set("inc", "corp", "corporation", "ltd", "llc", "plc", "co", "company", "group", "bank", "university",
		"college", "school", "ministry", "department", "agency", "commission", "committee", "council", "party",
		"association", "institute", "foundation", "union", "federation", "court", "police", "parliament",
		"congress", "senate", "government", "army", "navy", "airlines", "airways", "motors", "times", "news",
		"post", "journal", "fc", "club", "league", "organisation", "organization", "authority", "office",
		"service", "board", "fund", "reserve", "network", "press", "hospital", "museum", "church", "assembly",
		"cabinet", "bureau", "trust", "systems", "technologies", "labs", "holdings", "partners", "media", "tribunal")
	places = set("afghanistan", "africa", "america", "argentina", "asia", "australia", "austria", "belgium", "berlin",
		"brazil", "britain", "brussels", "california", "canada", "chicago", "china", "egypt", "england", "europe",
		"france", "gaza", "germany", "greece", "india", "indonesia", "iran", "iraq", "ireland", "israel", "italy",
		"japan", "kyiv", "lebanon", "london", "los angeles", "madrid", "mexico", "middle east", "moscow",
		"new york", "nigeria", "north korea", "pakistan", "paris", "poland", "rome", "russia", "saudi arabia",
		"scotland", "south africa", "south korea", "spain", "sweden", "switzerland", "syria", "taiwan", "texas",
		"tokyo", "turkey", "uk", "ukraine", "us", "usa", "u.s.", "u.k.", "united kingdom", "united states",
		"wales", "washington", "beijing", "delhi", "new delhi", "sydney", "toronto", "venezuela", "yemen", "west bank")
	locatives   = set("in", "from", "near", "across", "outside", "throughout", "around", "towards", "into")
	speechVerbs = set("said", "says", "told", "added", "stated", "explained", "warned", "wrote", "according")
	connectors  = set("of", "de", "du", "des", "van", "von", "der", "den", "al", "bin", "la", "le", "del", "da", "&")
	calendar    = set("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "january",
		"february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december")
)

func set(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// A phrase is one capitalised run in a sentence.
type phrase struct {
	words      []string
	titled     bool // a person title came right before it
	speech     bool // a speech verb is adjacent
	locative   bool // a locative preposition came right before it
	sentStart  bool // it starts the sentence
	connectors bool
	definite   bool // "the" came right before it ("the Red Cross")
}

func (p phrase) text() string { return strings.Join(p.words, " ") }

// findEntities collects capitalised phrases and sorts them into people,
// organisations and places by title words, suffixes, a small gazetteer and
// context (speech verbs, locative prepositions, a surname reused alone).
func findEntities(sentences []string) entities {
	var all []phrase
	for _, s := range sentences {
		all = append(all, phrases(s)...)
	}
	// Words that appear on their own somewhere (for "surname reused").
	alone := map[string]bool{}
	midSentence := map[string]bool{}
	for _, p := range all {
		if len(p.words) == 1 {
			alone[p.words[0]] = true
		}
		if !p.sentStart {
			midSentence[p.text()] = true
		}
	}
	count := map[string]int{}
	kind := map[string]string{}
	surnames := map[string]string{}
	for _, p := range all {
		t := p.text()
		k := classify(p, alone, midSentence)
		if k == "" {
			continue
		}
		if prev, ok := kind[t]; ok && prev != k {
			// Conflicting evidence: a person or place signal beats an unknown.
			if prev == "person" || prev == "place" {
				k = prev
			}
		}
		kind[t] = k
		count[t]++
		if k == "person" && len(p.words) >= 2 {
			surnames[p.words[len(p.words)-1]] = t
		}
	}
	var ents entities
	ents.surnames = surnames
	for t, k := range kind {
		// A lone surname of a known person is that person, not a new entity.
		if _, ok := surnames[t]; ok && !strings.Contains(t, " ") {
			continue
		}
		switch k {
		case "person":
			ents.people = append(ents.people, t)
		case "org":
			ents.orgs = append(ents.orgs, t)
		case "place":
			ents.places = append(ents.places, t)
		}
	}
	byCount := func(list []string) {
		sort.Slice(list, func(i, j int) bool {
			if count[list[i]] != count[list[j]] {
				return count[list[i]] > count[list[j]]
			}
			return list[i] < list[j]
		})
	}
	byCount(ents.people)
	byCount(ents.orgs)
	byCount(ents.places)
	return ents
}

// classify names a phrase's kind, or "" when the evidence is too weak.
func classify(p phrase, alone, midSentence map[string]bool) string {
	t := p.text()
	lower := strings.ToLower(t)
	last := strings.ToLower(strings.Trim(p.words[len(p.words)-1], "."))
	switch {
	case places[lower]:
		return "place"
	case isAcronym(t):
		return "org"
	case orgWords[last] || orgWords[strings.ToLower(p.words[0])] && len(p.words) > 1:
		return "org"
	case p.connectors:
		return "org" // "Bank of England", "University of Oxford"
	case p.titled && len(p.words) <= 3:
		return "person"
	case len(p.words) >= 2 && len(p.words) <= 3 && (p.speech || alone[p.words[len(p.words)-1]]):
		return "person"
	case p.locative && len(p.words) <= 3:
		return "place"
	case p.definite && len(p.words) >= 2:
		return "org" // "the Red Cross", "the European Commission"
	case len(p.words) == 1 && p.speech && midSentence[t]:
		return "org" // "Enedis said": a lone name that is no known person's surname
	}
	return ""
}

func isAcronym(s string) bool {
	n := 0
	for _, r := range s {
		if r == '.' || r == '&' {
			continue
		}
		if !unicode.IsUpper(r) {
			return false
		}
		n++
	}
	return n >= 2 && n <= 6
}

// phrases splits one sentence into capitalised runs with their context.
func phrases(sentence string) []phrase {
	words := strings.Fields(sentence)
	var out []phrase
	for i := 0; i < len(words); {
		w := cleanWord(words[i])
		if !capitalised(w) {
			i++
			continue
		}
		start := i
		var p phrase
		for i < len(words) {
			w := cleanWord(words[i])
			switch {
			case capitalised(w) && !calendar[strings.ToLower(w)]:
				p.words = append(p.words, w)
			case connectors[strings.ToLower(w)] && len(p.words) > 0 && i+1 < len(words) && capitalised(cleanWord(words[i+1])):
				p.words = append(p.words, w)
				p.connectors = true
			default:
				goto done
			}
			i++
			if endsClause(words[i-1]) {
				break
			}
		}
	done:
		if i == start {
			i++
		}
		// Leading titles and sentence-initial function words are context, not name.
		for len(p.words) > 0 {
			lw := strings.ToLower(strings.TrimSuffix(p.words[0], "."))
			if personTitles[lw] {
				p.titled = true
			} else if start == 0 && stopwords[lw] {
				p.definite = p.definite || lw == "the"
			} else {
				break
			}
			p.words = p.words[1:]
			start++
		}
		// "Shares of Nvidia Corp" at a sentence start: the first word is
		// just capitalised, unless it names an organisation itself.
		if start == 0 && len(p.words) > 2 && connectors[strings.ToLower(p.words[1])] && !orgWords[strings.ToLower(p.words[0])] {
			p.words = p.words[2:]
			start += 2
		}
		if len(p.words) == 0 || len(p.words) > 6 {
			continue
		}
		p.sentStart = start == 0
		if start > 0 {
			prev := strings.ToLower(cleanWord(words[start-1]))
			p.locative = locatives[prev]
			p.titled = p.titled || personTitles[strings.TrimSuffix(prev, ".")]
			p.speech = speechVerbs[prev]
			p.definite = p.definite || prev == "the"
		}
		if i < len(words) {
			p.speech = p.speech || speechVerbs[strings.ToLower(cleanWord(words[i]))]
		}
		if len(p.words) == 1 && p.sentStart && !p.speech {
			continue // a capitalised first word is mostly just a first word
		}
		out = append(out, p)
	}
	return out
}

// endsClause reports punctuation after a word that ends a name run.
func endsClause(raw string) bool {
	return strings.ContainsAny(raw[len(raw)-1:], ",;:!?)\"”'’") || strings.HasSuffix(raw, ".") && !isInitial(raw)
}

func isInitial(raw string) bool {
	w := strings.TrimSuffix(raw, ".")
	return utf8.RuneCountInString(w) == 1 || personTitles[strings.ToLower(w)] || isAcronym(w)
}

// cleanWord strips surrounding punctuation and a possessive 's.
func cleanWord(w string) string {
	w = strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '.' && r != '&' })
	w = strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "’s")
	if strings.HasSuffix(w, ".") && !isInitial(w) {
		w = strings.TrimSuffix(w, ".")
	}
	return w
}

func capitalised(w string) bool {
	r, _ := utf8.DecodeRuneInString(w)
	return unicode.IsUpper(r) && utf8.RuneCountInString(w) > 1 || isAcronym(w) || len(w) == 2 && w[1] == '.' && unicode.IsUpper(r)
}
