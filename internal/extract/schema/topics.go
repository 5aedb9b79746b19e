package schema

// A Topic is one top-level IPTC media topic, named by a stable slug.
type Topic struct {
	Code  string // slug used in extractions
	IPTC  string // IPTC media-topic id (medtop:…)
	Label string // IPTC's English label
}

// Topics is the fixed taxonomy: the 17 top-level IPTC media topics.
var Topics = []Topic{
	{"arts_culture_entertainment_media", "medtop:01000000", "arts, culture, entertainment and media"},
	{"crime_law_justice", "medtop:02000000", "crime, law and justice"},
	{"disaster_accident_emergency", "medtop:03000000", "disaster, accident and emergency incident"},
	{"economy_business_finance", "medtop:04000000", "economy, business and finance"},
	{"education", "medtop:05000000", "education"},
	{"environment", "medtop:06000000", "environment"},
	{"health", "medtop:07000000", "health"},
	{"human_interest", "medtop:08000000", "human interest"},
	{"labour", "medtop:09000000", "labour"},
	{"lifestyle_leisure", "medtop:10000000", "lifestyle and leisure"},
	{"politics_government", "medtop:11000000", "politics and government"},
	{"religion", "medtop:12000000", "religion"},
	{"science_technology", "medtop:13000000", "science and technology"},
	{"society", "medtop:14000000", "society"},
	{"sport", "medtop:15000000", "sport"},
	{"conflict_war_peace", "medtop:16000000", "conflict, war and peace"},
	{"weather", "medtop:17000000", "weather"},
}

// TopicCodes lists the slugs of Topics in order.
func TopicCodes() []string {
	out := make([]string, len(Topics))
	for i, t := range Topics {
		out[i] = t.Code
	}
	return out
}
