package web

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"unicode"

	"github.com/newscrawl/newscrawl/internal/search"
	"github.com/newscrawl/newscrawl/pkg/streamkit"
)

// StatsResponse is GET /api/stats: what `newsctl stats --json` prints per
// stage, with the throughput serve sampled.
type StatsResponse struct {
	Stages []stageJSON `json:"stages"`
}

type stageJSON struct {
	streamkit.StageStats
	State         string  `json:"state"`
	ReadPerMinute float64 `json:"read_per_minute"`
	DLQPerMinute  float64 `json:"dlq_per_minute"`
	RateWindowS   float64 `json:"rate_window_s"`
}

func (s *Server) apiStats(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.Timeout)
	defer cancel()
	stats, err := s.stats(ctx)
	if err != nil {
		search.WriteJSON(w, http.StatusServiceUnavailable, map[string]string{"error": "read the stages from Redis: " + err.Error()})
		return
	}
	rs := s.sampler.rates(rateWindow)
	out := StatsResponse{Stages: []stageJSON{}}
	for _, st := range stats {
		rt := rs[st.Stage]
		out.Stages = append(out.Stages, stageJSON{StageStats: st, State: st.State(), ReadPerMinute: rt.Read,
			DLQPerMinute: rt.DLQ, RateWindowS: rt.Window.Seconds()})
	}
	search.WriteJSON(w, http.StatusOK, out)
}

// GET /api/dlq?stage=&error_type=&limit= : the newest dead letters first.
func (s *Server) apiDLQ(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	limit := int64(50)
	if raw := q.Get("limit"); raw != "" {
		n, err := strconv.ParseInt(raw, 10, 64)
		if err != nil || n < 1 || n > 1000 {
			search.WriteJSON(w, http.StatusBadRequest, map[string]string{"error": "limit must be 1 to 1000"})
			return
		}
		limit = n
	}
	stage := q.Get("stage")
	var stages []string
	for _, st := range s.cfg.Stages {
		if stage == "" || stage == st.Stage {
			stages = append(stages, st.Stage)
		}
	}
	if len(stages) == 0 {
		search.WriteJSON(w, http.StatusBadRequest, map[string]string{"error": "unknown stage " + strconv.Quote(stage)})
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.Timeout)
	defer cancel()
	out := map[string]any{}
	for _, st := range stages {
		counts, err := s.cfg.Admin.DLQCounts(ctx, st)
		if err != nil {
			search.WriteJSON(w, http.StatusServiceUnavailable, map[string]string{"error": err.Error()})
			return
		}
		newest, err := s.cfg.Admin.DLQNewest(ctx, st, limit)
		if err != nil {
			search.WriteJSON(w, http.StatusServiceUnavailable, map[string]string{"error": err.Error()})
			return
		}
		if et := q.Get("error_type"); et != "" {
			kept := newest[:0]
			for _, d := range newest {
				if d.ErrorType == et {
					kept = append(kept, d)
				}
			}
			newest = kept
		}
		if newest == nil {
			newest = []streamkit.DeadLetter{}
		}
		out[st] = map[string]any{"counts": counts, "newest": newest}
	}
	search.WriteJSON(w, http.StatusOK, out)
}

// openAPI serves a short description of the JSON API.
func (s *Server) openAPI(w http.ResponseWriter, r *http.Request) {
	b, err := assets.ReadFile("static/openapi.json")
	if err != nil {
		http.Error(w, "missing", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	_, _ = w.Write(b)
}

// DocumentsResponse is GET /api/documents: a page of searchable documents,
// newest first, and the cursor of the next page ("" at the end).
type DocumentsResponse struct {
	Documents []search.Listed `json:"documents"`
	Next      string          `json:"next"`
}

// GET /api/documents?host=&lang=&since=&until=&after=&limit=
func (s *Server) apiDocuments(w http.ResponseWriter, r *http.Request) {
	bad := func(msg string) { search.WriteJSON(w, http.StatusBadRequest, map[string]string{"error": msg}) }
	v := r.URL.Query()
	for name, vals := range v {
		if len(vals) > 1 || len(vals[0]) > 512 || strings.ContainsFunc(vals[0], unicode.IsControl) {
			bad(fmt.Sprintf("parameter %q must be given once, up to 512 bytes, without control characters", name))
			return
		}
	}
	q := search.ListQuery{Host: v.Get("host"), Lang: v.Get("lang"), After: v.Get("after"), Limit: 50}
	if raw := v.Get("limit"); raw != "" {
		n, err := strconv.Atoi(raw)
		if err != nil || n < 1 || n > search.MaxListLimit {
			bad(fmt.Sprintf("limit must be 1 to %d", search.MaxListLimit))
			return
		}
		q.Limit = n
	}
	var err error
	if q.Since, err = search.ParseDate(v.Get("since"), false); err != nil {
		bad(err.Error())
		return
	}
	if q.Until, err = search.ParseDate(v.Get("until"), true); err != nil {
		bad(err.Error())
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.Timeout)
	defer cancel()
	out := DocumentsResponse{Documents: []search.Listed{}}
	err = s.cfg.Searcher.List(ctx, q, func(d search.Listed) error {
		out.Documents = append(out.Documents, d)
		return nil
	})
	switch {
	case search.IsInvalid(err):
		bad(err.Error())
		return
	case err != nil:
		s.log.Error("list documents", "err", err)
		search.WriteJSON(w, http.StatusInternalServerError, map[string]string{"error": "internal error"})
		return
	}
	if len(out.Documents) == q.Limit {
		out.Next = out.Documents[len(out.Documents)-1].Cursor
	}
	search.WriteJSON(w, http.StatusOK, out)
}
