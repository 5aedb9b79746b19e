package ask

import (
	"regexp"
	"strconv"
	"strings"
	"time"
)

// A Span is the time a question asks about: [Since, Until), either end
// open when nil, and the words that said so.
type Span struct {
	Since  *time.Time `json:"since,omitempty"`
	Until  *time.Time `json:"until,omitempty"`
	Phrase string     `json:"phrase,omitempty"`
}

var months = map[string]time.Month{"january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4,
	"apr": 4, "may": 5, "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8, "september": 9, "sep": 9,
	"sept": 9, "october": 10, "oct": 10, "november": 11, "nov": 11, "december": 12, "dec": 12}

const monthNames = `january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec`

// timePhrase finds the phrases spanOf reads, longest forms first.
var timePhrase = regexp.MustCompile(`(?i)\b(?:` +
	`(?:in|over|during|within)?\s*(?:the\s+)?(?P<rel>last|past|previous)\s+(?P<n>\d+|two|three|four|five|six|seven|eight|nine|ten|twelve)\s+(?P<unit>days?|weeks?|months?|years?)` +
	`|(?P<which>this|last|past|previous)\s+(?P<cal>week|month|year)` +
	`|(?P<day>today|yesterday)` +
	`|(?P<op>since|before|after|in|during|from|until)\s+(?:(?P<mon>` + monthNames + `)\.?(?:\s+(?P<myear>(?:19|20)\d\d))?|(?P<year>(?:19|20)\d\d)|(?P<iso>\d{4}-\d\d-\d\d))` +
	`|on\s+(?P<on>\d{4}-\d\d-\d\d)` +
	`)\b`)

// spanOf reads the first time phrase of the question, relative to now
// (a day in UTC), and returns the question without it. "last week" is the
// calendar week before this one (weeks start on Monday), "past week" and
// "last 7 days" the seven days up to today; "in March" is the latest March
// not after today; "since 2024" starts on 2024-01-01; a bare year or month
// after "in" spans it whole. A question without one spans all time.
func spanOf(question string, now time.Time) (string, Span) {
	m := timePhrase.FindStringSubmatchIndex(question)
	if m == nil {
		return question, Span{}
	}
	g := func(name string) string {
		i := timePhrase.SubexpIndex(name)
		if m[2*i] < 0 {
			return ""
		}
		return strings.ToLower(question[m[2*i]:m[2*i+1]])
	}
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	tomorrow := today.AddDate(0, 0, 1)
	var from, to time.Time // zero: open
	switch {
	case g("unit") != "":
		n, err := strconv.Atoi(g("n"))
		if err != nil {
			n, _ = strconv.Atoi(numberWords[g("n")])
		}
		to = tomorrow
		switch strings.TrimSuffix(g("unit"), "s") {
		case "day":
			from = tomorrow.AddDate(0, 0, -n)
		case "week":
			from = tomorrow.AddDate(0, 0, -7*n)
		case "month":
			from = tomorrow.AddDate(0, -n, 0)
		case "year":
			from = tomorrow.AddDate(-n, 0, 0)
		}
	case g("cal") != "":
		from, to = calendar(g("which"), g("cal"), today)
	case g("day") == "today":
		from, to = today, tomorrow
	case g("day") == "yesterday":
		from, to = today.AddDate(0, 0, -1), today
	case g("on") != "":
		d, _ := time.Parse(time.DateOnly, g("on"))
		from, to = d, d.AddDate(0, 0, 1)
	default:
		var start, end time.Time
		switch {
		case g("iso") != "":
			start, _ = time.Parse(time.DateOnly, g("iso"))
			end = start.AddDate(0, 0, 1)
		case g("year") != "":
			y, _ := strconv.Atoi(g("year"))
			start = time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC)
			end = start.AddDate(1, 0, 0)
		default:
			mon := months[g("mon")]
			y := today.Year()
			if g("myear") != "" {
				y, _ = strconv.Atoi(g("myear"))
			} else if mon > today.Month() {
				y-- // "in March" asked in February is last year's
			}
			start = time.Date(y, mon, 1, 0, 0, 0, 0, time.UTC)
			end = start.AddDate(0, 1, 0)
		}
		if g("mon") == "may" && g("myear") == "" && g("op") != "in" && g("op") != "since" {
			return question, Span{} // "before may", "until may": too likely the verb
		}
		switch g("op") {
		case "since", "from":
			from = start
		case "after":
			from = end
		case "before", "until":
			to = start
		default: // in, during
			from, to = start, end
		}
	}
	sp := Span{Phrase: strings.TrimSpace(question[m[0]:m[1]])}
	if !from.IsZero() {
		sp.Since = &from
	}
	if !to.IsZero() {
		sp.Until = &to
	}
	rest := strings.Join(strings.Fields(question[:m[0]]+" "+question[m[1]:]), " ")
	return rest, sp
}

// calendar is this or last week, month or year around today.
func calendar(which, unit string, today time.Time) (time.Time, time.Time) {
	tomorrow := today.AddDate(0, 0, 1)
	last := which != "this"
	switch unit {
	case "week":
		if which == "past" {
			return tomorrow.AddDate(0, 0, -7), tomorrow
		}
		monday := today.AddDate(0, 0, -((int(today.Weekday()) + 6) % 7))
		if last {
			return monday.AddDate(0, 0, -7), monday
		}
		return monday, tomorrow
	case "month":
		if which == "past" {
			return tomorrow.AddDate(0, -1, 0), tomorrow
		}
		first := time.Date(today.Year(), today.Month(), 1, 0, 0, 0, 0, time.UTC)
		if last {
			return first.AddDate(0, -1, 0), first
		}
		return first, tomorrow
	default:
		if which == "past" {
			return tomorrow.AddDate(-1, 0, 0), tomorrow
		}
		first := time.Date(today.Year(), 1, 1, 0, 0, 0, 0, time.UTC)
		if last {
			return first.AddDate(-1, 0, 0), first
		}
		return first, tomorrow
	}
}
