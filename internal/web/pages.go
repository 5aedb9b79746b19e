package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/newscrawl/newscrawl/internal/extract/schema"
	"github.com/newscrawl/newscrawl/internal/search"
	"github.com/newscrawl/newscrawl/pkg/streamkit"
)

const (
	pageSize   = 10
	maxPages   = search.MaxK / pageSize
	facetShown = 8
	newestDLQ  = 5
)

var funcs = template.FuncMap{
	"date": dateText,
	"age": func(s float64) string {
		if s <= 0 {
			return "-"
		}
		return (time.Duration(s*float64(time.Second)) / time.Second * time.Second).String()
	},
	"perMin": func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) },
}

// dateText shows a date (a day) or a time stamp (to the minute, UTC); ""
// for none.
func dateText(t any) string {
	switch v := t.(type) {
	case *time.Time:
		if v != nil {
			return v.UTC().Format("2 Jan 2006")
		}
	case time.Time:
		return v.UTC().Format("2 Jan 2006 15:04 UTC")
	case string:
		if ts, err := time.Parse(time.RFC3339Nano, v); err == nil {
			return ts.UTC().Format("2 Jan 2006 15:04 UTC")
		}
		return v
	}
	return ""
}

func parsePages() (map[string]*template.Template, error) {
	pages := map[string]*template.Template{}
	for _, name := range []string{"search", "ask", "document", "pipeline", "login", "error"} {
		t, err := template.New("layout.html").Funcs(funcs).ParseFS(assets, "templates/layout.html", "templates/"+name+".html")
		if err != nil {
			return nil, fmt.Errorf("web: parse the %s page: %w", name, err)
		}
		pages[name] = t
	}
	return pages, nil
}

// A view is what every page's layout reads.
type view struct {
	Title  string
	Nav    string // the active menu entry
	Authed bool   // the request carries the token
	Token  bool   // serve has a token (login makes sense)
	Page   any
}

// render writes a page; a template error is logged and answered 500 before
// anything was sent.
func (s *Server) render(w http.ResponseWriter, r *http.Request, code int, name string, page any) {
	var title, nav string
	switch p := page.(type) {
	case searchPage:
		title, nav = "Search", "search"
		if p.Query != "" {
			title = p.Query + " – Search"
		}
	case askPage:
		title, nav = "Ask", "ask"
		if p.Question != "" {
			title = p.Question + " – Ask"
		}
	case documentPage:
		title, nav = p.Title, "search"
	case pipelinePage:
		title, nav = "Pipeline", "pipeline"
	case loginPage:
		title = "Log in"
	case errorPage:
		title = p.Status
	}
	var buf bytes.Buffer
	v := view{Title: title, Nav: nav, Authed: s.access.authenticated(r), Token: s.access.token != "", Page: page}
	if err := s.pages[name].Execute(&buf, v); err != nil {
		s.log.Error("render a page", "page", name, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_, _ = w.Write(buf.Bytes())
}

type errorPage struct {
	Code    int
	Status  string
	Message string
}

// ---------------------------------------------------------------- search

type searchPage struct {
	Query   string
	Form    url.Values
	Modes   []string
	Results []resultView
	Facets  []facetGroup
	Active  []activeFilter
	Empty   string // why there are no results
	Error   string
	Note    string
	Page    int
	Prev    string
	Next    string
	Took    string
}

type resultView struct {
	search.Result
	Marked []segment
}

// A segment is a piece of a snippet, marked when it matches a query term.
type segment struct {
	Text string
	Mark bool
}

type facetGroup struct {
	Label  string
	Values []facetValue
}

type facetValue struct {
	Name  string
	Count int
	Link  string
}

type activeFilter struct {
	Label, Value, Remove string
}

var facetLabels = map[string]string{"topics": "Topics", "people": "People", "organizations": "Organizations", "locations": "Places"}

func (s *Server) searchPage(w http.ResponseWriter, r *http.Request) {
	form := r.URL.Query()
	p := searchPage{Query: strings.TrimSpace(form.Get("q")), Form: form, Modes: []string{"hybrid", "vector", "lexical"}, Page: 1}
	p.Active = activeFilters(form)
	if p.Query == "" {
		s.render(w, r, http.StatusOK, "search", p)
		return
	}
	if n, err := strconv.Atoi(form.Get("page")); err == nil && n > 1 {
		p.Page = min(n, maxPages)
	}
	params := url.Values{}
	for k, v := range form {
		if k != "page" && len(v) > 0 && v[0] != "" {
			params[k] = v
		}
	}
	params.Set("k", strconv.Itoa(p.Page*pageSize))
	q, err := search.ParseValues(params)
	if err != nil {
		p.Error = err.Error()
		s.render(w, r, http.StatusBadRequest, "search", p)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.Timeout)
	defer cancel()
	start := time.Now()
	ans, err := s.cfg.Searcher.Answer(ctx, q)
	p.Took = time.Since(start).Round(time.Millisecond).String()
	var me *search.ModelError
	switch {
	case errors.As(err, &me):
		p.Empty = me.Error()
		s.render(w, r, http.StatusOK, "search", p)
		return
	case err != nil:
		code := http.StatusInternalServerError
		if search.IsInvalid(err) {
			code, p.Error = http.StatusBadRequest, err.Error()
		} else if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			code, p.Error = http.StatusGatewayTimeout, "the search took longer than "+s.cfg.Timeout.String()
		} else {
			s.log.Error("search page", "err", err)
			p.Error = "the search failed; the server's log says why"
		}
		s.render(w, r, code, "search", p)
		return
	}
	p.Note = ans.Note
	p.Facets = facets(ans.Results, form)
	from := (p.Page - 1) * pageSize
	if from < len(ans.Results) {
		for _, res := range ans.Results[from:min(len(ans.Results), from+pageSize)] {
			p.Results = append(p.Results, resultView{Result: res, Marked: mark(res.Snippet, q.Text)})
		}
	}
	if p.Page > 1 {
		p.Prev = pageLink(form, p.Page-1)
	}
	if len(ans.Results) == p.Page*pageSize && p.Page < maxPages {
		p.Next = pageLink(form, p.Page+1)
	}
	if len(p.Results) == 0 {
		p.Empty = "No article matches “" + q.Text + "”."
		if len(p.Active) > 0 {
			p.Empty = "No article matches “" + q.Text + "” with these filters: remove one, or widen the dates."
		}
	}
	s.render(w, r, http.StatusOK, "search", p)
}

func pageLink(form url.Values, page int) string {
	v := cloneValues(form)
	v.Set("page", strconv.Itoa(page))
	return "/?" + v.Encode()
}

func cloneValues(v url.Values) url.Values {
	out := url.Values{}
	for k, vs := range v {
		out[k] = append([]string(nil), vs...)
	}
	return out
}

// activeFilters lists the filters set in form, each with the link that drops it.
func activeFilters(form url.Values) []activeFilter {
	labels := []struct{ param, label string }{{"host", "Host"}, {"lang", "Language"}, {"since", "Since"}, {"until", "Until"}}
	for _, f := range search.FacetFields {
		labels = append(labels, struct{ param, label string }{f.Param, facetLabels[f.Field]})
	}
	var out []activeFilter
	for _, l := range labels {
		if v := form.Get(l.param); v != "" {
			rest := cloneValues(form)
			rest.Del(l.param)
			rest.Del("page")
			out = append(out, activeFilter{Label: l.label, Value: v, Remove: "/?" + rest.Encode()})
		}
	}
	return out
}

// facets counts the entities of the results, most frequent first.
func facets(rs []search.Result, form url.Values) []facetGroup {
	var out []facetGroup
	for _, f := range search.FacetFields {
		if form.Get(f.Param) != "" {
			continue
		}
		counts := map[string]int{}
		for _, r := range rs {
			var names []string
			switch f.Field {
			case "topics":
				names = r.Topics
			case "people":
				names = r.People
			case "organizations":
				names = r.Organizations
			case "locations":
				names = r.Locations
			}
			for _, n := range names {
				counts[n]++
			}
		}
		if len(counts) == 0 {
			continue
		}
		g := facetGroup{Label: facetLabels[f.Field]}
		for n, c := range counts {
			g.Values = append(g.Values, facetValue{Name: n, Count: c})
		}
		sort.Slice(g.Values, func(i, j int) bool {
			if g.Values[i].Count != g.Values[j].Count {
				return g.Values[i].Count > g.Values[j].Count
			}
			return g.Values[i].Name < g.Values[j].Name
		})
		g.Values = g.Values[:min(len(g.Values), facetShown)]
		for i := range g.Values {
			v := cloneValues(form)
			v.Set(f.Param, g.Values[i].Name)
			v.Del("page")
			g.Values[i].Link = "/?" + v.Encode()
		}
		out = append(out, g)
	}
	return out
}

// mark splits text into segments, marking the words of the query.
func mark(text, query string) []segment {
	terms := map[string]bool{}
	for _, t := range strings.FieldsFunc(strings.ToLower(query), notWord) {
		if len([]rune(t)) > 1 {
			terms[t] = true
		}
	}
	var out []segment
	add := func(s string, m bool) {
		if s == "" {
			return
		}
		if n := len(out); n > 0 && out[n-1].Mark == m {
			out[n-1].Text += s
			return
		}
		out = append(out, segment{Text: s, Mark: m})
	}
	for i := 0; i < len(text); {
		r, _ := utf8.DecodeRuneInString(text[i:])
		word := !notWord(r)
		j := i
		for j < len(text) {
			r, size := utf8.DecodeRuneInString(text[j:])
			if notWord(r) == word { // the class changed
				break
			}
			j += size
		}
		add(text[i:j], word && terms[strings.ToLower(text[i:j])])
		i = j
	}
	return out
}

func notWord(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }

// ---------------------------------------------------------------- document

type documentPage struct {
	ID, Title, URL, Canonical, Host, Site, Language, Section, Published, Modified, Kind, DuplicateOf string
	Authors, Tags                                                                                    []string
	Words                                                                                            int
	Paywalled                                                                                        bool
	Paragraphs                                                                                       []string
	Extraction                                                                                       *extractionView
	Chunks                                                                                           []search.ChunkCount
	Copies                                                                                           []search.DocRef
	Capture                                                                                          search.Capture
	Fetched, Captured, Rendered                                                                      string
}

type extractionView struct {
	schema.Extraction
	Provider, Model, FallbackFor, FallbackReason, Created string
	Partial                                               []string
}

func (s *Server) documentPage(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("doc_id")
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.Timeout)
	defer cancel()
	d, err := s.cfg.Searcher.Document(ctx, id)
	switch {
	case errors.Is(err, search.ErrNotFound):
		s.deny(w, r, http.StatusNotFound, "no document "+id)
		return
	case err != nil:
		s.log.Error("document page", "doc_id", id, "err", err)
		s.deny(w, r, http.StatusInternalServerError, "the document could not be read; the server's log says why")
		return
	}
	str := func(m map[string]any, k string) string { v, _ := m[k].(string); return v }
	list := func(m map[string]any, k string) []string {
		var out []string
		items, _ := m[k].([]any)
		for _, it := range items {
			if v, ok := it.(string); ok && v != "" {
				out = append(out, v)
			}
		}
		return out
	}
	doc := d.Document
	p := documentPage{ID: id, Title: str(doc, "title"), URL: str(doc, "url"), Canonical: str(doc, "canonical_url"),
		Host: str(doc, "host"), Site: str(doc, "site_name"), Language: str(doc, "language"), Section: str(doc, "section"),
		Published: dateText(str(doc, "published_at")), Modified: dateText(str(doc, "modified_at")),
		Kind: str(doc, "page_kind"), DuplicateOf: str(doc, "duplicate_of"),
		Authors: list(doc, "authors"), Tags: list(doc, "tags"), Chunks: d.Chunks, Copies: d.Copies, Capture: d.Capture}
	if t := d.Capture.FetchedAt; t != nil {
		p.Fetched = t.UTC().Format("2006-01-02 15:04 UTC")
	}
	if t := d.Capture.Date; t != nil {
		p.Captured = t.UTC().Format("2006-01-02 15:04:05 UTC")
	}
	if t := d.Capture.RenderedAt; t != nil && d.Capture.RenderError == "" {
		p.Rendered = t.UTC().Format("2006-01-02 15:04:05 UTC")
	}
	if p.Title == "" {
		p.Title = p.URL
	}
	if wc, ok := doc["word_count"].(float64); ok {
		p.Words = int(wc)
	}
	p.Paywalled, _ = doc["paywalled"].(bool)
	for _, para := range strings.Split(str(doc, "text"), "\n") {
		if para = strings.TrimSpace(para); para != "" {
			p.Paragraphs = append(p.Paragraphs, para)
		}
	}
	if e := d.Extraction; e != nil {
		ev := &extractionView{Provider: str(e, "provider"), Model: str(e, "model"), FallbackFor: str(e, "fallback_for"),
			FallbackReason: str(e, "fallback_reason"), Created: dateText(str(e, "created_at")), Partial: list(e, "invalid_fields")}
		if raw, err := json.Marshal(e["data"]); err == nil {
			_ = json.Unmarshal(raw, &ev.Extraction)
		}
		// the row's entity columns are what search filters on: show those
		for field, dst := range map[string]*[]string{"topics": &ev.Topics, "people": &ev.People,
			"organizations": &ev.Organizations, "locations": &ev.Locations} {
			if v := list(e, field); len(v) > 0 {
				*dst = v
			}
		}
		p.Extraction = ev
	}
	s.render(w, r, http.StatusOK, "document", p)
}

// ---------------------------------------------------------------- pipeline

type pipelinePage struct {
	Stages      []stageView
	DeadLetters int64 // in every stage
	Error       string
	Window      string
	Authed      bool
	Message     string
	Refresh     int
}

type stageView struct {
	streamkit.StageStats
	StateText string
	Rate      rates
	DLQTypes  []typeCount
	Newest    []streamkit.DeadLetter
}

type typeCount struct {
	Type  string
	Count int64
}

func (s *Server) pipelineView(ctx context.Context) (pipelinePage, error) {
	p := pipelinePage{Refresh: 5}
	stats, err := s.stats(ctx)
	if err != nil {
		return p, err
	}
	s.sampler.add(time.Now(), stats)
	rs := s.sampler.rates(rateWindow)
	for _, st := range stats {
		v := stageView{StageStats: st, StateText: st.State(), Rate: rs[st.Stage]}
		p.DeadLetters += st.DLQ
		if v.Rate.Window > 0 {
			p.Window = v.Rate.Window.Round(time.Second).String()
		}
		if st.DLQ > 0 {
			counts, err := s.cfg.Admin.DLQCounts(ctx, st.Stage)
			if err != nil {
				return p, err
			}
			for t, n := range counts {
				v.DLQTypes = append(v.DLQTypes, typeCount{t, n})
			}
			sort.Slice(v.DLQTypes, func(i, j int) bool { return v.DLQTypes[i].Count > v.DLQTypes[j].Count })
			if v.Newest, err = s.cfg.Admin.DLQNewest(ctx, st.Stage, newestDLQ); err != nil {
				return p, err
			}
		}
		p.Stages = append(p.Stages, v)
	}
	return p, nil
}

func (s *Server) pipelinePage(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.Timeout)
	defer cancel()
	p, err := s.pipelineView(ctx)
	p.Authed = s.access.authenticated(r)
	p.Message = r.URL.Query().Get("done")
	if err != nil {
		s.log.Warn("pipeline page", "err", err)
		p.Error = "Redis could not be read: " + err.Error()
		s.render(w, r, http.StatusServiceUnavailable, "pipeline", p)
		return
	}
	s.render(w, r, http.StatusOK, "pipeline", p)
}

// dlqAction replays or purges dead letters of one stage (all, one error
// type, or one entry), then shows the pipeline page again.
func (s *Server) dlqAction(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		s.deny(w, r, http.StatusBadRequest, "bad form: "+err.Error())
		return
	}
	stage, action := r.PostForm.Get("stage"), r.PostForm.Get("action")
	known := false
	for _, st := range s.cfg.Stages {
		known = known || st.Stage == stage
	}
	if !known || (action != "replay" && action != "purge") {
		s.deny(w, r, http.StatusBadRequest, "stage must be one of the pipeline's and action replay or purge")
		return
	}
	f := streamkit.DLQFilter{ErrorType: r.PostForm.Get("error_type")}
	if id := r.PostForm.Get("id"); id != "" {
		f.IDs = []string{id}
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.Timeout)
	defer cancel()
	var n int
	var err error
	if action == "replay" {
		n, err = s.cfg.Admin.DLQReplay(ctx, stage, f) // the crawl stage's through its window (newsctl serve)
	} else {
		n, err = s.cfg.Admin.DLQPurge(ctx, stage, f)
	}
	if err != nil {
		s.log.Error("dead-letter action", "action", action, "stage", stage, "err", err)
		s.deny(w, r, http.StatusInternalServerError, action+" failed: "+err.Error())
		return
	}
	s.log.Info("dead letters "+action+"ed from the web page", "stage", stage, "count", n, "error_type", f.ErrorType, "ids", f.IDs)
	done := fmt.Sprintf("%sed %d dead letter(s) of %s", action, n, stage)
	http.Redirect(w, r, "/pipeline?done="+url.QueryEscape(done), http.StatusSeeOther)
}

// ---------------------------------------------------------------- login

type loginPage struct {
	Next  string
	Error string
}

func safeNext(next string) string {
	if !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.ContainsAny(next, "\\\r\n") {
		return "/"
	}
	return next
}

func (s *Server) loginPage(w http.ResponseWriter, r *http.Request) {
	s.render(w, r, http.StatusOK, "login", loginPage{Next: safeNext(r.URL.Query().Get("next"))})
}

func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		s.deny(w, r, http.StatusBadRequest, "bad form")
		return
	}
	next := safeNext(r.PostForm.Get("next"))
	if !s.access.tokenIs(r.PostForm.Get("token")) {
		s.render(w, r, http.StatusUnauthorized, "login", loginPage{Next: next, Error: "That is not the token serve was started with."})
		return
	}
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: s.access.session(), Path: "/", HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil, MaxAge: int((30 * 24 * time.Hour).Seconds())})
	http.Redirect(w, r, next, http.StatusSeeOther)
}

func (s *Server) logout(w http.ResponseWriter, r *http.Request) {
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: "", Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode, MaxAge: -1})
	http.Redirect(w, r, "/", http.StatusSeeOther)
}
