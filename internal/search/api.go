package search

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"math"
	"net/http"
	"regexp"
	"strconv"
	"time"

	"github.com/newscrawl/newscrawl/internal/embed"
)

// DefaultRequestTimeout bounds one API request's work.
const DefaultRequestTimeout = 10 * time.Second

// APIConfig configures the HTTP API.
type APIConfig struct {
	Timeout time.Duration                   // per request; default DefaultRequestTimeout
	Health  func(ctx context.Context) error // /healthz check; nil answers ok
	Log     *slog.Logger
}

// An api serves search and documents as JSON.
type api struct {
	s   *Searcher
	cfg APIConfig
}

// NewHandler returns the HTTP API:
//
//	GET /api/search?q=…&k=&mode=&since=&until=&host=&lang=   → {"results": [...], ...}
//	GET /api/documents/{doc_id}                                → the document and its extraction
//	GET /healthz
//
// Bad parameters answer 400 with {"error": "..."}; an unknown document 404;
// a model with no chunks 503; a rate-limited query embedding 503 with
// Retry-After; another embedding failure 502; a request over the timeout 504.
func NewHandler(s *Searcher, cfg APIConfig) http.Handler {
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultRequestTimeout
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	a := &api{s: s, cfg: cfg}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/search", a.search)
	mux.HandleFunc("GET /api/documents/{doc_id}", a.document)
	mux.HandleFunc("GET /healthz", a.health)
	return mux
}

// SearchResponse is the body of GET /api/search.
type SearchResponse struct {
	Query   string   `json:"query"`
	Mode    Mode     `json:"mode"`
	K       int      `json:"k"`
	Model   string   `json:"model"`
	Count   int      `json:"count"`
	Results []Result `json:"results"`
	Note    string   `json:"note,omitempty"` // set when full text alone answered
}

func (a *api) search(w http.ResponseWriter, r *http.Request) {
	q, err := ParseValues(r.URL.Query())
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), a.cfg.Timeout)
	defer cancel()
	ans, err := a.s.Answer(ctx, q)
	if err != nil {
		a.fail(w, r, ctx, err)
		return
	}
	WriteJSON(w, http.StatusOK, SearchResponse{Query: q.Text, Mode: ans.Mode, K: q.K, Model: a.s.Identity().Version(),
		Count: len(ans.Results), Results: ans.Results, Note: ans.Note})
}

var docIDPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,128}$`)

func (a *api) document(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("doc_id")
	if !docIDPattern.MatchString(id) {
		writeError(w, http.StatusBadRequest, "doc_id must be 1 to 128 letters, digits, '-' or '_'")
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), a.cfg.Timeout)
	defer cancel()
	d, err := a.s.Document(ctx, id)
	if err != nil {
		a.fail(w, r, ctx, err)
		return
	}
	WriteJSON(w, http.StatusOK, d)
}

func (a *api) health(w http.ResponseWriter, r *http.Request) {
	if a.cfg.Health != nil {
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		if err := a.cfg.Health(ctx); err != nil {
			writeError(w, http.StatusServiceUnavailable, "unhealthy: "+err.Error())
			return
		}
	}
	WriteJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// fail maps an error to a status; unexpected errors are logged, not shown.
func (a *api) fail(w http.ResponseWriter, r *http.Request, ctx context.Context, err error) {
	var me *ModelError
	var ee *EmbedError
	switch {
	case IsInvalid(err):
		writeError(w, http.StatusBadRequest, err.Error())
	case errors.Is(err, ErrNotFound):
		writeError(w, http.StatusNotFound, err.Error())
	case errors.As(err, &me):
		writeError(w, http.StatusServiceUnavailable, me.Error())
	case errors.As(err, &ee):
		var rl *embed.RateLimitError
		if errors.As(err, &rl) {
			w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(rl.RetryAfter.Seconds()))))
			writeError(w, http.StatusServiceUnavailable, "the embedding model is rate limited; retry later")
			return
		}
		a.cfg.Log.Warn("query embedding failed", "err", err)
		writeError(w, http.StatusBadGateway, "the embedding model failed: "+ee.Err.Error())
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		writeError(w, http.StatusGatewayTimeout, "the request took longer than "+a.cfg.Timeout.String())
	default:
		a.cfg.Log.Error("api request failed", "path", r.URL.Path, "err", err)
		writeError(w, http.StatusInternalServerError, "internal error")
	}
}

// WriteJSON answers v as JSON with status (HTML left unescaped); the web
// package answers its own API routes with it too.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

func writeError(w http.ResponseWriter, status int, msg string) {
	WriteJSON(w, status, map[string]string{"error": msg})
}
