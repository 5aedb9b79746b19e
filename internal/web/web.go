// Package web is what `newsctl serve` answers: the search, document and
// pipeline pages (server-rendered, assets embedded, no script needed), the
// JSON API beside them, and the guard in front of both: who may see and
// change what, security headers, admission control and a per-client rate
// limit on search.
package web

import (
	"context"
	"embed"
	"errors"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"golang.org/x/time/rate"

	"github.com/newscrawl/newscrawl/internal/ask"
	"github.com/newscrawl/newscrawl/internal/search"
	"github.com/newscrawl/newscrawl/pkg/streamkit"
)

//go:embed templates/*.html static/*
var assets embed.FS

// Defaults of Config.
const (
	DefaultInFlight    = 8
	DefaultQueue       = 32
	DefaultQueueWait   = 500 * time.Millisecond
	DefaultRatePerSec  = 5
	DefaultRateBurst   = 20
	DefaultSampleEvery = 5 * time.Second
	maxFormBytes       = 16 << 10
)

// Config is what a Server needs.
type Config struct {
	Searcher *search.Searcher
	Asker    *ask.Asker // the Ask page and POST /api/ask; nil answers them 404
	Admin    *streamkit.Admin
	Stages   []streamkit.StageRef
	Health   func(ctx context.Context) error // /healthz; nil answers ok
	Timeout  time.Duration                   // per request

	Token    string // SERVE_TOKEN: enables replay and purge, and guards everything off loopback
	Loopback bool   // the listener is loopback only
	ReadOnly bool   // SERVE_PUBLIC_READONLY: search and document pages open off loopback

	InFlight, Queue int           // searches running, searches waiting
	QueueWait       time.Duration // longest wait in the queue before a 503
	RatePerSec      float64       // searches per second per client; 0: no limit (cmd binds DefaultRatePerSec)
	RateBurst       int
	RateLoopback    bool // apply the rate limit to loopback clients too
	SampleEvery     time.Duration
	// AskRatePerSec is questions per second per client: 0 takes
	// DefaultAskRatePerSec, or DefaultAskModelRatePerSec when the Asker
	// has a model; below 0, no limit. AskTimeout bounds one question.
	AskRatePerSec float64
	AskRateBurst  int
	AskTimeout    time.Duration
	// Registry takes the server's metrics (and the Asker's, registered by
	// the caller); nil: a registry of its own.
	Registry *prometheus.Registry
	Log      *slog.Logger
}

// A Server serves the pages and the API.
type Server struct {
	cfg       Config
	access    access
	admission *admission
	limits    *clientLimits
	askLimits *clientLimits
	sampler   *sampler
	pages     map[string]*template.Template
	api       http.Handler // internal/search's JSON API
	metrics   serveMetrics
	reg       *prometheus.Registry
	log       *slog.Logger
}

type serveMetrics struct {
	requests *prometheus.CounterVec
	rejected *prometheus.CounterVec
	latency  *prometheus.HistogramVec
}

// New checks cfg and returns a Server; Run starts its sampler.
func New(cfg Config) (*Server, error) {
	if cfg.Searcher == nil || cfg.Admin == nil {
		return nil, errors.New("web: a searcher and an admin are required")
	}
	if !cfg.Loopback && cfg.Token == "" && !cfg.ReadOnly {
		return nil, errors.New("serving on an address other than loopback needs SERVE_TOKEN (to guard it) or SERVE_PUBLIC_READONLY=true (search and document pages only)")
	}
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&cfg.InFlight, DefaultInFlight)
	def(&cfg.Queue, DefaultQueue)
	def(&cfg.RateBurst, DefaultRateBurst)
	if cfg.QueueWait <= 0 {
		cfg.QueueWait = DefaultQueueWait
	}
	if cfg.SampleEvery <= 0 {
		cfg.SampleEvery = DefaultSampleEvery
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = search.DefaultRequestTimeout
	}
	if cfg.AskTimeout <= 0 {
		cfg.AskTimeout = DefaultAskTimeout
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.Registry == nil {
		cfg.Registry = prometheus.NewRegistry()
	}
	pages, err := parsePages()
	if err != nil {
		return nil, err
	}
	s := &Server{
		cfg:       cfg,
		access:    access{token: cfg.Token, loopback: cfg.Loopback, readOnly: cfg.ReadOnly},
		admission: newAdmission(cfg.InFlight, cfg.Queue, cfg.QueueWait),
		limits:    &clientLimits{perSecond: rate.Limit(cfg.RatePerSec), burst: cfg.RateBurst, loopback: cfg.RateLoopback},
		askLimits: askLimits(cfg),
		pages:     pages,
		api:       search.NewHandler(cfg.Searcher, search.APIConfig{Timeout: cfg.Timeout, Log: cfg.Log, Health: cfg.Health}),
		reg:       cfg.Registry,
		log:       cfg.Log,
	}
	s.sampler = &sampler{stats: s.stats, every: cfg.SampleEvery, log: cfg.Log}
	s.metrics = serveMetrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "newscrawl", Subsystem: "serve", Name: "requests_total",
			Help: "Requests answered, by route and status code."}, []string{"route", "code"}),
		rejected: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "newscrawl", Subsystem: "serve", Name: "rejected_total",
			Help: "Searches refused before they ran: busy (admission) or rate_limit (per client)."}, []string{"reason"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: "newscrawl", Subsystem: "serve", Name: "request_seconds",
			Help: "Time to answer a request, by route.", Buckets: prometheus.DefBuckets}, []string{"route"}),
	}
	for _, reason := range []string{"busy", "rate_limit"} {
		s.metrics.rejected.WithLabelValues(reason)
	}
	s.reg.MustRegister(s.metrics.requests, s.metrics.rejected, s.metrics.latency,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return s, nil
}

// Run samples the pipeline until ctx ends.
func (s *Server) Run(ctx context.Context) { s.sampler.run(ctx) }

// Handler returns every route behind the security headers.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	route := func(pattern string, h http.HandlerFunc) {
		mux.Handle(pattern, s.instrument(pattern, h))
	}
	csrf := http.NewCrossOriginProtection()
	changing := func(h http.HandlerFunc) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
			csrf.Handler(h).ServeHTTP(w, r)
		}
	}
	route("GET /{$}", s.guard(public, s.admit(s.searchPage)))
	askPage, apiAsk := s.askDisabled, s.askDisabled
	if s.cfg.Asker != nil {
		askPage, apiAsk = s.admitBy(s.askLimits, s.askPage), s.admitBy(s.askLimits, s.apiAsk)
	}
	route("GET /ask", s.guard(public, askPage))
	route("POST /api/ask", changing(s.guard(public, apiAsk)))
	route("GET /documents/{doc_id}", s.guard(public, s.documentPage))
	route("GET /pipeline", s.guard(operator, s.pipelinePage))
	route("POST /pipeline/dlq", changing(s.guard(change, s.dlqAction)))
	route("GET /login", s.loginPage)
	route("POST /login", changing(s.login))
	route("POST /logout", changing(s.logout))
	route("GET /static/", s.static)

	route("GET /api/search", s.guard(public, s.admit(s.api.ServeHTTP)))
	route("GET /api/documents", s.guard(public, s.apiDocuments))
	route("GET /api/documents/{doc_id}", s.guard(public, s.api.ServeHTTP))
	route("GET /api/stats", s.guard(operator, s.apiStats))
	route("GET /api/dlq", s.guard(operator, s.apiDLQ))
	route("GET /api/openapi.json", s.openAPI)
	route("GET /healthz", s.api.ServeHTTP)
	mux.Handle("GET /metrics", promhttp.HandlerFor(s.reg, promhttp.HandlerOpts{}))
	return securityHeaders(validParams(mux))
}

// instrument counts and times a route by its pattern (bounded labels).
func (s *Server) instrument(pattern string, h http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w, code: http.StatusOK}
		h(rec, r)
		s.metrics.requests.WithLabelValues(pattern, http.StatusText(rec.code)).Inc()
		s.metrics.latency.WithLabelValues(pattern).Observe(time.Since(start).Seconds())
	})
}

type statusRecorder struct {
	http.ResponseWriter
	code int
}

func (r *statusRecorder) WriteHeader(code int) {
	r.code = code
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// stats reads every stage's Redis state.
func (s *Server) stats(ctx context.Context) ([]streamkit.StageStats, error) {
	return s.cfg.Admin.Stats(ctx, s.cfg.Stages)
}

func (s *Server) static(w http.ResponseWriter, r *http.Request) {
	sub, _ := fs.Sub(assets, "static")
	w.Header().Set("Cache-Control", "public, max-age=3600")
	http.StripPrefix("/static/", http.FileServerFS(sub)).ServeHTTP(w, r)
}

// deny answers an error as JSON for the API and as a page for a browser.
func (s *Server) deny(w http.ResponseWriter, r *http.Request, code int, msg string) {
	if isAPI(r) {
		search.WriteJSON(w, code, map[string]string{"error": msg})
		return
	}
	s.render(w, r, code, "error", errorPage{Code: code, Status: http.StatusText(code), Message: msg})
}

func isAPI(r *http.Request) bool { return strings.HasPrefix(r.URL.Path, "/api/") }
