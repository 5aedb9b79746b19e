package search_test

import (
	"time"

	"github.com/newscrawl/newscrawl/internal/embed/embedtest"
)

func day(s string) time.Time {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return t
}

// corpus is a small labelled set of articles: each covers one story, so
// the right answer to the queries in labelled is known.
var corpus = []embedtest.Article{
	{DocID: "ecb-rates", Host: "finance.example", Language: "en", Published: day("2024-03-07"),
		Title: "European Central Bank holds interest rates steady",
		Text: "The European Central Bank left its key interest rates unchanged on Thursday, saying inflation in the euro area is easing but wage growth remains strong.\n\n" +
			"Christine Lagarde told reporters in Frankfurt that the governing council would need more data before cutting borrowing costs. Markets now expect the first rate cut in June."},
	{DocID: "opec-oil", Host: "energy.example", Language: "en", Published: day("2024-04-02"),
		Title: "OPEC+ extends oil output cuts, crude prices climb",
		Text: "Oil prices rose more than two percent after OPEC+ producers agreed to extend voluntary production cuts through the second quarter.\n\n" +
			"Brent crude traded above 89 dollars a barrel. Saudi Arabia and Russia said the curbs would keep the petroleum market balanced."},
	{DocID: "measles", Host: "health.example", Language: "en", Published: day("2024-02-15"),
		Title: "Measles outbreak prompts vaccination drive in schools",
		Text: "Health officials launched an emergency vaccination campaign after a measles outbreak infected dozens of children in the region.\n\n" +
			"Parents were urged to check that their children had received both doses of the MMR vaccine. Clinics extended their opening hours to vaccinate pupils."},
	{DocID: "champions-final", Host: "sport.example", Language: "en", Published: day("2024-06-01"),
		Title: "Real Madrid win the Champions League final at Wembley",
		Text: "Real Madrid beat Borussia Dortmund two-nil in the Champions League final at Wembley Stadium, lifting the European Cup for a fifteenth time.\n\n" +
			"Goals from Dani Carvajal and Vinicius Junior in the second half settled a tense football match in London."},
	{DocID: "mars-rover", Host: "science.example", Language: "en", Published: day("2024-01-20"),
		Title: "NASA rover finds organic molecules in Martian rock",
		Text: "The Perseverance rover has detected organic molecules in rock samples from Jezero crater on Mars, NASA scientists said.\n\n" +
			"The discovery does not prove that life existed on the red planet, but it strengthens the case for returning the samples to Earth."},
	{DocID: "wildfire", Host: "news.example", Language: "en", Published: day("2024-07-12"),
		Title: "Wildfire forces thousands to evacuate in California",
		Text: "A fast-moving wildfire fuelled by dry winds and record heat forced thousands of residents to flee their homes north of Los Angeles.\n\n" +
			"Firefighters struggled to contain the blaze as it burned through brush and destroyed dozens of buildings."},
	{DocID: "chip-export", Host: "tech.example", Language: "en", Published: day("2024-05-09"),
		Title: "New export controls on semiconductor chips to China",
		Text: "The United States announced tighter export controls on advanced semiconductor chips and chipmaking equipment bound for China.\n\n" +
			"Nvidia and other chipmakers said the rules would hit sales of artificial intelligence processors."},
	{DocID: "election-uk", Host: "politics.example", Language: "en", Published: day("2024-07-05"),
		Title: "Labour wins landslide in UK general election",
		Text: "The Labour Party won a landslide victory in the United Kingdom general election, ending fourteen years of Conservative government.\n\n" +
			"Keir Starmer became prime minister after voters turned against the Conservatives over the cost of living."},
	{DocID: "bundestag", Host: "politik.example", Language: "de", Published: day("2024-03-22"),
		Title: "Bundestag beschließt neues Heizungsgesetz",
		Text: "Der Bundestag hat das umstrittene Heizungsgesetz verabschiedet. Neue Heizungen müssen künftig zu 65 Prozent mit erneuerbaren Energien betrieben werden.\n\n" +
			"Die Opposition kritisierte die Kosten für Hausbesitzer und Mieter."},
	{DocID: "earthquake", Host: "news.example", Language: "en", Published: day("2024-04-03"),
		Title: "Strong earthquake strikes Taiwan",
		Text: "A magnitude 7.4 earthquake struck off the east coast of Taiwan, damaging buildings in Hualien and triggering tsunami warnings across the region.\n\n" +
			"Rescuers searched collapsed structures for survivors as aftershocks continued."},
}

// labelled pairs queries with the document that answers them.
var labelled = []struct {
	query string
	want  string
}{
	{"central bank interest rate decision", "ecb-rates"},
	{"crude oil prices OPEC", "opec-oil"},
	{"vaccine campaign against measles", "measles"},
	{"who won the Champions League", "champions-final"},
	{"life on Mars organic molecules", "mars-rover"},
	{"California wildfire evacuation", "wildfire"},
	{"semiconductor export restrictions China", "chip-export"},
	{"UK election Labour Starmer", "election-uk"},
	{"Heizungsgesetz Bundestag", "bundestag"},
	{"Taiwan earthquake tsunami", "earthquake"},
	{"vaccinating children", "measles"},    // a word form not in the text
	{"petroleum barrel price", "opec-oil"}, // words from the body, not the title
	{"chipmakers artificial intelligence", "chip-export"},
}
