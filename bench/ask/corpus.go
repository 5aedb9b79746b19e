package main

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/newscrawl/newscrawl/internal/embed/embedtest"
)

// The corpus is news of six kinds (council votes, recalls, matches,
// storms, strikes, appointments) on several sites over ten weeks. Every
// story is one event: a kind, a subject (a town, a company, a team…) and
// an object (a project, a product, an opponent…), unique in the corpus.
// A question asks about one event in other words than its article's;
// near-miss distractors share its subject or its object; an unanswerable
// question pairs a subject and an object that both occur, never together.

var sites = []string{"riverton-courier.example", "valley-gazette.example", "metro-daily.example", "coast-herald.example",
	"wire-report.example", "sports-desk.example"}

var weekdays = []string{"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"}

// A kind writes articles and questions for events of one sort.
type kind struct {
	name     string
	subjects []string
	objects  []string
	article  func(r *rand.Rand, subj, obj string, day time.Time) (title, text string)
	question func(r *rand.Rand, subj, obj string) string
}

type event struct {
	kind       *kind
	subj, obj  string
	day        time.Time
	docs       []string // the articles that answer: the story and its copies
	distractor bool
}

func (e *event) key() string { return key(e.kind, e.subj, e.obj) }

// key names an event; a match is the same event whichever team is named first.
func key(k *kind, subj, obj string) string {
	if k.name == "match" && obj < subj {
		subj, obj = obj, subj
	}
	return k.name + "|" + subj + "|" + obj
}

// names makes n distinct place-like or company-like names from syllables.
func names(r *rand.Rand, n int, suffixes []string) []string {
	first := []string{"Riv", "Mill", "Ash", "Thorn", "Bel", "Cal", "Dun", "Elm", "Fair", "Glen", "Hal", "Ivy", "Kel", "Lang",
		"Mar", "Nor", "Oak", "Pem", "Quen", "Ros", "Stan", "Tal", "Ver", "Wes", "Yar", "Zel", "Brent", "Cor", "Dal", "Fen"}
	mid := []string{"er", "ing", "ow", "en", "ald", "ham", "wick", "by", "ford", "mont", "ley", "stead", "bury", "worth"}
	seen := map[string]bool{}
	var out []string
	for len(out) < n {
		w := first[r.IntN(len(first))] + mid[r.IntN(len(mid))] + suffixes[r.IntN(len(suffixes))]
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

func pick(r *rand.Rand, xs []string) string { return xs[r.IntN(len(xs))] }

// filler are sentences any story may carry, so the corpus's vocabulary
// is wider than its questions' (a question's phrasing words occur too).
var filler = []string{
	"Officials said more details would be published in the coming weeks.",
	"Residents who spoke to reporters were divided on what it would mean for them.",
	"The decision follows months of debate and a public consultation that drew hundreds of responses.",
	"Critics argued that the timing was poor and that the costs had not been explained.",
	"Supporters said the change was long overdue and would pay for itself within a decade.",
	"A spokesperson declined to comment further while talks continue.",
	"Shops in the area reported quieter trading than usual over the weekend.",
	"Analysts expect the matter to return to the agenda before the end of the year.",
	"Local businesses said they would study the plans before drawing any conclusions.",
	"The company's shares moved little after the news, which traders said had been expected.",
	"Several products were pulled from shelves in an unrelated case last spring.",
	"Volunteers helped to clear debris and check on elderly neighbours.",
	"The opposition called for an independent review of how the process was handled.",
	"Schools in the district stayed open, although some lessons were moved online.",
	"A public meeting is planned for next month at the town hall.",
}

var kinds = []*kind{
	{
		name:    "council",
		objects: []string{"footbridge", "library", "bus depot", "swimming pool", "cycle lane", "housing estate", "solar farm", "market hall", "skate park", "ring road", "sports centre", "harbour wall", "tram line", "car park", "community garden"},
		article: func(r *rand.Rand, town, obj string, day time.Time) (string, string) {
			verb, gloss := pick(r, []string{"approved", "rejected", "postponed"}), ""
			a, b := 5+r.IntN(8), r.IntN(5)
			cost := 2 + r.IntN(40)
			switch verb {
			case "approved":
				gloss = fmt.Sprintf("Work on the %s is due to start next spring and should take about %d months.", obj, 6+r.IntN(18))
			case "rejected":
				gloss = fmt.Sprintf("Opponents had said the %s would cost too much and bring traffic to quiet streets.", obj)
			default:
				gloss = fmt.Sprintf("Councillors asked officers to return with a cheaper design for the %s.", obj)
			}
			title := fmt.Sprintf("%s council %s plans for %s", town, verb, obj)
			text := fmt.Sprintf("%s council %s plans for a new %s on %s, with %d councillors in favour and %d against. "+
				"The %s was expected to cost %d million euros. %s\n\n%s", town, verb, obj, weekdays[day.Weekday()], a, b, obj, cost, gloss, pick(r, filler))
			return title, text
		},
		question: func(r *rand.Rand, town, obj string) string {
			return pick(r, []string{
				"What did " + town + "'s councillors conclude about the " + obj + "?",
				"How did the vote on the " + obj + " in " + town + " go?",
				"Is " + town + " going ahead with the " + obj + "?",
			})
		},
	},
	{
		name:    "recall",
		objects: []string{"baby formula", "electric kettles", "frozen pizzas", "bicycle helmets", "phone chargers", "smoke alarms", "space heaters", "car seats", "peanut butter", "garden hoses", "coffee makers", "toy drones"},
		article: func(r *rand.Rand, co, prod string, day time.Time) (string, string) {
			defect := pick(r, []string{"a wiring fault that can cause overheating", "traces of salmonella", "a latch that can break under load", "labels that omit an allergen", "batteries that can swell"})
			n := 10 + r.IntN(900)
			title := fmt.Sprintf("%s recalls %s", co, prod)
			text := fmt.Sprintf("%s is recalling %d thousand %s after tests found %s, the company said on %s. "+
				"Customers were told to return the %s to the shop for a full refund. %s\n\n%s", co, n, prod, defect, weekdays[day.Weekday()], prod, pick(r, filler), pick(r, filler))
			return title, text
		},
		question: func(r *rand.Rand, co, prod string) string {
			return pick(r, []string{
				"Why were " + co + "'s " + prod + " pulled from shops?",
				"What was wrong with the " + prod + " sold by " + co + "?",
				"How many " + prod + " did " + co + " take back?",
			})
		},
	},
	{
		name: "match",
		article: func(r *rand.Rand, a, b string, day time.Time) (string, string) {
			x, y := 1+r.IntN(5), r.IntN(3)
			scorer := pick(r, []string{"Lena Ortiz", "Tom Becker", "Sami Haddad", "Jon Miles", "Iris Vogel", "Kofi Mensah"})
			title := fmt.Sprintf("%s beat %s %d-%d", a, b, x, y)
			text := fmt.Sprintf("%s beat %s %d-%d on %s, with %s scoring twice in the second half. "+
				"The result lifts %s up the table, while %s have now lost three games in a row.\n\n%s", a, b, x, y, weekdays[day.Weekday()], scorer, a, b, pick(r, filler))
			return title, text
		},
		question: func(r *rand.Rand, a, b string) string {
			return pick(r, []string{
				"Who won the game between " + a + " and " + b + "?",
				"What was the score when " + b + " played " + a + "?",
			})
		},
	},
	{
		name:    "storm",
		objects: []string{"Northshire", "the Ostvale coast", "Kessel Valley", "the Brannock hills", "Lowmoor", "Eastreach", "the Tarn islands", "Southfen", "Greyhaven", "the Corran delta"},
		article: func(r *rand.Rand, storm, region string, day time.Time) (string, string) {
			wind, dmg := 90+r.IntN(90), 3+r.IntN(120)
			title := fmt.Sprintf("Storm %s batters %s", storm, region)
			text := fmt.Sprintf("Storm %s brought winds of %d km/h to %s on %s, bringing down trees and power lines. "+
				"Insurers estimated the damage at %d million euros, and %d thousand homes lost power. %s\n\n%s",
				storm, wind, region, weekdays[day.Weekday()], dmg, 1+r.IntN(60), pick(r, filler), pick(r, filler))
			return title, text
		},
		question: func(r *rand.Rand, storm, region string) string {
			return pick(r, []string{
				"How much damage did storm " + storm + " do in " + region + "?",
				"What happened when storm " + storm + " reached " + region + "?",
			})
		},
	},
	{
		name:    "strike",
		objects: []string{"bus drivers", "nurses", "teachers", "refuse collectors", "dock workers", "train guards", "postal workers", "airport staff"},
		article: func(r *rand.Rand, town, workers string, day time.Time) (string, string) {
			why := pick(r, []string{"pay", "staffing levels", "pensions", "night shifts", "safety"})
			title := fmt.Sprintf("%s %s walk out over %s", town, workers, why)
			text := fmt.Sprintf("%s in %s walked out on %s in a dispute over %s, the union said. "+
				"The strike is set to last %d days unless talks resume. %s\n\n%s", strings.ToUpper(workers[:1])+workers[1:], town, weekdays[day.Weekday()], why, 1+r.IntN(6), pick(r, filler), pick(r, filler))
			return title, text
		},
		question: func(r *rand.Rand, town, workers string) string {
			return pick(r, []string{
				"Why did the " + workers + " of " + town + " stop work?",
				"What is the dispute between " + town + "'s " + workers + " and their employers about?",
			})
		},
	},
	{
		name:    "appointment",
		objects: []string{"chief executive", "finance director", "head coach", "museum director", "police chief", "editor", "chair"},
		article: func(r *rand.Rand, org, role string, day time.Time) (string, string) {
			person := pick(r, []string{"Mara Lindqvist", "Ana Costa", "Peter Olsen", "Grace Nwosu", "Luis Romero", "Hana Sato", "Omar Farouk", "Elena Petrova"})
			title := fmt.Sprintf("%s names %s as %s", org, person, role)
			text := fmt.Sprintf("%s named %s as its new %s on %s, after a search that lasted %d months. "+
				"%s joins from a rival and takes up the post in the new year. %s\n\n%s", org, person, role, weekdays[day.Weekday()], 2+r.IntN(10), person, pick(r, filler), pick(r, filler))
			return title, text
		},
		question: func(r *rand.Rand, org, role string) string {
			return pick(r, []string{
				"Who did " + org + " pick as its " + role + "?",
				"Who is taking over as " + role + " at " + org + "?",
			})
		},
	},
}

// A corpus is the articles and the questions about them.
type corpus struct {
	articles     []embedtest.Article
	answerable   []question
	unanswerable []question
}

type question struct {
	text    string
	answers []string // doc_ids of the articles that answer
}

// generate writes n articles and q questions of each kind (answerable,
// unanswerable) dated in the ten weeks up to now.
func generate(r *rand.Rand, n, q int, now time.Time) *corpus {
	kinds[0].subjects = names(r, 300, []string{"ton", "field", "wood", "bridge", "port", "ville", "ham", "dale"})
	kinds[1].subjects = names(r, 200, []string{" Foods", " Motors", " Home", " Labs", " Goods", " Electric", " Toys"})
	kinds[2].subjects = names(r, 120, []string{" United", " Rovers", " Athletic", " City", " Wanderers"})
	kinds[2].objects = kinds[2].subjects
	kinds[3].subjects = []string{"Aldo", "Bettina", "Cyrus", "Delia", "Edgar", "Fiona", "Gareth", "Helga", "Ivan", "Juno",
		"Kasimir", "Lorna", "Magnus", "Nadia", "Otto", "Petra", "Quincy", "Rhea", "Sven", "Tilda", "Ulla", "Viggo", "Wanda", "Xaver"}
	kinds[4].subjects = kinds[0].subjects
	kinds[5].subjects = names(r, 150, []string{" Trust", " Museum", " Bank", " Rovers", " Group", " Press", " Council"})

	c := &corpus{}
	used := map[string]bool{}
	var events []*event
	newEvent := func(k *kind, subj, obj string) *event {
		e := &event{kind: k, subj: subj, obj: obj, day: now.AddDate(0, 0, -r.IntN(70))}
		if subj == obj || used[e.key()] {
			return nil
		}
		used[e.key()] = true
		events = append(events, e)
		return e
	}
	// The questioned events first, each with two near misses: its subject
	// with another object, its object with another subject.
	var asked []*event
	for len(asked) < q {
		k := kinds[len(asked)%len(kinds)]
		e := newEvent(k, pick(r, k.subjects), pick(r, k.objects))
		if e == nil {
			continue
		}
		asked = append(asked, e)
		for e2 := (*event)(nil); e2 == nil; {
			e2 = newEvent(k, e.subj, pick(r, k.objects))
		}
		for e3 := (*event)(nil); e3 == nil; {
			e3 = newEvent(k, pick(r, k.subjects), e.obj)
		}
	}
	// Unanswerable: a subject and an object of the questioned events and
	// their near misses, never together (reserved before the padding).
	present := map[string]bool{}
	for _, e := range events {
		present[e.kind.name+"|s|"+e.subj] = true
		present[e.kind.name+"|o|"+e.obj] = true
	}
	for len(c.unanswerable) < q {
		k := kinds[len(c.unanswerable)%len(kinds)]
		subj, obj := pick(r, k.subjects), pick(r, k.objects)
		key := key(k, subj, obj)
		if subj == obj || used[key] || !present[k.name+"|s|"+subj] || !present[k.name+"|o|"+obj] {
			continue
		}
		used[key] = true
		c.unanswerable = append(c.unanswerable, question{text: k.question(r, subj, obj)})
	}
	for tries := 0; len(events) < n*9/10 && tries < 50*n; tries++ {
		k := kinds[r.IntN(len(kinds))]
		newEvent(k, pick(r, k.subjects), pick(r, k.objects))
	}
	for i, e := range events {
		title, text := e.kind.article(r, e.subj, e.obj, e.day)
		site := sites[r.IntN(len(sites))]
		a := embedtest.Article{DocID: fmt.Sprintf("a%05d", i), Title: title, Text: text, Host: site, Language: "en", Published: e.day}
		c.articles = append(c.articles, a)
		e.docs = append(e.docs, a.DocID)
		if r.IntN(10) == 0 && len(c.articles) < n { // a syndicated copy on another site, lightly edited
			cp := a
			cp.DocID, cp.Host = a.DocID+"c", sites[(indexOf(sites, site)+1)%len(sites)]
			cp.Text = text + "\n\nThis story first appeared on " + site + "."
			c.articles = append(c.articles, cp)
			e.docs = append(e.docs, cp.DocID)
		}
	}
	for i, e := range asked {
		text := e.kind.question(r, e.subj, e.obj)
		if i%4 == 0 { // a time phrase, which must filter the answer in
			text = strings.TrimSuffix(text, "?") + " in " + e.day.Month().String() + "?"
		}
		c.answerable = append(c.answerable, question{text: text, answers: e.docs})
	}
	return c
}

func indexOf(xs []string, x string) int {
	for i, v := range xs {
		if v == x {
			return i
		}
	}
	return -1
}
