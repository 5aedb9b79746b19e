package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/newscrawl/newscrawl/internal/embed"
	"github.com/newscrawl/newscrawl/internal/embed/chunk"
)

// The corpus's shape. Text embeddings are not isotropic: a topic's
// vectors vary along a few dozen directions, most of the variance in the
// first few (a decaying spectrum), which is what gives a nearest neighbour
// meaning. Noise of the same size in every dimension (-spectrum flat) is
// the hardest case for any index and no model's output.
const (
	topicDirections = 32   // directions a topic's vectors vary along
	isotropicShare  = 0.10 // of the noise's variance spread over all dimensions

	topicWords  = 2000 // a topic's own vocabulary
	topicShare  = 0.15 // of a chunk's words drawn from it
	commonWords = 5000
)

// data is the generated corpus.
type data struct {
	centres [][]float32
	bases   [][][]float32 // per cluster, topicDirections unit vectors
	scales  []float32     // per direction, the noise's share along it
	flat    bool
	docs    []embed.DocChunks
	cluster []int // per doc
	words   [][]string
	common  []string
	days    int
}

func generate(rng *rand.Rand, o options) *data {
	d := &data{days: 365, flat: o.spectrum == "flat"}
	// Variance along direction j falls as 1/(j+1), a power law like a
	// sentence encoder's principal components.
	var h float64
	for j := range topicDirections {
		h += 1 / float64(j+1)
	}
	for j := range topicDirections {
		d.scales = append(d.scales, float32(math.Sqrt((1-isotropicShare)/float64(j+1)/h)))
	}
	for range o.clusters {
		d.centres = append(d.centres, normalize(gaussian(rng, o.dims)))
		var basis [][]float32
		for range topicDirections {
			basis = append(basis, normalize(gaussian(rng, o.dims)))
		}
		d.bases = append(d.bases, basis)
	}
	for i := range commonWords {
		d.common = append(d.common, pseudoWord(i, "a"))
	}
	for c := range o.clusters {
		var ws []string
		for j := range topicWords {
			ws = append(ws, pseudoWord(c*topicWords+j, "o"))
		}
		d.words = append(d.words, ws)
	}
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	ndocs := o.n / o.perDoc
	for i := range ndocs {
		c := rng.IntN(o.clusters)
		pub := start.AddDate(0, 0, rng.IntN(d.days))
		doc := embed.DocChunks{DocID: fmt.Sprintf("doc%07d", i), BodyHash: "h", Host: fmt.Sprintf("host%03d.example", rng.IntN(o.hosts)),
			Language: "en", PublishedAt: &pub, Title: d.text(rng, c, 6), New: true}
		for j := range o.perDoc {
			body := d.text(rng, c, o.words)
			doc.Chunks = append(doc.Chunks, chunk.Chunk{Index: j, Start: j * 600, End: j*600 + len(body), Text: body})
			doc.Vectors = append(doc.Vectors, d.near(rng, c, o.noise))
		}
		d.docs = append(d.docs, doc)
		d.cluster = append(d.cluster, c)
	}
	return d
}

// zipf draws a rank below n with probability falling as 1/rank, as word
// frequencies in text do.
func zipf(rng *rand.Rand, n int) int {
	return int(math.Pow(float64(n), rng.Float64())) - 1
}

// text draws n words: topicShare from the cluster's vocabulary, the rest
// from the common one, each by its frequency.
func (d *data) text(rng *rand.Rand, c, n int) string {
	ws := make([]string, n)
	for i := range ws {
		if rng.Float64() < topicShare {
			ws[i] = d.topicWord(rng, c)
		} else {
			ws[i] = d.common[zipf(rng, commonWords)]
		}
	}
	return strings.Join(ws, " ")
}

func (d *data) topicWord(rng *rand.Rand, c int) string { return d.words[c][zipf(rng, topicWords)] }

// query is what a reader of topic c might type: three of its words and a
// frequent one.
func (d *data) query(rng *rand.Rand, c int) string {
	return fmt.Sprintf("%s %s %s %s", d.topicWord(rng, c), d.topicWord(rng, c), d.topicWord(rng, c), d.common[rng.IntN(200)])
}

// near draws a vector of cluster c whose noise has the given norm (its
// root mean square, for the decaying spectrum).
func (d *data) near(rng *rand.Rand, c int, noise float64) []float32 {
	centre := d.centres[c]
	v := slices.Clone(centre)
	if d.flat {
		g := normalize(gaussian(rng, len(v)))
		for i := range v {
			v[i] += float32(noise) * g[i]
		}
		return normalize(v)
	}
	for j, b := range d.bases[c] {
		a := float32(noise) * d.scales[j] * float32(rng.NormFloat64())
		for i := range v {
			v[i] += a * b[i]
		}
	}
	iso := float32(noise * math.Sqrt(isotropicShare/float64(len(v))))
	for i := range v {
		v[i] += iso * float32(rng.NormFloat64())
	}
	return normalize(v)
}

// difficulty says how hard the corpus is for a nearest-neighbour index, by
// the two measures ANN benchmarks report for real data sets, around
// queries of random clusters: the local intrinsic dimensionality (the
// maximum-likelihood estimate over a query's k nearest chunks, found
// exactly among its cluster's, where its nearest neighbours lie) and the
// relative contrast (the mean distance to a sample of all chunks over the
// nearest one's). A higher dimensionality and a lower contrast are harder.
func (d *data) difficulty(rng *rand.Rand, o options, queries, k int) (lid, contrast float64) {
	members := make([][][]float32, o.clusters)
	var all [][]float32
	for i, doc := range d.docs {
		members[d.cluster[i]] = append(members[d.cluster[i]], doc.Vectors...)
		all = append(all, doc.Vectors...)
	}
	sample := make([][]float32, min(10_000, len(all)))
	for i := range sample {
		sample[i] = all[rng.IntN(len(all))]
	}
	var lids, contrasts []float64
	for range queries {
		c := rng.IntN(o.clusters)
		if len(members[c]) <= k {
			continue
		}
		q := d.near(rng, c, o.noise)
		dist := distances(q, members[c])
		slices.Sort(dist)
		var s float64
		for _, x := range dist[:k] {
			s += math.Log(x / dist[k-1])
		}
		lids = append(lids, -float64(k)/s)
		var mean float64
		for _, x := range distances(q, sample) {
			mean += x / float64(len(sample))
		}
		contrasts = append(contrasts, mean/dist[0])
	}
	return median(lids), median(contrasts)
}

// distances are the Euclidean distances from q to vs, all unit vectors.
func distances(q []float32, vs [][]float32) []float64 {
	out := make([]float64, len(vs))
	for i, v := range vs {
		var dot float64
		for j := range q {
			dot += float64(q[j]) * float64(v[j])
		}
		out[i] = math.Sqrt(max(2-2*dot, 1e-12))
	}
	return out
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	slices.Sort(xs)
	return xs[len(xs)/2]
}

func gaussian(rng *rand.Rand, n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(rng.NormFloat64())
	}
	return v
}

func normalize(v []float32) []float32 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	n := float32(math.Sqrt(s))
	for i := range v {
		v[i] /= n
	}
	return v
}

// pseudoWord spells i in consonant-vowel syllables (letters only, so the
// text-search parser keeps it whole).
func pseudoWord(i int, vowel string) string {
	const cons = "bdfgklmnprstvz"
	var b strings.Builder
	for {
		b.WriteByte(cons[i%len(cons)])
		b.WriteString(vowel)
		i /= len(cons)
		if i == 0 {
			break
		}
	}
	return b.String() + "x"
}
