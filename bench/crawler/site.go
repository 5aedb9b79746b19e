package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

// Shape of the generated site.
const (
	articlesPerSection = 50
	urlsPerSitemap     = 1000
	feedItems          = 30
	homeStories        = 20
	relatedLinks       = 3
	paragraphs         = 6
	wordsPerParagraph  = 60
)

// A page is one pre-rendered response.
type page struct {
	contentType string
	body        []byte
	encoding    string // Content-Encoding, for a gzip bomb
}

// A host is one listener of the site on 127.0.0.1 with its own pages.
type host struct {
	index int
	base  string // http://127.0.0.1:port
	addr  string // 127.0.0.1:port
	pages map[string]page
	srv   *http.Server
}

// A site is the generated news site: n articles spread over several hosts
// (listeners on 127.0.0.1, so each is its own politeness unit), each host
// with a home page, section pages, RSS and Atom feeds, a sitemap index with
// gzip'd children and a news sitemap, and a robots.txt with a Disallow.
// Pages carry nav, ads and comments boilerplate, and some links differ only
// by tracking parameters or fragments. Every article is linked from a
// section page, so a crawler that only follows a[href] reaches all of
// them. The site counts requests per normalized URL (tracking parameters
// dropped; fragments never reach a server) and keeps request times per host.
type site struct {
	n       int
	hosts   []*host
	padKB   int  // bytes of padding per article page, in KiB (a bloated page)
	hostile bool // host 0 also serves the hostile pages (hostilePages)

	mu         sync.Mutex
	counts     map[string]int         // host + path + non-tracking query → requests
	times      map[string][]time.Time // host → request arrival times
	answers    []time.Duration        // each answer's time from arrival to body written
	requests   int
	disallowed int // requests under /private/ (robots.txt Disallow)
	articles   map[string]bool
	variants   int // tracking/fragment variant links on the site
}

// newSite renders the site and starts its listeners.
func newSite(n, nhosts, padKB int, hostile bool) (*site, error) {
	s := &site{n: n, padKB: padKB, hostile: hostile}
	for i := range nhosts {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			s.close()
			return nil, fmt.Errorf("listen for site host %d: %w", i, err)
		}
		h := &host{index: i, addr: ln.Addr().String(), base: "http://" + ln.Addr().String(), pages: map[string]page{}}
		h.srv = &http.Server{Handler: s.handler(h), ReadHeaderTimeout: 10 * time.Second}
		s.hosts = append(s.hosts, h)
		go h.srv.Serve(ln)
	}
	s.render()
	s.reset()
	return s, nil
}

func (s *site) close() {
	for _, h := range s.hosts {
		h.srv.Close()
	}
}

// seed is the crawl's start: the first host's home page.
func (s *site) seed() string { return s.hosts[0].base + "/" }

// addrs lists the hosts' host:port.
func (s *site) addrs() []string {
	out := make([]string, len(s.hosts))
	for i, h := range s.hosts {
		out[i] = h.addr
	}
	return out
}

// pageCount is the number of distinct URLs a crawler reading robots.txt,
// feeds and sitemaps should fetch (everything but /private/).
func (s *site) pageCount() int {
	c := 0
	for _, h := range s.hosts {
		for p := range h.pages {
			if !strings.HasPrefix(p, "/private/") {
				c++
			}
		}
	}
	return c
}

func (s *site) reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.counts = map[string]int{}
	s.times = map[string][]time.Time{}
	s.answers = nil
	s.articles = map[string]bool{}
	s.requests, s.disallowed = 0, 0
}

func (s *site) handler(h *host) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		now := time.Now()
		key := h.addr + r.URL.Path + keptQuery(r.URL.Query())
		s.mu.Lock()
		s.requests++
		s.counts[key]++
		s.times[h.addr] = append(s.times[h.addr], now)
		if strings.HasPrefix(r.URL.Path, "/private/") {
			s.disallowed++
		}
		if strings.HasPrefix(r.URL.Path, "/a/") {
			s.articles[r.URL.Path] = true
		}
		s.mu.Unlock()
		p, ok := h.pages[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", p.contentType)
		if p.encoding != "" {
			w.Header().Set("Content-Encoding", p.encoding)
		}
		w.Write(p.body)
		took := time.Since(now)
		s.mu.Lock()
		s.answers = append(s.answers, took)
		s.mu.Unlock()
	})
}

// keptQuery is the query without tracking parameters, sorted ("" if none).
func keptQuery(q url.Values) string {
	var keys []string
	for k := range q {
		lk := strings.ToLower(k)
		if strings.HasPrefix(lk, "utm_") || lk == "fbclid" || lk == "gclid" {
			continue
		}
		keys = append(keys, k)
	}
	if len(keys) == 0 {
		return ""
	}
	sort.Strings(keys)
	var b strings.Builder
	for i, k := range keys {
		sep := "&"
		if i == 0 {
			sep = "?"
		}
		b.WriteString(sep + k + "=" + strings.Join(q[k], ","))
	}
	return b.String()
}

// counters is a snapshot of what the site saw.
type counters struct {
	requests, pages, duplicates, disallowed, articles int
	minGap, p1Gap, medianGap                          time.Duration // smallest, 1st-percentile and median gap between two requests to one host
	gaps                                              []time.Duration
	medianAnswer                                      time.Duration // the site's median time from a request's arrival to its answer written
}

// belowFrac is the fraction of gaps shorter than d.
func (c counters) belowFrac(d time.Duration) float64 {
	n := 0
	for _, g := range c.gaps {
		if g < d {
			n++
		}
	}
	return float64(n) / float64(max(len(c.gaps), 1))
}

func (s *site) snapshot() counters {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := counters{requests: s.requests, pages: len(s.counts), disallowed: s.disallowed, articles: len(s.articles)}
	for k, v := range s.counts {
		c.duplicates += v - 1
		if v > 1 && os.Getenv("BENCH_DEBUG") != "" {
			fmt.Fprintf(os.Stderr, "duplicate: %s fetched %d times\n", k, v)
		}
	}
	var gaps []time.Duration
	for h, ts := range s.times {
		ts = slices.Clone(ts)
		slices.SortFunc(ts, func(a, b time.Time) int { return a.Compare(b) })
		if os.Getenv("BENCH_DEBUG") != "" && len(ts) > 1 {
			big, bigSum := 0, time.Duration(0)
			for i := 1; i < len(ts); i++ {
				if g := ts[i].Sub(ts[i-1]); g > 30*time.Millisecond {
					big++
					bigSum += g
					fmt.Fprintf(os.Stderr, "  gap %d at %s: %s\n", i, ts[i-1].Sub(ts[0]).Round(time.Millisecond), g.Round(time.Millisecond))
				}
			}
			fmt.Fprintf(os.Stderr, "host %s: %d requests over %s, %d gaps over 30ms totalling %s\n", h, len(ts), ts[len(ts)-1].Sub(ts[0]), big, bigSum)
		}
		for i := 1; i < len(ts); i++ {
			gaps = append(gaps, ts[i].Sub(ts[i-1]))
		}
	}
	if len(gaps) > 0 {
		slices.Sort(gaps)
		c.minGap, c.p1Gap, c.medianGap, c.gaps = gaps[0], gaps[len(gaps)/100], gaps[len(gaps)/2], gaps
	}
	if len(s.answers) > 0 {
		answers := slices.Clone(s.answers)
		slices.Sort(answers)
		c.medianAnswer = answers[len(answers)/2]
	}
	return c
}

// ---------------------------------------------------------------- rendering

// articleHost is the host an article lives on.
func (s *site) articleHost(i int) *host { return s.hosts[i%len(s.hosts)] }

func (s *site) articleURL(i int) string { return fmt.Sprintf("%s/a/%d", s.articleHost(i).base, i) }

// hostArticles lists the articles of host h, newest (highest index) first.
func (s *site) hostArticles(h *host) []int {
	var out []int
	for i := h.index; i < s.n; i += len(s.hosts) {
		out = append(out, i)
	}
	slices.Reverse(out)
	return out
}

func (s *site) sections(h *host) int {
	return (len(s.hostArticles(h)) + articlesPerSection - 1) / articlesPerSection
}

func (s *site) render() {
	for _, h := range s.hosts {
		arts := s.hostArticles(h)
		nsec := s.sections(h)
		h.pages["/robots.txt"] = page{contentType: "text/plain; charset=utf-8", body: fmt.Appendf(nil,
			"User-agent: *\nDisallow: /private/\nDisallow: /z/\n\nSitemap: %s/sitemap.xml\n", h.base)}
		if s.hostile && h.index == 0 {
			s.hostilePages(h)
		}
		h.pages["/"] = page{contentType: "text/html; charset=utf-8", body: s.home(h, arts, nsec)}
		h.pages["/private/login"] = page{contentType: "text/html; charset=utf-8", body: []byte("<html><body>login</body></html>")}
		for j := range nsec {
			lo, hi := j*articlesPerSection, min((j+1)*articlesPerSection, len(arts))
			h.pages[fmt.Sprintf("/s/%d", j)] = page{contentType: "text/html; charset=utf-8", body: s.section(h, j, nsec, arts[lo:hi])}
		}
		for _, i := range arts {
			body := s.article(h, i, nsec)
			if s.padKB > 0 {
				body = append(append(append(body, "<!-- "...), bytes.Repeat([]byte("padding "), s.padKB*128)...), " -->"...)
			}
			h.pages[fmt.Sprintf("/a/%d", i)] = page{contentType: "text/html; charset=utf-8", body: body}
		}
		latest := arts[:min(feedItems, len(arts))]
		h.pages["/feed.xml"] = page{contentType: "application/rss+xml", body: s.rss(h, latest)}
		h.pages["/atom.xml"] = page{contentType: "application/atom+xml", body: s.atom(h, latest)}
		s.sitemaps(h, arts)
	}
}

func (s *site) nav(b *bytes.Buffer, h *host, nsec int) {
	b.WriteString(`<header><nav class="menu"><a href="/">Home</a>`)
	for j := range min(nsec, 8) {
		fmt.Fprintf(b, ` <a href="/s/%d">Section %d</a>`, j, j)
	}
	b.WriteString(` <a href="/private/login">Log in</a></nav></header>
<div class="ad" id="top-ad"><a href="https://ads.example.net/click?id=1">Sponsored: buy now</a></div>`)
}

func footer(b *bytes.Buffer) {
	b.WriteString(`<footer><p>© The Generated Times</p><a href="/feed.xml">RSS</a> <a href="https://social.example.org/gentimes">Follow us</a></footer></body></html>`)
}

func (s *site) head(b *bytes.Buffer, title, canonical string) {
	fmt.Fprintf(b, `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>%s</title>
<meta name="viewport" content="width=device-width"><link rel="canonical" href="%s">
<link rel="alternate" type="application/rss+xml" href="/feed.xml"><link rel="alternate" type="application/atom+xml" href="/atom.xml">
<script>window.dataLayer=[];function track(){}</script></head><body>`, title, canonical)
}

func (s *site) home(h *host, arts []int, nsec int) []byte {
	var b bytes.Buffer
	s.head(&b, "The Generated Times", h.base+"/")
	s.nav(&b, h, nsec)
	b.WriteString(`<main><h1>Top stories</h1><ul>`)
	for _, i := range arts[:min(homeStories, len(arts))] {
		fmt.Fprintf(&b, `<li><a href="/a/%d?utm_source=home&amp;utm_medium=frontpage">Story %d</a></li>`, i, i)
		s.variants++
	}
	b.WriteString(`</ul><h2>Sections</h2><ul>`)
	for j := range nsec {
		fmt.Fprintf(&b, `<li><a href="/s/%d">Section %d</a></li>`, j, j)
	}
	b.WriteString(`</ul>`)
	if h.index == 0 && s.hostile {
		b.WriteString(`<p><a href="/s/hostile">Hostile pages</a></p>`)
	}
	if h.index == 0 {
		b.WriteString(`<h2>Our other editions</h2><ul>`)
		for _, o := range s.hosts[1:] {
			fmt.Fprintf(&b, `<li><a href="%s/">Edition %d</a></li>`, o.base, o.index)
		}
		b.WriteString(`</ul>`)
	}
	b.WriteString(`</main>`)
	footer(&b)
	return b.Bytes()
}

func (s *site) section(h *host, j, nsec int, arts []int) []byte {
	var b bytes.Buffer
	s.head(&b, fmt.Sprintf("Section %d", j), fmt.Sprintf("%s/s/%d", h.base, j))
	s.nav(&b, h, nsec)
	fmt.Fprintf(&b, `<main><h1>Section %d</h1><ul>`, j)
	for _, i := range arts {
		fmt.Fprintf(&b, `<li><a href="/a/%d">Story %d</a> <span class="teaser">%s</span></li>`, i, i, words(i, 12))
	}
	b.WriteString(`</ul>`)
	if j+1 < nsec {
		fmt.Fprintf(&b, `<a rel="next" href="/s/%d">Next</a>`, j+1)
	}
	b.WriteString(`</main>`)
	footer(&b)
	return b.Bytes()
}

// hostile is what -hostile serves on host 0, linked from /s/hostile
// (linked from its home page): the crawler's hostile cases, for its peak
// memory. Each kind four times, so several are in flight at once.
var hostileKinds = []string{"bomb", "links", "huge", "tags", "nested"}

// hostilePages renders them: gzip bombs (1 GiB of zeros, 1 MiB on the
// wire), pages of 500,000 links (to /z/, disallowed), 9.5 MB pages, pages
// of 1.2 million tags, and 100,000 nested divs.
func (s *site) hostilePages(h *host) {
	var zeros bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&zeros, gzip.BestCompression)
	chunk := make([]byte, 1<<20)
	for range 1024 {
		zw.Write(chunk)
	}
	zw.Close()
	var links, huge, tags, nested bytes.Buffer
	links.WriteString("<html><body><p>Links.</p>")
	for i := range 500_000 {
		fmt.Fprintf(&links, "<a href=/z/%d>%d</a>", i, i)
	}
	huge.WriteString("<html><body><article><h1>A long page</h1>")
	for i := 0; huge.Len() < 9_500_000; i++ {
		huge.WriteString("<p>" + words(i, 60) + "</p>")
	}
	tags.WriteString("<html><body>" + strings.Repeat("<i>x</i>", 600_000))
	nested.WriteString("<html><body>" + strings.Repeat("<div>", 100_000) + "deep" + strings.Repeat("</div>", 100_000))
	html := "text/html; charset=utf-8"
	var index bytes.Buffer
	index.WriteString("<html><body><h1>Hostile</h1><ul>")
	for _, kind := range hostileKinds {
		for k := range 4 {
			path := fmt.Sprintf("/x/%s/%d", kind, k)
			fmt.Fprintf(&index, `<li><a href="%s">%s %d</a></li>`, path, kind, k)
			switch kind {
			case "bomb":
				h.pages[path] = page{contentType: html, body: zeros.Bytes(), encoding: "gzip"}
			case "links":
				h.pages[path] = page{contentType: html, body: links.Bytes()}
			case "huge":
				h.pages[path] = page{contentType: html, body: huge.Bytes()}
			case "tags":
				h.pages[path] = page{contentType: html, body: tags.Bytes()}
			case "nested":
				h.pages[path] = page{contentType: html, body: nested.Bytes()}
			}
		}
	}
	index.WriteString("</ul></body></html>")
	h.pages["/s/hostile"] = page{contentType: html, body: index.Bytes()}
}

// article renders story i: boilerplate, text, and related links of which
// some are tracking or fragment variants.
func (s *site) article(h *host, i, nsec int) []byte {
	var b bytes.Buffer
	s.head(&b, fmt.Sprintf("Story %d", i), s.articleURL(i))
	s.nav(&b, h, nsec)
	fmt.Fprintf(&b, `<main><article><h1>Story %d: %s</h1><p class="byline">By Staff Writer, <time datetime="2025-01-%02dT08:00:00Z">January %d</time></p>`,
		i, words(i*7+3, 6), i%28+1, i%28+1)
	for p := range paragraphs {
		fmt.Fprintf(&b, "<p>%s.</p>\n", words(i*31+p, wordsPerParagraph))
		if p == 2 {
			b.WriteString(`<div class="ad inline"><a href="https://ads.example.net/click?id=2">Advertisement</a></div>`)
		}
	}
	b.WriteString(`</article><aside class="related"><h2>Related</h2><ul>`)
	for k := range relatedLinks {
		j := (i*(7+6*k) + 11*k + 1) % s.n
		href := s.articleURL(j)
		if k == 0 { // one in ten articles links a related story with a tracking or fragment variant
			switch i % 30 {
			case 0:
				href += "?utm_source=related&utm_medium=web"
				s.variants++
			case 10:
				href += "?fbclid=IwAR" + fmt.Sprint(i)
				s.variants++
			case 20:
				href += "#comments"
				s.variants++
			}
		}
		fmt.Fprintf(&b, `<li><a href="%s">Story %d</a></li>`, href, j)
	}
	b.WriteString(`</ul></aside><section id="comments" class="comments"><h2>Comments</h2>
<div class="comment"><p>First!</p></div><div class="comment"><p>Great read, thanks.</p></div>
<form action="/comment" method="post"><textarea name="c"></textarea><button>Post</button></form></section></main>`)
	footer(&b)
	return b.Bytes()
}

func (s *site) rss(h *host, arts []int) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, `<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel><title>Edition %d</title><link>%s/</link><description>Latest</description>`, h.index, h.base)
	for _, i := range arts {
		fmt.Fprintf(&b, `<item><title>Story %d</title><link>%s?utm_source=rss</link><guid>%s</guid><pubDate>Wed, 01 Jan 2025 08:00:00 GMT</pubDate></item>`,
			i, s.articleURL(i), s.articleURL(i))
	}
	b.WriteString(`</channel></rss>`)
	return b.Bytes()
}

func (s *site) atom(h *host, arts []int) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, `<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom"><title>Edition %d</title><id>%s/</id><updated>2025-01-01T08:00:00Z</updated>`, h.index, h.base)
	for _, i := range arts {
		fmt.Fprintf(&b, `<entry><title>Story %d</title><id>%s</id><link href="%s#top"/><updated>2025-01-01T08:00:00Z</updated></entry>`,
			i, s.articleURL(i), s.articleURL(i))
	}
	b.WriteString(`</feed>`)
	return b.Bytes()
}

// sitemaps renders the index, its gzip'd children and the news sitemap.
func (s *site) sitemaps(h *host, arts []int) {
	var idx bytes.Buffer
	idx.WriteString(`<?xml version="1.0" encoding="UTF-8"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
	for k := 0; k*urlsPerSitemap < len(arts); k++ {
		var sm bytes.Buffer
		sm.WriteString(`<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
		for _, i := range arts[k*urlsPerSitemap : min((k+1)*urlsPerSitemap, len(arts))] {
			fmt.Fprintf(&sm, `<url><loc>%s</loc><lastmod>2025-01-01</lastmod></url>`, s.articleURL(i))
		}
		sm.WriteString(`</urlset>`)
		name := fmt.Sprintf("/sitemap-%d.xml.gz", k)
		h.pages[name] = page{contentType: "application/x-gzip", body: gzipped(sm.Bytes())}
		fmt.Fprintf(&idx, `<sitemap><loc>%s%s</loc></sitemap>`, h.base, name)
	}
	fmt.Fprintf(&idx, `<sitemap><loc>%s/news-sitemap.xml</loc></sitemap></sitemapindex>`, h.base)
	h.pages["/sitemap.xml"] = page{contentType: "application/xml", body: idx.Bytes()}

	var news bytes.Buffer
	news.WriteString(`<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:news="http://www.google.com/schemas/sitemap-news/0.9">`)
	for _, i := range arts[:min(feedItems, len(arts))] {
		fmt.Fprintf(&news, `<url><loc>%s</loc><news:news><news:publication><news:name>Edition %d</news:name><news:language>en</news:language></news:publication><news:publication_date>2025-01-01</news:publication_date><news:title>Story %d</news:title></news:news></url>`,
			s.articleURL(i), h.index, i)
	}
	news.WriteString(`</urlset>`)
	h.pages["/news-sitemap.xml"] = page{contentType: "application/xml", body: news.Bytes()}
}

func gzipped(b []byte) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

var vocabulary = strings.Fields(`the council said on monday that a new plan for the city centre would
be published after months of talks between residents officials and local business owners who have
argued over traffic housing schools budget police hospital river bridge market election minister
report survey growth prices energy weather storm season league match coach players fans museum`)

// words returns n deterministic pseudo-random words for seed.
func words(seed, n int) string {
	x := uint32(seed)*2654435761 + 12345
	var b strings.Builder
	for k := range n {
		x = x*1664525 + 1013904223
		if k > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(vocabulary[int(x>>16)%len(vocabulary)])
	}
	return b.String()
}
