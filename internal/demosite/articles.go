package demosite

// The demo's articles: invented local news, distinct enough that none is a
// near duplicate of another, written to be found by a first search.
var articles = []article{
	{slug: "harbour-bridge-reopens", section: "local", date: "2026-11-24T07:30:00Z", author: "Mara Lindqvist",
		title: "Harbour bridge reopens after two years of repairs",
		paras: []string{
			"The swing bridge over the old harbour reopened to traffic on Monday morning after a two-year repair that replaced its rusted girders, its wooden deck and the motor that turns it for passing boats.",
			"Cyclists were first across at six o'clock, followed by the number 14 bus, which had taken a twenty-minute detour through the industrial estate since the bridge closed.",
			"The council said the work cost 18 million euros, two million less than budgeted, and that the bridge will now open for sailing boats four times a day in summer.",
		}},
	{slug: "orchard-record-harvest", section: "local", date: "2026-11-21T09:00:00Z", author: "Tomas Berg",
		title: "Valley orchards bring in a record apple harvest",
		paras: []string{
			"Apple growers in the river valley picked the largest crop in thirty years this autumn, helped by a spring without late frost and a wet, warm August.",
			"Cider makers expect prices to fall, while packing houses hired extra seasonal workers and rented cold stores as far away as the coast to keep up with the fruit.",
			"Some smaller growers fear the glut will push the price below the cost of picking, and the growers' cooperative has asked schools and food banks to take the surplus.",
		}},
	{slug: "library-night-opening", section: "local", date: "2026-11-19T16:00:00Z", author: "Ines Moreau",
		title: "Central library stays open until midnight for exam season",
		paras: []string{
			"The central library will keep its reading rooms open until midnight from next week until the end of January, so that students preparing for winter exams have a quiet, heated place to work.",
			"Librarians said the late openings last year drew more than four hundred people a night, many of them from crowded shared flats near the university.",
			"Volunteers from the students' union will staff the desk after ten o'clock, and the café on the ground floor will sell soup at cost price.",
		}},
	{slug: "glacier-retreat-measured", section: "science", date: "2026-11-23T11:15:00Z", author: "Jonas Aalto",
		title: "Survey finds the northern glacier lost forty metres this year",
		paras: []string{
			"Researchers who measure the northern glacier every autumn found that its tongue retreated forty metres since last year, the second-largest loss since records began in 1952.",
			"The team used drones and a ground radar to map the ice, and found that meltwater channels now run deep inside the glacier, which speeds its thinning.",
			"The lead glaciologist said the hot, dry summer explained most of the loss, and that the glacier could split into two smaller ice fields within a decade.",
		}},
	{slug: "comet-visible-tonight", section: "science", date: "2026-11-25T18:00:00Z", author: "Priya Natarajan",
		title: "A bright comet will be visible to the naked eye this week",
		paras: []string{
			"A comet discovered in March has brightened faster than astronomers expected and should be visible without a telescope low in the western sky just after sunset this week.",
			"The observatory on the hill will open its dome to the public on Thursday and Friday evenings, with volunteers explaining how to find the comet with binoculars.",
			"Astronomers warned that the comet could break apart as it swings close to the sun, which would make it briefly even brighter before it fades.",
		}},
	{slug: "bees-learn-shapes", section: "science", date: "2026-11-18T10:00:00Z", author: "Lucas Ferreira",
		title: "Bumblebees learn to tell shapes apart in university experiment",
		paras: []string{
			"Bumblebees trained with drops of sugar water learned to tell a circle from a square within a single afternoon, according to a study published by the university's biology department.",
			"The bees remembered the shapes two days later and picked the right one even when the colours were changed, which suggests they recognise outlines rather than patterns of light.",
			"The researchers hope the results will help farmers design flower strips that bees find and remember more easily.",
		}},
	{slug: "rail-strike-ends", section: "world", date: "2026-11-22T13:45:00Z", author: "Elena Rossi",
		title: "National rail strike ends after a pay deal is agreed",
		paras: []string{
			"Train drivers ended a nine-day national strike on Saturday after their union accepted a two-year pay deal worth eleven per cent, together with new limits on night shifts.",
			"The rail operator said that half of the regular timetable would run on Sunday and that all services should be back to normal by Tuesday.",
			"Commuters who bought season tickets will be offered a refund for the days without trains, the transport ministry said.",
		}},
	{slug: "drought-talks-river-basin", section: "world", date: "2026-11-20T08:20:00Z", author: "Samir Haddad",
		title: "Three countries agree to share water during droughts",
		paras: []string{
			"Ministers from the three countries that share the great river basin signed an agreement on Friday that sets out how much water each may take from the river in years of drought.",
			"Under the deal, dams upstream must release a minimum flow every month, and a joint commission will publish measurements from forty gauging stations every week.",
			"Farmers' groups downstream welcomed the agreement but said its success would depend on whether the commission can enforce the minimum flow in a dry summer.",
		}},
	{slug: "chess-champion-teenager", section: "world", date: "2026-11-17T20:30:00Z", author: "Aiko Tanaka",
		title: "Sixteen-year-old wins the continental chess championship",
		paras: []string{
			"A sixteen-year-old won the continental chess championship on Sunday, beating three grandmasters in the last four rounds and finishing half a point ahead of the field.",
			"She learned the game from her grandfather and trained in the evenings at a chess club that meets in the back room of a bakery.",
			"The title qualifies her for the world cup next spring, where she will be the youngest player in the draw.",
		}},
	{slug: "night-ferry-returns", section: "local", date: "2026-11-26T06:45:00Z", author: "Mara Lindqvist",
		title: "The night ferry to the islands returns in December",
		paras: []string{
			"The overnight ferry to the outer islands will sail again from the second week of December, after the ferry company found a crew for the winter season.",
			"Islanders had campaigned for the service since it was cut in spring, saying that without it a hospital visit on the mainland took two days.",
			"The ferry leaves the harbour at eleven at night and arrives at dawn; cabins can be booked from Monday.",
		}},
	{slug: "short-power-cut", section: "local", date: "2026-11-26T12:00:00Z", author: "Tomas Berg",
		title: "Power restored in the old town after a short cut",
		paras: []string{
			"Power was restored to the old town at noon after a cable fault left about two thousand homes without electricity for forty minutes.",
		}},
	{slug: "robot-lawnmower-trial", section: "science", date: "2026-11-16T09:30:00Z", author: "Priya Natarajan",
		title: "Parks department tests robot lawnmowers that spare hedgehogs",
		paras: []string{
			"The parks department has started testing robot lawnmowers with cameras that stop the blades when they detect a hedgehog, after wildlife groups warned that the machines injure sleeping animals.",
			"Six mowers will work the lawns of the botanical garden until spring, and volunteers will count hedgehogs each week to see whether the cameras work at night.",
			"If the trial succeeds, the department plans to replace its petrol mowers in all city parks over three years.",
		}},
}
