package extract

import (
	"log/slog"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/newscrawl/newscrawl/internal/extract/provider"
	"github.com/newscrawl/newscrawl/internal/extract/schema"
)

// Outcomes of one extraction, as counted in newscrawl_extract_outcomes_total.
const (
	OutcomeModel    = "model"    // a valid answer at the first try
	OutcomeRepaired = "repaired" // valid after one repair request
	OutcomePartial  = "partial"  // accepted with optional fields left empty
	OutcomeFallback = "fallback" // the model failed; the heuristic extraction was stored
	OutcomeReused   = "reused"   // an answer kept from an earlier try was used: nothing paid
)

// Fallback-share warning: over the last fallbackWindow extractions, a share
// of fallbacks at or above fallbackWarnShare is logged (at most every
// fallbackWarnEvery).
const (
	fallbackWindow    = 50
	fallbackWarnShare = 0.2
	fallbackWarnEvery = 5 * time.Minute
)

// Metrics are the extractor's own counters, beside streamkit's.
type Metrics struct {
	outcomes *prometheus.CounterVec
	calls    prometheus.Counter
	tokens   *prometheus.CounterVec
	latency  prometheus.Histogram
}

// NewMetrics creates the metrics with every label at zero and registers
// them with reg (nil: unregistered).
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		outcomes: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "newscrawl", Subsystem: "extract", Name: "outcomes_total",
			Help: "Extractions by outcome: model, repaired, partial, fallback, reused."}, []string{"outcome"}),
		calls: prometheus.NewCounter(prometheus.CounterOpts{Namespace: "newscrawl", Subsystem: "extract", Name: "model_requests_total",
			Help: "Requests sent to the model server (answers, repairs, retries after a cut answer)."}),
		tokens: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "newscrawl", Subsystem: "extract", Name: "tokens_total",
			Help: "Tokens the model server counted, by kind (input, output)."}, []string{"kind"}),
		latency: prometheus.NewHistogram(prometheus.HistogramOpts{Namespace: "newscrawl", Subsystem: "extract", Name: "model_seconds",
			Help: "Time to an accepted answer, repairs included.", Buckets: prometheus.ExponentialBuckets(0.05, 2, 14)}),
	}
	for _, o := range []string{OutcomeModel, OutcomeRepaired, OutcomePartial, OutcomeFallback, OutcomeReused} {
		m.outcomes.WithLabelValues(o)
	}
	m.tokens.WithLabelValues("input")
	m.tokens.WithLabelValues("output")
	if reg != nil {
		reg.MustRegister(m.outcomes, m.calls, m.tokens, m.latency)
	}
	return m
}

// stageMetrics counts one handler's outcomes and watches the fallback share.
type stageMetrics struct {
	*Metrics
	log *slog.Logger

	mu       sync.Mutex
	recent   []bool // the last fallbackWindow outcomes: true = fallback
	next     int
	lastWarn time.Time
}

func (m *Metrics) forStage(log *slog.Logger) *stageMetrics {
	return &stageMetrics{Metrics: m, log: log, recent: make([]bool, 0, fallbackWindow)}
}

// observe counts one extraction.
func (s *stageMetrics) observe(out provider.Output, fallback, reused bool, latency time.Duration) {
	switch {
	case fallback:
		s.outcomes.WithLabelValues(OutcomeFallback).Inc()
	case reused:
		s.outcomes.WithLabelValues(OutcomeReused).Inc()
	case len(out.Invalid) > 0:
		s.outcomes.WithLabelValues(OutcomePartial).Inc()
	case out.Repaired:
		s.outcomes.WithLabelValues(OutcomeRepaired).Inc()
	default:
		s.outcomes.WithLabelValues(OutcomeModel).Inc()
	}
	if !reused {
		s.calls.Add(float64(out.Requests))
		s.tokens.WithLabelValues("input").Add(float64(out.InputTokens))
		s.tokens.WithLabelValues("output").Add(float64(out.OutputTokens))
		if !fallback {
			s.latency.Observe(latency.Seconds())
		}
	}
	s.watch(fallback)
}

// watch logs a warning when the fallback share of the recent extractions
// passes the threshold: the model is failing for many documents.
func (s *stageMetrics) watch(fallback bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.recent) < fallbackWindow {
		s.recent = append(s.recent, fallback)
	} else {
		s.recent[s.next] = fallback
		s.next = (s.next + 1) % fallbackWindow
	}
	n := 0
	for _, f := range s.recent {
		if f {
			n++
		}
	}
	share := float64(n) / float64(len(s.recent))
	if len(s.recent) >= 10 && share >= fallbackWarnShare && time.Since(s.lastWarn) >= fallbackWarnEvery {
		s.lastWarn = time.Now()
		s.log.Warn("the model fails for many documents: their heuristic fallbacks are stored; fix the model server, then run newsctl reextract --fallbacks",
			"fallbacks", n, "of_last", len(s.recent))
	}
}

// invalidText renders the invalid fields for storage and logs.
func invalidText(in []schema.Invalid) []string {
	out := make([]string, len(in))
	for i, v := range in {
		out[i] = v.String()
	}
	return out
}
