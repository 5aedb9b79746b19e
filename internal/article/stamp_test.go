package article

import (
	"slices"
	"testing"
)

// Fixtures written for the project (not taken from a dev set): a story's
// time stamp set as a line of its own inside the body. The line is the
// article's metadata, not its text, in whatever language it is written;
// a sentence that merely mentions a date, and a bare time heading a
// live-blog entry, stay.
func TestExtractStampLines(t *testing.T) {
	cases := []struct {
		name    string
		extra   string
		at      int
		want    []string // besides every story paragraph
		notWant []string
	}{
		{
			name: "stamp and byline joined in one line",
			extra: `<p class="signature"><span>Coast Post</span> | <time datetime="2025-03-04T09:12:00+01:00">04.03.2025 à 09h12</time> • ` +
				`mis à jour <time datetime="2025-03-04T18:40:00+01:00">04.03.2025 à 18h40</time> | Par <span itemprop="author"><a href="/auteurs/lena-varga">Léna Varga</a></span> (avec Tomas Berg)</p>`,
			at:      0,
			notWant: []string{"Léna Varga", "09h12", "Tomas Berg"},
		},
		{
			name:    "stamp with a weekday in another language",
			extra:   `<div class="when"><time datetime="2025-03-04T20:13">terça-feira, 4 de março de 2025 às 20:13</time></div>`,
			at:      1,
			notWant: []string{"terça-feira", "20:13"},
		},
		{
			name:    "updated stamp with the source after it",
			extra:   `<p class="stamp">Updated: <time datetime="2025-03-04T10:07:00Z">March 4, 2025 / 10:07 AM</time> / Coast Post</p>`,
			at:      2,
			notWant: []string{"Updated:", "10:07 AM"},
		},
		{
			name:  "sentence mentioning a date stays",
			extra: `<p>The council will vote on the new wall on <time datetime="2025-04-02">April 2, 2025</time>, a month later than planned.</p>`,
			at:    3,
			want:  []string{"The council will vote on the new wall on April 2, 2025, a month later than planned."},
		},
		{
			name:  "bare time heading an update stays",
			extra: `<p><time datetime="2025-03-04T15:30:00Z">3:30 PM</time></p><p>The last trawler was towed out of the harbour mouth this afternoon, and the entrance is clear again.</p>`,
			at:    4,
			want:  []string{"3:30 PM", "The last trawler was towed out"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := mustExtract(t, storyPage("", tc.extra, tc.at), "https://coastpost.example/news/harbour-reopens")
			checkText(t, a.Text, append(slices.Clone(storyParas), tc.want...), tc.notWant)
		})
	}
}
