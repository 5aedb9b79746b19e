// Package gazette serves a generated news site for tests and benchmarks:
// a home page, ten sections and any number of articles whose texts differ
// enough that no two are near duplicates. It records every request, so
// fetches and refetches can be counted.
package gazette

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"
)

// A Site is a running generated news site on a loopback port.
type Site struct {
	srv             *httptest.Server
	first, articles int

	mu   sync.Mutex
	hits map[string][]time.Time
}

const sections = 10

// New serves a site of articles articles until Close.
func New(articles int) *Site { return NewFrom(0, articles) }

// NewFrom serves articles first … first+articles-1, so that two sites of one
// test share no article text (no duplicates between them).
func NewFrom(first, articles int) *Site {
	s := &Site{first: first, articles: articles, hits: map[string][]time.Time{}}
	mux := http.NewServeMux()
	mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, r *http.Request) {
		s.hit(r)
		fmt.Fprint(w, "User-agent: *\nAllow: /\n")
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.hit(r)
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		var b strings.Builder
		b.WriteString(`<html><head><title>The Chaos Gazette</title></head><body><h1>The Chaos Gazette</h1><ul>`)
		for i := range sections {
			fmt.Fprintf(&b, `<li><a href="/section/%d">Section %d</a></li>`, i, i)
		}
		b.WriteString(`</ul></body></html>`)
		html(w, b.String())
	})
	mux.HandleFunc("/section/", func(w http.ResponseWriter, r *http.Request) {
		s.hit(r)
		var sec int
		if _, err := fmt.Sscanf(r.URL.Path, "/section/%d", &sec); err != nil {
			http.NotFound(w, r)
			return
		}
		var b strings.Builder
		fmt.Fprintf(&b, `<html><head><title>Section %d</title></head><body><nav><a href="/">Home</a></nav><ul>`, sec)
		for i := s.first + sec; i < s.first+s.articles; i += sections {
			fmt.Fprintf(&b, `<li><a href="%s">Story %d</a></li>`, ArticlePath(i), i)
		}
		b.WriteString(`</ul></body></html>`)
		html(w, b.String())
	})
	mux.HandleFunc("/article/", func(w http.ResponseWriter, r *http.Request) {
		s.hit(r)
		var n int
		if _, err := fmt.Sscanf(r.URL.Path, "/article/%d", &n); err != nil || n < s.first || n >= s.first+s.articles {
			http.NotFound(w, r)
			return
		}
		html(w, ArticlePage(n))
	})
	s.srv = httptest.NewServer(mux)
	return s
}

func html(w http.ResponseWriter, body string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprint(w, body)
}

// URL is the site's home page.
func (s *Site) URL() string { return s.srv.URL + "/" }

// Close stops serving.
func (s *Site) Close() { s.srv.Close() }

// ArticlePath is the path of article n.
func ArticlePath(n int) string { return fmt.Sprintf("/article/%d", n) }

func (s *Site) hit(r *http.Request) {
	s.mu.Lock()
	s.hits[r.URL.Path] = append(s.hits[r.URL.Path], time.Now())
	s.mu.Unlock()
}

// Fetched counts the distinct article pages requested so far.
func (s *Site) Fetched() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for p := range s.hits {
		if strings.HasPrefix(p, "/article/") {
			n++
		}
	}
	return n
}

// Hits counts the requests for path.
func (s *Site) Hits(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.hits[path])
}

// Refetches counts the requests for a page after its first, in all and
// those made in [from, to).
func (s *Site) Refetches(from, to time.Time) (all, within int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, times := range s.hits {
		for _, t := range times[1:] {
			all++
			if !t.Before(from) && t.Before(to) {
				within++
			}
		}
	}
	return all, within
}

// Requests counts every request so far.
func (s *Site) Requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, times := range s.hits {
		n += len(times)
	}
	return n
}

var (
	places   = []string{"the harbour", "the old town", "the valley", "the university", "the airport", "the river district", "the market square", "the northern suburbs", "the industrial park", "the coast road", "the mountain pass", "the city hall", "the east bank", "the railway yard", "the fishing village", "the vineyards", "the shopping centre", "the ring road", "the old prison", "the botanical garden"}
	subjects = []string{"council", "school board", "fire brigade", "rail operator", "hospital", "museum", "football club", "water company", "police", "farmers' union", "chamber of commerce", "library"}
	verbs    = []string{"approved", "rejected", "delayed", "announced", "expanded", "cancelled", "reviewed", "funded", "opened", "closed", "inspected", "defended"}
	objects  = []string{"a new budget", "the bridge repair", "a bus lane", "the night market", "a solar farm", "the youth centre", "a housing plan", "the ferry timetable", "a recycling scheme", "the festival", "a tram line", "the flood barrier", "the parking fees", "a cycling track", "the school meals", "a wind turbine", "the swimming pool", "a heat network", "the street lights", "a skate park", "the dog beach", "a river cleanup", "the theatre roof", "a vaccine clinic"}
	people   = []string{"the mayor", "a spokesperson", "the chief engineer", "local residents", "the head teacher", "a union leader", "the director", "shop owners", "the treasurer", "a retired judge", "the harbour master", "two councillors"}
	moods    = []string{"welcomed", "criticised", "questioned", "praised", "doubted", "supported", "opposed", "celebrated"}
)

func cap(s string) string { return strings.ToUpper(s[:1]) + s[1:] }

// Title is article n's headline, as ArticlePage renders it.
func Title(n int) string {
	rng := rand.New(rand.NewPCG(uint64(n)+1, 0x6e63))
	return titleOf(n, func(list []string) string { return list[rng.IntN(len(list))] })
}

// titleOf draws the headline: the first picks of article n's sequence.
func titleOf(n int, pick func([]string) string) string {
	return fmt.Sprintf("The %s %s %s in %s (report %d)", pick(subjects), pick(verbs), pick(objects), pick(places), n)
}

// ArticlePage renders article n: its own title, byline and date, and three
// paragraphs drawn from n's own random sequence.
func ArticlePage(n int) string {
	rng := rand.New(rand.NewPCG(uint64(n)+1, 0x6e63))
	pick := func(list []string) string { return list[rng.IntN(len(list))] }
	var b strings.Builder
	title := titleOf(n, pick)
	fmt.Fprintf(&b, `<!doctype html><html lang="en"><head><title>%s - The Chaos Gazette</title>
<meta property="og:type" content="article"><meta property="article:published_time" content="2026-11-%02dT08:00:00Z">
<meta name="author" content="Reporter %d"></head><body><header><nav><a href="/">Home</a></nav></header>
<article><h1>%s</h1><p class="byline">By Reporter %d</p>`, title, 1+n%28, n%17, title, n%17)
	days := []string{"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"}
	templates := []func() string{
		func() string {
			return fmt.Sprintf("On %s the %s in %s %s %s.", pick(days), pick(subjects), pick(places), pick(verbs), pick(objects))
		},
		func() string {
			return fmt.Sprintf("%s %s the plan, saying %s %s would cost %d thousand.", cap(pick(people)), pick(moods), pick(objects), pick(places), 10+rng.IntN(900))
		},
		func() string {
			return fmt.Sprintf("After %d days %s %s %s near %s.", 2+rng.IntN(60), pick(people), pick(verbs), pick(objects), pick(places))
		},
		func() string {
			return fmt.Sprintf("Critics of the %s %s that %s %s %s.", pick(subjects), pick(moods), pick(people), pick(verbs), pick(objects))
		},
		func() string {
			return fmt.Sprintf("%s, %s and %s were %s by %s.", cap(pick(objects)), pick(objects), pick(objects), pick(verbs), pick(people))
		},
	}
	for range 4 {
		b.WriteString("<p>")
		for range 5 {
			b.WriteString(templates[rng.IntN(len(templates))]() + " ")
		}
		b.WriteString("</p>")
	}
	b.WriteString(`</article><footer>© The Chaos Gazette</footer></body></html>`)
	return b.String()
}
