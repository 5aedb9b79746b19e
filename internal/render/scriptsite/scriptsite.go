// Package scriptsite is a news site whose articles exist only after script
// runs — the renderer's test and bench world. Each article has a static
// twin (/static/article/N) carrying the same text in plain HTML, so a
// render can be scored against it. Articles come in three builds, by N % 3:
// inline JSON hydrated into an empty #root (a Next.js-style shell), text
// fetched from /api/article/N after load, and a first half inline with the
// second loaded when the reader scrolls to the end. /hostile/KIND pages
// attack the browser (Hostile lists them).
package scriptsite

import (
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
)

// A Site serves N articles. Canary is a URL the hostile pages try to reach
// through 127.0.0.1, 169.254.169.254 and a name that answers loopback.
type Site struct {
	N      int
	Canary string // e.g. http://127.0.0.1:PORT — must never be reached
	API    atomic.Int64
}

// Hostile are the attacking pages, under /hostile/.
var Hostile = []string{"loop", "neverload", "canary", "windows", "bigdom", "memhog", "refresh"}

// Title is article n's headline.
func Title(n int) string { return fmt.Sprintf("Harbour council report %d weighs the tidal barrier", n) }

var words = strings.Fields(`the council said on tuesday that engineers had measured the tidal range along the
northern quay and found the old barrier would not hold a storm surge of the kind recorded last winter residents
who gathered at the town hall asked whether the repairs would close the fish market for the season and the mayor
answered that the work would be done in stages so that boats could still land their catch each morning while the
divers inspected the piles under the pier a report from the harbour master listed cracked beams rusted bolts and a
section of the sea wall that had shifted by several centimetres since the spring tides funding for the project will
come partly from the regional transport fund and partly from a levy on moorings which the sailing club opposed`)

// Paragraphs are article n's text, in paragraphs.
func Paragraphs(n int) []string {
	out := make([]string, 8)
	for p := range out {
		var b strings.Builder
		for w := range 45 {
			if w > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(words[(n*31+p*17+w*7)%len(words)])
		}
		s := b.String()
		out[p] = strings.ToUpper(s[:1]) + s[1:] + fmt.Sprintf(", report %d part %d.", n, p+1)
	}
	return out
}

// Handler serves the site.
func (s *Site) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "User-agent: *\nDisallow: /private/\n")
	})
	mux.HandleFunc("/{$}", s.index)
	mux.HandleFunc("/article/{n}", s.article)
	mux.HandleFunc("/static/article/{n}", s.static)
	mux.HandleFunc("/api/article/{n}", s.api)
	mux.HandleFunc("/app.js", s.script)
	mux.HandleFunc("/style.css", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/css")
		fmt.Fprint(w, "body{font-family:serif}")
	})
	mux.HandleFunc("/hang", func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	mux.HandleFunc("/hostile/{kind}", s.hostile)
	mux.HandleFunc("/remembers", s.remembers)
	return mux
}

func (s *Site) num(w http.ResponseWriter, r *http.Request) (int, bool) {
	n, err := strconv.Atoi(r.PathValue("n"))
	if err != nil || n < 0 || n >= s.N {
		http.NotFound(w, r)
		return 0, false
	}
	return n, true
}

func (s *Site) index(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprint(w, `<!DOCTYPE html><html><head><title>Harbour News</title></head><body><h1>Harbour News</h1><ul>`)
	for n := range s.N {
		fmt.Fprintf(w, `<li><a href="/article/%d">%s</a></li>`, n, html.EscapeString(Title(n)))
	}
	fmt.Fprint(w, `</ul></body></html>`)
}

// part is what the API answers: a headline and paragraphs.
type part struct {
	Title      string   `json:"title"`
	Paragraphs []string `json:"paragraphs"`
}

// article is the script shell: an empty #root, the data (or none) inline.
func (s *Site) article(w http.ResponseWriter, r *http.Request) {
	n, ok := s.num(w, r)
	if !ok {
		return
	}
	ps := Paragraphs(n)
	var data any
	switch n % 3 {
	case 0:
		data = map[string]any{"props": part{Title(n), ps}, "build": "inline"}
	case 1:
		data = map[string]any{"id": n, "build": "api"}
	default:
		data = map[string]any{"props": part{Title(n), ps[:len(ps)/2]}, "id": n, "build": "scroll"}
	}
	js, _ := json.Marshal(data)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprintf(w, `<!DOCTYPE html><html><head><meta charset="utf-8"><title>Harbour News</title>
<link rel="stylesheet" href="/style.css"></head>
<body><noscript>You need to enable JavaScript to run this app.</noscript><div id="root"></div>
<script id="__NEXT_DATA__" type="application/json">%s</script><script src="/app.js"></script></body></html>`, js)
}

// script hydrates #root from the inline data, the API, or both (the second
// half when the end of the page comes into view).
func (s *Site) script(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/javascript")
	fmt.Fprint(w, `(function () {
  var data = JSON.parse(document.getElementById('__NEXT_DATA__').textContent);
  var root = document.getElementById('root');
  var art = document.createElement('article');
  root.appendChild(art);
  function add(p) {
    if (p.title && !art.querySelector('h1')) { var h = document.createElement('h1'); h.textContent = p.title; art.appendChild(h); document.title = p.title; }
    p.paragraphs.forEach(function (t) { var e = document.createElement('p'); e.textContent = t; art.appendChild(e); });
  }
  function load(q) { return fetch('/api/article/' + data.id + q).then(function (r) { return r.json(); }).then(add); }
  if (data.props) add(data.props);
  if (data.build === 'api') load('');
  if (data.build === 'scroll') {
    var end = document.createElement('div'); end.style.height = '2000px'; root.appendChild(end);
    var done = false;
    window.addEventListener('scroll', function () {
      if (!done && window.scrollY + window.innerHeight >= document.documentElement.scrollHeight - 2100) { done = true; load('?part=2'); }
    });
  }
})();`)
}

func (s *Site) api(w http.ResponseWriter, r *http.Request) {
	n, ok := s.num(w, r)
	if !ok {
		return
	}
	s.API.Add(1)
	ps := Paragraphs(n)
	p := part{Title: Title(n), Paragraphs: ps}
	if r.URL.Query().Get("part") == "2" {
		p = part{Paragraphs: ps[len(ps)/2:]}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(p)
}

// static is the twin: the same article as plain HTML.
func (s *Site) static(w http.ResponseWriter, r *http.Request) {
	n, ok := s.num(w, r)
	if !ok {
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprintf(w, `<!DOCTYPE html><html><head><meta charset="utf-8"><title>%[1]s</title></head><body><article><h1>%[1]s</h1>`,
		html.EscapeString(Title(n)))
	for _, p := range Paragraphs(n) {
		fmt.Fprintf(w, "<p>%s</p>", html.EscapeString(p))
	}
	fmt.Fprint(w, `</article></body></html>`)
}

// hostile serves the pages that attack the browser. Each also carries
// enough of a story for a render that survives them to have text.
func (s *Site) hostile(w http.ResponseWriter, r *http.Request) {
	var body string
	switch r.PathValue("kind") {
	case "loop": // the page's script never yields
		body = `<script>for(;;){}</script>`
	case "neverload": // a script that never answers, and a poll that never stops
		body = `<script>setInterval(function(){fetch('/api/article/0').catch(function(){})}, 100);</script><script src="/hang"></script>`
	case "canary": // reach the machine's own services and the cloud's metadata
		c := s.Canary
		port := c[strings.LastIndex(c, ":")+1:]
		body = fmt.Sprintf(`<script>
var t = ['%[1]s/canary?via=fetch', 'http://169.254.169.254/latest/meta-data/', 'http://localhost:%[2]s/canary?via=name',
         'http://[::1]:%[2]s/canary?via=v6', '/private/secret'];
t.forEach(function (u) { fetch(u, {mode: 'no-cors'}).catch(function(){}); });
try { navigator.sendBeacon('%[1]s/canary?via=beacon', 'x'); } catch (e) {}
try { new WebSocket('ws://127.0.0.1:%[2]s/canary?via=ws'); } catch (e) {}
var f = document.createElement('iframe'); f.src = '%[1]s/canary?via=iframe'; document.body.appendChild(f);
var x = new XMLHttpRequest(); x.open('GET', '%[1]s/canary?via=xhr'); x.send();
</script><img src="%[1]s/canary?via=img">`, c, port)
	case "windows": // a storm of new windows and dialogs
		body = `<script>for (var i = 0; i < 500; i++) { window.open('/article/' + (i % 3), '_blank'); }
alert('hello'); confirm('sure?'); window.onbeforeunload = function () { return 'stay'; };</script>`
	case "bigdom": // 100,000 elements
		body = `<script>var d = document.createElement('div'); for (var i = 0; i < 100000; i++) { d.appendChild(document.createElement('span')); } document.body.appendChild(d);</script>`
	case "memhog": // allocate until something gives
		body = `<script>var a = []; for (;;) { a.push(new Array(1e6).fill(Math.random())); }</script>`
	case "refresh": // a refresh that points at itself, for ever
		n, _ := strconv.Atoi(r.URL.Query().Get("n"))
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!DOCTYPE html><html><head><meta http-equiv="refresh" content="0;url=/hostile/refresh?n=%d"></head><body><p>%s</p></body></html>`,
			n+1, strings.Join(Paragraphs(2), "</p><p>"))
		return
	default:
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprintf(w, `<!DOCTYPE html><html><head><title>Hostile</title></head><body><article><h1>%s</h1><p>%s</p></article>%s</body></html>`,
		html.EscapeString(Title(2)), strings.Join(Paragraphs(2), "</p><p>"), body)
}

// remembers writes what a visit before left in the browser (a cookie,
// local storage) into the page, then leaves both for the next visit.
func (s *Site) remembers(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprint(w, `<!DOCTYPE html><html><head><title>Memory</title></head><body><p id="seen"></p><script>
document.getElementById('seen').textContent = 'cookie=[' + document.cookie + '] storage=[' + (localStorage.getItem('visit') || '') + ']';
document.cookie = 'visit=1; max-age=3600'; localStorage.setItem('visit', '1');
</script></body></html>`)
}

// Canary counts the requests that reached it: any is a hole in the guard.
type Canary struct{ Hits atomic.Int64 }

func (c *Canary) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.Hits.Add(1)
	fmt.Fprint(w, "canary")
}
