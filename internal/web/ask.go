package web

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	"golang.org/x/time/rate"

	"github.com/newscrawl/newscrawl/internal/ask"
	"github.com/newscrawl/newscrawl/internal/search"
)

// Defaults of the ask routes: a question costs a search, word counts and,
// with a model, a completion; a client asks far less often than it searches.
const (
	DefaultAskRatePerSec      = 1.0 // questions per second per client, extractive
	DefaultAskModelRatePerSec = 0.2 // while a model answers: one question per 5 s
	DefaultAskRateBurst       = 5
	DefaultAskTimeout         = 45 * time.Second
)

// AskRequest is the body of POST /api/ask.
type AskRequest struct {
	Question string `json:"question"`
	Since    string `json:"since,omitempty"` // YYYY-MM-DD or RFC 3339
	Until    string `json:"until,omitempty"` // a bare date includes that day
	Host     string `json:"host,omitempty"`
	Lang     string `json:"lang,omitempty"`
	K        int    `json:"k,omitempty"`
	Strict   bool   `json:"strict,omitempty"`
}

// request turns the body or the page's form into an ask.Request.
func (b AskRequest) request() (ask.Request, error) {
	r := ask.Request{Question: b.Question, Host: b.Host, Lang: b.Lang, K: b.K, Strict: b.Strict}
	var err error
	if r.Since, err = search.ParseDate(b.Since, false); err != nil {
		return r, err
	}
	r.Until, err = search.ParseDate(b.Until, true)
	return r, err
}

// POST /api/ask {"question": "…", "since", "until", "host", "lang", "k", "strict"}
func (s *Server) apiAsk(w http.ResponseWriter, r *http.Request) {
	bad := func(msg string) { search.WriteJSON(w, http.StatusBadRequest, map[string]string{"error": msg}) }
	var body AskRequest
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&body); err != nil {
		bad("the body must be a JSON object: {\"question\": \"…\", \"since\", \"until\", \"host\", \"lang\", \"k\", \"strict\"}: " + err.Error())
		return
	}
	req, err := body.request()
	if err != nil {
		bad(err.Error())
		return
	}
	ans, code, msg := s.ask(r.Context(), req)
	if code != http.StatusOK {
		search.WriteJSON(w, code, map[string]string{"error": msg})
		return
	}
	search.WriteJSON(w, http.StatusOK, ans)
}

// ask runs a question and maps its failure to a status and a message.
func (s *Server) ask(ctx context.Context, req ask.Request) (ask.Answer, int, string) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.AskTimeout)
	defer cancel()
	ans, err := s.cfg.Asker.Ask(ctx, req)
	var me *search.ModelError
	switch {
	case err == nil:
		return ans, http.StatusOK, ""
	case search.IsInvalid(err):
		return ans, http.StatusBadRequest, err.Error()
	case errors.As(err, &me):
		return ans, http.StatusServiceUnavailable, me.Error()
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return ans, http.StatusGatewayTimeout, "the question took longer than " + s.cfg.AskTimeout.String()
	default:
		s.log.Error("ask", "err", err)
		return ans, http.StatusInternalServerError, "the question failed; the server's log says why"
	}
}

// An askPage is the Ask page: the form, then the answer and its sources.
type askPage struct {
	Question string
	Form     map[string]string
	Answer   *ask.Answer
	Cited    map[int]bool
	When     string
	Error    string
}

// GET /ask?q=…&since=&until=&host=&lang=&strict=1 : the answer as a page,
// without script.
func (s *Server) askPage(w http.ResponseWriter, r *http.Request) {
	v := r.URL.Query()
	p := askPage{Question: strings.TrimSpace(v.Get("q")), Form: map[string]string{}}
	for _, k := range []string{"since", "until", "host", "lang", "strict"} {
		p.Form[k] = v.Get(k)
	}
	if p.Question == "" {
		s.render(w, r, http.StatusOK, "ask", p)
		return
	}
	body := AskRequest{Question: p.Question, Since: v.Get("since"), Until: v.Get("until"), Host: v.Get("host"), Lang: v.Get("lang"),
		Strict: v.Get("strict") != ""}
	req, err := body.request()
	if err != nil {
		p.Error = err.Error()
		s.render(w, r, http.StatusBadRequest, "ask", p)
		return
	}
	ans, code, msg := s.ask(r.Context(), req)
	if code != http.StatusOK {
		p.Error = msg
		s.render(w, r, code, "ask", p)
		return
	}
	p.Answer, p.Cited = &ans, map[int]bool{}
	for _, st := range ans.Sentences {
		for _, n := range st.Citations {
			p.Cited[n] = true
		}
	}
	if ans.When != nil {
		p.When = spanText(*ans.When)
	}
	s.render(w, r, http.StatusOK, "ask", p)
}

func spanText(sp ask.Span) string {
	day := func(t *time.Time, open string) string {
		if t == nil {
			return open
		}
		return t.Format(time.DateOnly)
	}
	until := "now"
	if sp.Until != nil {
		until = "before " + day(sp.Until, "")
	}
	out := "from " + day(sp.Since, "the start") + ", " + until
	if sp.Phrase != "" {
		out += " (“" + sp.Phrase + "”)"
	}
	return out
}

// askLimits is the per-client limit of questions: stricter while a model
// answers them.
func askLimits(cfg Config) *clientLimits {
	per := cfg.AskRatePerSec
	if per == 0 {
		per = DefaultAskRatePerSec
		if cfg.Asker != nil && cfg.Asker.HasModel() {
			per = DefaultAskModelRatePerSec
		}
	}
	if per < 0 {
		per = 0 // no limit
	}
	burst := cfg.AskRateBurst
	if burst <= 0 {
		burst = DefaultAskRateBurst
	}
	return &clientLimits{perSecond: rate.Limit(per), burst: burst, loopback: cfg.RateLoopback}
}

// askDisabled answers the ask routes when serve has no Asker.
func (s *Server) askDisabled(w http.ResponseWriter, r *http.Request) {
	s.deny(w, r, http.StatusNotFound, "asking is not configured on this server")
}
