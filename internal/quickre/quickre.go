// Package quickre is regexp with a prefilter. Go's matcher runs an
// unanchored pattern that opens with no literal from every position of
// the text, so a long alternation of words costs tens of microseconds to
// say no to a short line. Most of the cleaner's patterns cannot match
// without one of a few literals ("reporter", "staff", "»"); quickre
// finds those in the pattern's syntax tree when it is compiled and looks
// for them first, and a text holding none of them is answered at once,
// with exactly what regexp would have answered.
package quickre

import (
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// A Regexp is a regexp.Regexp whose finding methods look for one of
// need first. Methods it does not wrap run the pattern as they are.
type Regexp struct {
	*regexp.Regexp
	need  []string // a match holds one of these (case-folded, see fold); nil: no prefilter
	cased bool     // some rune of need has other cases: the text is folded before looking
}

// MustCompile is regexp.MustCompile with the prefilter.
func MustCompile(pattern string) *Regexp {
	re := regexp.MustCompile(pattern)
	tree, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		panic("quickre: " + err.Error()) // regexp accepted it: cannot happen
	}
	need := needed(tree.Simplify())
	if len(need) > maxNeeds {
		need = nil // looking for them all would cost more than it saves
	}
	cased := slices.ContainsFunc(need, func(l string) bool { return strings.ContainsFunc(l, hasCases) })
	return &Regexp{Regexp: re, need: need, cased: cased}
}

// maxNeeds bounds the literals looked for before the pattern runs.
const maxNeeds = 64

// maxClass is the largest character class read as literals ("[»›]",
// "[摄攝]"); a larger one ("\d", "\p{L}") asks for nothing.
const maxClass = 4

// may reports whether s can match: false only when it holds none of need.
func (re *Regexp) may(s string) bool {
	if re.need == nil {
		return true
	}
	f := s // a literal without cases is in the text as it is
	if re.cased {
		f = fold(s)
	}
	return slices.ContainsFunc(re.need, func(n string) bool { return strings.Contains(f, n) })
}

// MatchString is regexp's, answered at once where the text cannot match.
func (re *Regexp) MatchString(s string) bool {
	return re.may(s) && re.Regexp.MatchString(s)
}

// FindString is regexp's, answered at once where the text cannot match.
func (re *Regexp) FindString(s string) string {
	if !re.may(s) {
		return ""
	}
	return re.Regexp.FindString(s)
}

// FindStringIndex is regexp's, answered at once where the text cannot match.
func (re *Regexp) FindStringIndex(s string) []int {
	if !re.may(s) {
		return nil
	}
	return re.Regexp.FindStringIndex(s)
}

// FindStringSubmatch is regexp's, answered at once where the text cannot match.
func (re *Regexp) FindStringSubmatch(s string) []string {
	if !re.may(s) {
		return nil
	}
	return re.Regexp.FindStringSubmatch(s)
}

// FindStringSubmatchIndex is regexp's, answered at once where the text cannot match.
func (re *Regexp) FindStringSubmatchIndex(s string) []int {
	if !re.may(s) {
		return nil
	}
	return re.Regexp.FindStringSubmatchIndex(s)
}

// FindAllStringIndex is regexp's, answered at once where the text cannot match.
func (re *Regexp) FindAllStringIndex(s string, n int) [][]int {
	if !re.may(s) {
		return nil
	}
	return re.Regexp.FindAllStringIndex(s, n)
}

// ReplaceAllString is regexp's, answered at once where the text cannot match.
func (re *Regexp) ReplaceAllString(src, repl string) string {
	if !re.may(src) {
		return src
	}
	return re.Regexp.ReplaceAllString(src, repl)
}

// ReplaceAllStringFunc is regexp's, answered at once where the text cannot match.
func (re *Regexp) ReplaceAllStringFunc(src string, repl func(string) string) string {
	if !re.may(src) {
		return src
	}
	return re.Regexp.ReplaceAllStringFunc(src, repl)
}

// Split is regexp's Split: with no match, the whole of s (n != 0).
func (re *Regexp) Split(s string, n int) []string {
	if n != 0 && !re.may(s) {
		return []string{s}
	}
	return re.Regexp.Split(s, n)
}

// needed returns literals one of which every match of re holds, folded;
// nil when a match may hold none (it can be empty, or is made of large
// classes only). In a concatenation any part's literals will do: the
// part whose shortest literal is longest is taken.
func needed(re *syntax.Regexp) []string {
	switch re.Op {
	case syntax.OpLiteral:
		return []string{fold(string(re.Rune))}
	case syntax.OpCharClass:
		var lits []string
		for i := 0; i+1 < len(re.Rune); i += 2 {
			lo, hi := re.Rune[i], re.Rune[i+1]
			if hi-lo >= maxClass || len(lits) >= maxClass {
				return nil
			}
			for r := lo; r <= hi; r++ {
				if l := fold(string(r)); !slices.Contains(lits, l) {
					lits = append(lits, l)
				}
			}
		}
		if len(lits) > maxClass {
			return nil
		}
		return lits
	case syntax.OpCapture, syntax.OpPlus:
		return needed(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return needed(re.Sub[0])
		}
		return nil
	case syntax.OpAlternate:
		var lits []string
		for _, sub := range re.Sub {
			l := needed(sub)
			if l == nil {
				return nil
			}
			for _, s := range l {
				if !slices.Contains(lits, s) {
					lits = append(lits, s)
				}
			}
		}
		return lits
	case syntax.OpConcat:
		var best []string
		for _, sub := range re.Sub {
			if l := needed(sub); l != nil && (best == nil || better(l, best)) {
				best = l
			}
		}
		return best
	}
	return nil // empty-width assertions, any character, star, quest, empty
}

// better prefers the set whose shortest literal is longer, then the
// smaller set.
func better(a, b []string) bool {
	sa, sb := shortest(a), shortest(b)
	return sa > sb || sa == sb && len(a) < len(b)
}

func shortest(lits []string) int {
	n := -1
	for _, l := range lits {
		if n < 0 || len(l) < n {
			n = len(l)
		}
	}
	return n
}

// fold maps every rune to one of its case-folding orbit, the same for the
// whole orbit (k, K and the Kelvin sign; s, S and ſ), as (?i) matches
// them: a text holds a literal, in any case, only if its fold holds the
// literal's fold. Case-sensitive literals are folded too, which only
// lets more texts through to the pattern.
func fold(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return strings.ToLower(s)
	}
	foldOnce.Do(makeFoldTable)
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		b.WriteRune(foldRune(r))
	}
	return b.String()
}

// foldRune is the smallest rune of r's orbit, lower-cased where that is
// an ASCII capital (so ASCII text folds by strings.ToLower alone). The
// Basic Multilingual Plane's are read from foldBMP (made by fold's first
// call), as unicode.SimpleFold costs a search per step.
func foldRune(r rune) rune {
	if r >= 0 && r <= 0xffff {
		return rune(foldBMP[r])
	}
	return orbitMin(r)
}

// makeFoldTable fills foldBMP: runes outside unicode.CaseRanges have no
// other case and fold to themselves.
func makeFoldTable() {
	for c := range foldBMP {
		foldBMP[c] = uint16(c)
	}
	for _, cr := range unicode.CaseRanges {
		for c := rune(cr.Lo); c <= rune(cr.Hi) && c <= 0xffff; c++ {
			foldBMP[c] = uint16(orbitMin(c))
		}
	}
}

// hasCases reports whether r's folding orbit holds other runes.
func hasCases(r rune) bool {
	return unicode.SimpleFold(r) != r
}

var (
	foldOnce sync.Once
	foldBMP  [0x10000]uint16
)

func orbitMin(r rune) rune {
	min := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if f < min {
			min = f
		}
	}
	if min >= 'A' && min <= 'Z' {
		min += 'a' - 'A'
	}
	return min
}
