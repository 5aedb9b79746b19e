// Command kindtrain trains the cleaner's page-kind model
// (internal/article/pagekind_model.json) on the tune half of WCXB's
// development split and scores it on the check half:
//
//	make train-pagekind   # go run ./internal/article/kindtrain -data ../shared/extraction-bench-wcxb
//
// With -cv 5 it trains nothing and prints, for a range of L2 penalties,
// the article precision that five-fold cross-validation on the tune half
// gives at 97% recall: the default penalty is the one that scored best.
//
// The model is a multinomial logistic regression over
// article.KindFeatureNames, fitted by full-batch gradient descent with an L2
// penalty from zero weights, so the same data gives the same model. It
// learns from the pages it will judge only: the rules' empty pages,
// videos and firm verdicts keep their kind whatever it says. The
// "article" floor is the lowest probability that keeps the rules'
// article recall on the tune half at -recall.
package main

import (
	"compress/gzip"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"

	"github.com/newscrawl/newscrawl/internal/article"
)

// page is one entry of the dataset's pages.json.
type page struct {
	Kind string `json:"kind"`
	Half string `json:"half"`
	URL  string `json:"url"`
}

// noURL stands for a page's URL where the dataset has none, as
// wcxb_score.py passes it: the model learns from the inputs it is scored
// on (a root URL reads as a home page).
const noURL = "http://example.invalid/"

// sample is a page's features and its human kind.
type sample struct {
	id    string
	kind  string
	half  string
	input article.KindSample
}

var (
	verbose = flag.Bool("v", false, "list the check half's pages the model gets wrong")
	folds   = flag.Int("cv", 0, "instead of training, print each L2 penalty's article precision at 97% recall over this many folds of the tune half")
)

func main() {
	data := flag.String("data", "../shared/extraction-bench-wcxb", "the WCXB dataset (pages.json, html/)")
	out := flag.String("out", "internal/article/pagekind_model.json", "where the model is written")
	l2 := flag.Float64("l2", 0.01, "L2 penalty per weight")
	steps := flag.Int("steps", 3000, "gradient steps")
	recall := flag.Float64("recall", 0.985, "article recall the floor keeps on the tune half")
	rescue := flag.Float64("rescue", 0, "probability of article over which the rules' listing, gallery or other page is an article (0: the article floor)")
	flag.Parse()
	if err := run(*data, *out, *l2, *steps, *recall, *rescue); err != nil {
		fmt.Fprintln(os.Stderr, "kindtrain:", err)
		os.Exit(1)
	}
}

func run(data, out string, l2 float64, steps int, recall, rescue float64) error {
	samples, err := load(data)
	if err != nil {
		return err
	}
	var tune, check []sample
	for _, s := range samples {
		if s.half == "tune" {
			tune = append(tune, s)
		} else {
			check = append(check, s)
		}
	}
	classes := []string{article.KindArticle, article.KindService, article.KindProduct, article.KindCollection,
		article.KindListing, article.KindForum, article.KindDocumentation}
	if *folds > 1 {
		crossValidate(tune, classes, *folds, steps, 0.97)
		return nil
	}
	m := fit(judged(tune), classes, l2, steps)
	m.ArticleFloor, m.RescueFloor = floorFor(m, tune, recall), rescue
	if rescue <= 0 {
		m.RescueFloor = m.ArticleFloor
	}
	fmt.Printf("trained on %d tune pages (%d features, %d classes); article floor %.3f\n", len(tune), len(m.Features), len(classes), m.ArticleFloor)
	report("tune", m, tune)
	report("check", m, check)
	raw, err := json.MarshalIndent(m, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(out, append(raw, '\n'), 0o644)
}

// load extracts every page's features (pages with an extraction error are skipped).
func load(dir string) ([]sample, error) {
	raw, err := os.ReadFile(filepath.Join(dir, "pages.json"))
	if err != nil {
		return nil, err
	}
	var pages map[string]page
	if err := json.Unmarshal(raw, &pages); err != nil {
		return nil, fmt.Errorf("pages.json: %w", err)
	}
	ids := make([]string, 0, len(pages))
	for id := range pages {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var out []sample
	for _, id := range ids {
		p := pages[id]
		html, err := readGz(filepath.Join(dir, "html", id+".html.gz"))
		if err != nil {
			return nil, err
		}
		if p.URL == "" {
			p.URL = noURL
		}
		in, err := article.KindFeatures(html, p.URL, article.Options{})
		if err != nil {
			fmt.Fprintf(os.Stderr, "kindtrain: %s skipped: %v\n", id, err)
			continue
		}
		out = append(out, sample{id: id, kind: p.Kind, half: p.Half, input: in})
	}
	return out, nil
}

func readGz(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return io.ReadAll(z)
}

// model is the page-kind model the trainer fits and article loads.
type model = article.KindModel

// fit standardises the features and runs gradient descent on the softmax loss.
func fit(train []sample, classes []string, l2 float64, steps int) *model {
	names := article.KindFeatureNames()
	nf, nc, n := len(names), len(classes), float64(len(train))
	m := &model{
		Data:     "WCXB development split, tune half (Murrough Foley, 2026, CC-BY-4.0; Murrough-Foley/web-content-extraction-benchmark at c039d5e)",
		Command:  "make train-pagekind",
		Features: names, Classes: classes,
		Mean: make([]float64, nf), Scale: make([]float64, nf),
		Weights: make([][]float64, nc), Bias: make([]float64, nc),
	}
	for _, s := range train {
		for i, v := range s.input.Features {
			m.Mean[i] += v / n
		}
	}
	for _, s := range train {
		for i, v := range s.input.Features {
			m.Scale[i] += (v - m.Mean[i]) * (v - m.Mean[i]) / n
		}
	}
	for i := range m.Scale {
		m.Scale[i] = math.Sqrt(m.Scale[i])
		if m.Scale[i] < 1e-9 {
			m.Scale[i] = 1
		}
	}
	for k := range m.Weights {
		m.Weights[k] = make([]float64, nf)
	}
	x := make([][]float64, len(train))
	y := make([]int, len(train))
	for j, s := range train {
		x[j] = make([]float64, nf)
		for i, v := range s.input.Features {
			x[j][i] = (v - m.Mean[i]) / m.Scale[i]
		}
		y[j] = -1
		for k, c := range classes {
			if c == s.kind {
				y[j] = k
			}
		}
	}
	const rate = 0.5
	gw := make([][]float64, nc)
	for k := range gw {
		gw[k] = make([]float64, nf)
	}
	gb := make([]float64, nc)
	p := make([]float64, nc)
	for range steps {
		for k := range gw {
			clear(gw[k])
		}
		clear(gb)
		for j := range x {
			if y[j] < 0 {
				continue
			}
			softmax(m, x[j], p)
			for k := range p {
				d := p[k]
				if k == y[j] {
					d--
				}
				gb[k] += d / n
				for i, v := range x[j] {
					gw[k][i] += d * v / n
				}
			}
		}
		for k := range m.Weights {
			m.Bias[k] -= rate * gb[k]
			for i := range m.Weights[k] {
				m.Weights[k][i] -= rate * (gw[k][i] + l2*m.Weights[k][i])
			}
		}
	}
	for k := range m.Weights { // four places are plenty and keep the file small
		m.Bias[k] = round4(m.Bias[k])
		for i := range m.Weights[k] {
			m.Weights[k][i] = round4(m.Weights[k][i])
		}
	}
	for i := range m.Mean {
		m.Mean[i], m.Scale[i] = round4(m.Mean[i]), round4(m.Scale[i])
	}
	return m
}

func round4(v float64) float64 { return math.Round(v*1e4) / 1e4 }

// softmax writes the class probabilities of standardised x into p.
func softmax(m *model, x []float64, p []float64) {
	top := math.Inf(-1)
	for k := range p {
		z := m.Bias[k]
		for i, v := range x {
			z += m.Weights[k][i] * v
		}
		p[k] = z
		top = math.Max(top, z)
	}
	var sum float64
	for k := range p {
		p[k] = math.Exp(p[k] - top)
		sum += p[k]
	}
	for k := range p {
		p[k] /= sum
	}
}

// judged keeps the samples whose kind the model decides (KindModel.decide).
func judged(set []sample) []sample {
	var out []sample
	for _, s := range set {
		if !s.input.Firm && s.input.RuleKind != article.KindEmpty && s.input.RuleKind != article.KindVideo {
			out = append(out, s)
		}
	}
	return out
}

// probArticle is the model's probability of "article" for a sample.
func probArticle(m *model, s sample) float64 {
	return m.Probabilities(s.input.Features)[article.KindArticle]
}

// floorFor is the highest floor under which at most 1-recall of the
// articles the model judges (all but the rules' empty pages and videos)
// would fall.
func floorFor(m *model, train []sample, recall float64) float64 {
	var ps []float64
	for _, s := range judged(train) {
		if s.kind == article.KindArticle {
			ps = append(ps, probArticle(m, s))
		}
	}
	sort.Float64s(ps)
	i := int(math.Floor(float64(len(ps)) * (1 - recall)))
	if i >= len(ps) {
		return 0
	}
	return round4(ps[i] * 0.999)
}

// report prints article precision and recall, rules alone and with the model.
func report(half string, m *model, set []sample) {
	var arts int
	var rules, withModel struct{ called, right int } // pages called articles, and of those true articles
	tally := func(t *struct{ called, right int }, isArt bool, s sample) {
		if isArt {
			t.called++
			if s.kind == article.KindArticle {
				t.right++
			}
		}
	}
	confusion := map[string]map[string]int{}
	for _, s := range set {
		isArt, kind := m.Decide(s.input)
		tally(&rules, s.input.IsArticle, s)
		tally(&withModel, isArt, s)
		if s.kind == article.KindArticle {
			arts++
		}
		if *verbose && half == "check" && isArt != (s.kind == article.KindArticle) {
			fmt.Printf("      miss %s %-13s called %-13s p(article) %.2f rules %s\n", s.id, s.kind, kind, probArticle(m, s), s.input.RuleKind)
		}
		if confusion[s.kind] == nil {
			confusion[s.kind] = map[string]int{}
		}
		confusion[s.kind][kind]++
	}
	ratio := func(a, b int) float64 {
		if b == 0 {
			return 0
		}
		return float64(a) / float64(b)
	}
	fmt.Printf("%-5s %4d pages: rules alone article precision %.3f recall %.3f; with the model precision %.3f recall %.3f\n",
		half, len(set), ratio(rules.right, rules.called), ratio(rules.right, arts), ratio(withModel.right, withModel.called), ratio(withModel.right, arts))
	kinds := make([]string, 0, len(confusion))
	for k := range confusion {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		fmt.Printf("      %-14s -> %v\n", k, confusion[k])
	}
}
