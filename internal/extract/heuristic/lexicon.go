package heuristic

import (
	"math/bits"
	"sort"
	"strings"
)

// topicStems maps each IPTC top-level topic to English word stems that
// signal it; a token matches a stem it starts with.
var topicStems = map[string][]string{
	"arts_culture_entertainment_media": {"film", "movie", "music", "album", "concert", "artist", "museum", "theatre", "theater", "novel", "festival", "actor", "actress", "television", "exhibition", "painting", "celebrit"},
	"crime_law_justice":                {"police", "arrest", "court", "judge", "trial", "crime", "criminal", "murder", "prosecut", "lawsuit", "convict", "sentenc", "jail", "prison", "fraud", "theft", "suspect", "lawyer", "attorney"},
	"disaster_accident_emergency":      {"earthquake", "flood", "wildfire", "hurricane", "crash", "collision", "disaster", "emergency", "rescue", "evacuat", "victim", "explosion", "tsunami", "derail", "injur"},
	"economy_business_finance":         {"econom", "market", "stock", "shares", "investor", "inflation", "bank", "profit", "revenue", "company", "companies", "business", "trade", "tariff", "gdp", "finance", "financial", "earnings", "interest rate", "price", "billion", "startup", "merger"},
	"education":                        {"school", "student", "teacher", "universit", "education", "pupil", "classroom", "curriculum", "campus", "exam"},
	"environment":                      {"climate", "emission", "carbon", "pollut", "environment", "biodiversity", "species", "renewable", "wildlife", "deforest", "fossil", "recycl"},
	"health":                           {"health", "hospital", "patient", "disease", "vaccin", "virus", "doctor", "medical", "medicine", "cancer", "pandemic", "nurse", "infection", "drug", "treatment"},
	"human_interest":                   {"birthday", "anniversary", "wedding", "pet", "heartwarming", "centenarian", "reunit"},
	"labour":                           {"strike", "worker", "union", "wage", "employ", "unemploy", "job", "labour", "labor", "layoff", "pension", "salary"},
	"lifestyle_leisure":                {"travel", "recipe", "fashion", "restaurant", "holiday", "tourism", "tourist", "hobby", "garden", "food", "wine"},
	"politics_government":              {"election", "vote", "voter", "parliament", "minister", "president", "government", "senate", "congress", "politic", "campaign", "party", "legislat", "policy", "referendum", "coalition", "opposition", "mayor", "governor"},
	"religion":                         {"church", "religio", "pope", "mosque", "temple", "bishop", "faith", "pilgrim", "clergy", "synagogue"},
	"science_technology":               {"scien", "research", "technolog", "software", "artificial intelligence", "robot", "space", "nasa", "satellite", "study", "researcher", "chip", "semiconductor", "computer", "internet", "smartphone", "physics", "algorithm"},
	"society":                          {"communit", "famil", "immigra", "migrant", "refugee", "housing", "poverty", "discriminat", "equality", "homeless", "welfare", "demonstrat", "protest"},
	"sport":                            {"match", "goal", "league", "championship", "tournament", "player", "coach", "olympic", "football", "soccer", "tennis", "basketball", "cricket", "rugby", "season", "victory", "medal", "striker"},
	"conflict_war_peace":               {"war", "military", "troops", "soldier", "missile", "ceasefire", "attack", "army", "invasion", "airstrike", "conflict", "rebel", "militant", "peace talks", "bombing", "drone"},
	"weather":                          {"weather", "storm", "rain", "snow", "heatwave", "temperature", "forecast", "wind", "drought", "frost", "meteorolog"},
}

// stemIndex finds the topics a word signals by looking its prefixes up,
// one per stem length, instead of trying every stem of every topic (that
// loop was most of the heuristic extractor's time).
type stemIndex struct {
	topics []string          // bit i of a match is topics[i]
	byStem map[string]uint64 // a one-word stem: the topics listing it
	lens   []int             // the stems' lengths, ascending
}

var stems = newStemIndex(topicStems)

func newStemIndex(byTopic map[string][]string) *stemIndex {
	x := &stemIndex{byStem: map[string]uint64{}}
	for t := range byTopic {
		x.topics = append(x.topics, t)
	}
	sort.Strings(x.topics)
	if len(x.topics) > 64 {
		panic("heuristic: more than 64 topics")
	}
	seen := map[int]bool{}
	for i, t := range x.topics {
		for _, s := range byTopic[t] {
			if strings.Contains(s, " ") {
				continue // a phrase never prefixes one token
			}
			x.byStem[s] |= 1 << i
			if !seen[len(s)] {
				seen[len(s)] = true
				x.lens = append(x.lens, len(s))
			}
		}
	}
	sort.Ints(x.lens)
	return x
}

// match is the set of topics with a stem that w starts with; "war" counts
// only as war, wars or wartime (not warm, warn, ward...).
func (x *stemIndex) match(w string) uint64 {
	var m uint64
	for _, n := range x.lens {
		if n > len(w) {
			break
		}
		s := w[:n]
		if s == "war" && w != "war" && w != "wars" && w != "wartime" {
			continue
		}
		m |= x.byStem[s]
	}
	return m
}

// topics returns up to three topics whose stems occur at least three times
// and at least a third as often as the best topic's.
func topics(words []string) []string {
	score := map[string]int{}
	for _, w := range words {
		for m := stems.match(w); m != 0; m &= m - 1 {
			score[stems.topics[bits.TrailingZeros64(m)]]++
		}
	}
	type kv struct {
		k string
		v int
	}
	var all []kv
	for k, v := range score {
		all = append(all, kv{k, v})
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].v != all[j].v {
			return all[i].v > all[j].v
		}
		return all[i].k < all[j].k
	})
	out := []string{}
	for _, e := range all {
		if len(out) == 3 || e.v < 3 || 3*e.v < all[0].v {
			break
		}
		out = append(out, e.k)
	}
	return out
}

var (
	positiveWords = set("good", "great", "success", "successful", "win", "won", "wins", "gain", "gains", "improve",
		"improved", "improvement", "growth", "record", "celebrate", "celebrated", "hope", "hopeful", "benefit",
		"boost", "strong", "recovery", "recover", "praise", "praised", "welcome", "welcomed", "progress", "best",
		"breakthrough", "happy", "agreement", "peace", "rescued", "support", "positive", "rise", "thrive", "award")
	negativeWords = set("bad", "crisis", "death", "deaths", "dead", "died", "kill", "killed", "killing", "attack",
		"attacked", "war", "loss", "losses", "lost", "fail", "failed", "failure", "decline", "fell", "fall", "crash",
		"fear", "fears", "concern", "concerns", "warn", "warned", "warning", "threat", "threatened", "injured",
		"victims", "damage", "damaged", "destroyed", "fraud", "scandal", "collapse", "criticised", "criticized",
		"protest", "violence", "violent", "arrested", "accused", "shortage", "worst", "negative", "risk", "cut",
		"cuts", "layoffs", "strike", "flood", "fire", "storm", "disaster", "murder", "charged")
)

// sentiment is a lexicon tone: negative or positive only when one side
// clearly dominates and has enough evidence, else neutral.
func sentiment(words []string) string {
	pos, neg := 0, 0
	for _, w := range words {
		switch {
		case positiveWords[w]:
			pos++
		case negativeWords[w]:
			neg++
		}
	}
	total := pos + neg
	if total < 3 {
		return "neutral"
	}
	balance := float64(pos-neg) / float64(total)
	switch {
	case balance <= -0.4:
		return "negative"
	case balance >= 0.4:
		return "positive"
	}
	return "neutral"
}
