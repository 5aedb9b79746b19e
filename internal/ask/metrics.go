package ask

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics count what ask answered; a nil *Metrics counts nothing.
type Metrics struct {
	latency     *prometheus.HistogramVec
	sentences   *prometheus.CounterVec
	abstentions prometheus.Counter
	fallbacks   *prometheus.CounterVec
}

// NewMetrics registers ask's metrics with reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: "newscrawl", Subsystem: "ask", Name: "seconds",
			Help: "Time to answer a question, by the mode that answered (model, extractive).", Buckets: prometheus.DefBuckets}, []string{"mode"}),
		sentences: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "newscrawl", Subsystem: "ask", Name: "sentences_total",
			Help: "Sentences shown, by whether the sources they cite support them."}, []string{"supported"}),
		abstentions: prometheus.NewCounter(prometheus.CounterOpts{Namespace: "newscrawl", Subsystem: "ask", Name: "abstentions_total",
			Help: "Questions the archive held nothing close enough on."}),
		fallbacks: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "newscrawl", Subsystem: "ask", Name: "fallbacks_total",
			Help: "Model answers replaced by extractive ones: model_failed (error, timeout, 429, down) or unsupported (no sentence held)."}, []string{"reason"}),
	}
	for _, v := range []string{"true", "false"} {
		m.sentences.WithLabelValues(v)
	}
	for _, v := range []string{"model_failed", "unsupported"} {
		m.fallbacks.WithLabelValues(v)
	}
	reg.MustRegister(m.latency, m.sentences, m.abstentions, m.fallbacks)
	return m
}

func (m *Metrics) observe(a Answer, took time.Duration) {
	if m == nil {
		return
	}
	m.latency.WithLabelValues(a.Mode).Observe(took.Seconds())
	m.sentences.WithLabelValues("true").Add(float64(a.Supported))
	m.sentences.WithLabelValues("false").Add(float64(a.Total - a.Supported))
	if a.Abstained {
		m.abstentions.Inc()
	}
}

func (m *Metrics) fellBack(reason string) {
	if m != nil {
		m.fallbacks.WithLabelValues(reason).Inc()
	}
}
