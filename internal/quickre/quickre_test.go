package quickre

import (
	"math/rand/v2"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"testing"
)

// patterns hold each kind of node the prefilter reads, and the cases that
// must not be prefiltered (an empty match, a large class, a star).
var patterns = []string{
	`(?i)\b(?:writer|editor|correspondent|reporter|columnist|staff)\b`,
	`(?i)https?://|www\.|@|\d{3,}|updated|\bmeet the\b|[<>{}=]|\s[»›]\s|[摄攝]影?$|^undefined$|简介`,
	`(?i)^\W*(?:additional )?reporting by\b|\bcontributed (?:reporting|to this (?:report|story))\b`,
	`(?i)\bsta(?:ff|rs)?\b`,    // "sta" needed, then more
	`(?i)kelvin|strasse`,       // folds: K (U+212A), ſ (U+017F)
	`(?-i:ABC)|(?i:def)`,       // a case-sensitive literal is folded too
	`\s*[,;|•、，]\s*|\s+·\s+`,   // small classes
	`x*|abc`,                   // may be empty: no prefilter
	`\p{Lu}\p{Ll}+`,            // large classes: no prefilter
	`(?i)(?:ab)+c{2,}|q{0,3}z`, // repeats
	`(?i)σ|ß`,                  // Greek sigma's three forms, sharp s
	`(\d{4})-(\d\d)-(\d\d)`,    // submatches
	`(?i)\bk\b`,                // one letter
	"\uFFFD|x",                 // the replacement rune, as invalid bytes read
}

// alphabet makes texts that hit and miss the patterns' literals in every
// case and script, with invalid UTF-8 bytes.
var alphabet = []string{"a", "b", "c", "d", "e", "f", "A", "B", "C", "D", "E", "F", "K", "k", "\u212a", "s", "S", "\u017f",
	"σ", "Σ", "ς", "ß", "ẞ", "x", "z", "q", "1", "2", "0", "-", " ", ",", "·", "»", "@", "<", "摄", "影", "\xff", "\xe2\x80",
	"writer", "Staff", "STA", "reporting by ", "REPORTER", "keLvin", "\u212aelvin", "stra\u017f\u017fe", "www.", "meet the", "abc", "ABC", "DEF",
	"2025-11-03", "undefined"}

func randomText(r *rand.Rand) string {
	var b strings.Builder
	for range r.IntN(12) {
		b.WriteString(alphabet[r.IntN(len(alphabet))])
	}
	return b.String()
}

// Every method answers as regexp's does, on texts that hold the needed
// literals in other cases and scripts and on texts that do not.
func TestSameAnswersAsRegexp(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, p := range patterns {
		q, std := MustCompile(p), regexp.MustCompile(p)
		for range 4000 {
			s := randomText(r)
			if got, want := q.MatchString(s), std.MatchString(s); got != want {
				t.Fatalf("%q on %q: MatchString %v, regexp %v (need %q)", p, s, got, want, q.need)
			}
			if got, want := q.FindStringSubmatchIndex(s), std.FindStringSubmatchIndex(s); !slices.Equal(got, want) {
				t.Fatalf("%q on %q: FindStringSubmatchIndex %v, regexp %v", p, s, got, want)
			}
			if got, want := q.ReplaceAllString(s, "<$0>"), std.ReplaceAllString(s, "<$0>"); got != want {
				t.Fatalf("%q on %q: ReplaceAllString %q, regexp %q", p, s, got, want)
			}
			if got, want := q.Split(s, -1), std.Split(s, -1); !slices.Equal(got, want) {
				t.Fatalf("%q on %q: Split %q, regexp %q", p, s, got, want)
			}
			if got, want := q.FindAllStringIndex(s, -1), std.FindAllStringIndex(s, -1); !slices.EqualFunc(got, want, slices.Equal[[]int]) {
				t.Fatalf("%q on %q: FindAllStringIndex %v, regexp %v", p, s, got, want)
			}
		}
	}
}

// manyWords is an alternation of n words with no common prefix (the
// parser would factor one out).
func manyWords(n int) string {
	words := make([]string, n)
	for i := range words {
		words[i] = string(rune(0x4e00+i)) + "x"
	}
	return strings.Join(words, "|")
}

// The literals read from patterns: what a match cannot do without, and
// nothing where a match may do without any.
func TestNeeded(t *testing.T) {
	cases := []struct {
		pattern string
		want    []string
	}{
		{`(?i)\b(?:writer|editor|staff)\b`, []string{"writer", "editor", "staff"}},
		{`(?i)^\W*reporting by\b`, []string{"reporting by"}},
		{`(?i)\d{3,}|@`, nil},                    // \d is a large class
		{`[»›]\s|x`, []string{"»", "›", "x"}},    // a small class
		{`(?i)Kelvin`, []string{"kelvin"}},       // folded
		{`\s+(?:foo|ab)\s+bar`, []string{"bar"}}, // the longer of a concatenation's needs
		{`x*|abc`, nil},                          // may match empty
		{`(?:ab)?c`, []string{"c"}},              // an optional part asks for nothing
		{`\p{Lu}\p{Ll}+`, nil},                   // large classes
		{`(?i)straße`, []string{"straße"}},       // ß has no capital in simple folding but ẞ
		{`a{0,3}b{2}`, []string{"b"}},            // repeats
		{`(?i)(?:` + manyWords(70) + `)`, nil},   // too many to look for
	}
	for _, c := range cases {
		tree, err := syntax.Parse(c.pattern, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		got := MustCompile(c.pattern).need
		if !slices.Equal(got, c.want) {
			t.Errorf("%q: need %q (tree %v), want %q", c.pattern, got, tree.Simplify(), c.want)
		}
	}
}

// The table folds every rune of the Basic Multilingual Plane as its
// folding orbit does.
func TestFoldTable(t *testing.T) {
	fold("é") // makes the table
	for c := range rune(0x10000) {
		if got, want := foldRune(c), orbitMin(c); got != want {
			t.Fatalf("U+%04X folds to U+%04X, its orbit to U+%04X", c, got, want)
		}
	}
}
