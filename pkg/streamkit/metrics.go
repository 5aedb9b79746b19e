package streamkit

import (
	"cmp"
	"context"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// DefaultNamespace prefixes streamkit's metric names (<namespace>_stage_…)
// when no other is given.
const DefaultNamespace = "streamkit"

// Metrics holds the counters and latency histogram of every stage in a
// process, labelled by stage. Build one per registry with NewMetrics.
type Metrics struct {
	processed    *prometheus.CounterVec
	failed       *prometheus.CounterVec
	retried      *prometheus.CounterVec
	deferred     *prometheus.CounterVec
	deadLettered *prometheus.CounterVec
	duplicates   *prometheus.CounterVec
	lost         *prometheus.CounterVec
	paused       *prometheus.GaugeVec
	visibility   *prometheus.GaugeVec
	latency      *prometheus.HistogramVec
}

// NewMetrics creates the vectors, named <namespace>_stage_… (""
// is DefaultNamespace), and registers them with reg (nil: unregistered).
func NewMetrics(namespace string, reg prometheus.Registerer) *Metrics {
	namespace = cmp.Or(namespace, DefaultNamespace)
	counter := func(name, help string, labels ...string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Subsystem: "stage", Name: name, Help: help}, append([]string{"stage"}, labels...))
	}
	m := &Metrics{
		processed:    counter("processed_total", "Messages whose work was committed and acked."),
		failed:       counter("failed_total", "Handler failures, by error type.", "error_type"),
		retried:      counter("retried_total", "Messages scheduled for a delayed retry after a failure (deferrals are deferred_total)."),
		deferred:     counter("deferred_total", "Messages a handler sent back for later without failing (streamkit.Later)."),
		deadLettered: counter("dead_lettered_total", "Messages moved to the dead-letter stream, by error type.", "error_type"),
		duplicates:   counter("duplicate_total", "Messages whose key was already in the ledger (acked without redoing the work)."),
		lost:         counter("lost_total", "Pending entries whose bodies had been trimmed (acked and counted)."),
		paused: prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: namespace, Subsystem: "stage", Name: "paused",
			Help: "1 while the consumer is paused because a dependency (Redis, PostgreSQL, a model server) is away."}, []string{"stage"}),
		visibility: prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: namespace, Subsystem: "stage", Name: "visibility_seconds",
			Help: "The stage's visibility: an entry pending longer is reclaimed (alerts compare the oldest pending age with it)."}, []string{"stage"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: namespace, Subsystem: "stage", Name: "handler_seconds",
			Help:    "Handler latency.",
			Buckets: prometheus.ExponentialBuckets(0.0005, 2.5, 14),
		}, []string{"stage"}),
	}
	if reg != nil {
		reg.MustRegister(m.processed, m.failed, m.retried, m.deferred, m.deadLettered, m.duplicates, m.lost, m.paused, m.visibility, m.latency)
	}
	return m
}

// stageMetrics are the children of one stage, kept on the consumer.
type stageMetrics struct {
	m          *Metrics
	stage      string
	processed  prometheus.Counter
	retried    prometheus.Counter
	deferred   prometheus.Counter
	duplicates prometheus.Counter
	lost       prometheus.Counter
	paused     prometheus.Gauge
	latency    prometheus.Observer
}

// errorTypes are streamkit's own error types: their failure and dead-letter
// counters exist at zero from the start, so a rate or an alert can be
// written before the first failure.
var errorTypes = []string{ErrorTypePoison, ErrorTypeBadMessage, ErrorTypePermanent, ErrorTypeRetries,
	ErrorTypeTimeout, ErrorTypeDeferred, ErrorTypeRunaway, "transient", "ledger", "panic", "rate_limited", "unavailable"}

func (m *Metrics) forStage(stage string, visibility time.Duration, own ...string) *stageMetrics {
	m.visibility.WithLabelValues(stage).Set(visibility.Seconds())
	for _, t := range append(own, errorTypes...) {
		m.failed.WithLabelValues(stage, t)
		m.deadLettered.WithLabelValues(stage, t)
	}
	return &stageMetrics{
		m:          m,
		stage:      stage,
		processed:  m.processed.WithLabelValues(stage),
		retried:    m.retried.WithLabelValues(stage),
		deferred:   m.deferred.WithLabelValues(stage),
		duplicates: m.duplicates.WithLabelValues(stage),
		lost:       m.lost.WithLabelValues(stage),
		paused:     m.paused.WithLabelValues(stage),
		latency:    m.latency.WithLabelValues(stage),
	}
}

func (s *stageMetrics) failed(errType string) { s.m.failed.WithLabelValues(s.stage, errType).Inc() }
func (s *stageMetrics) deadLettered(errType string) {
	s.m.deadLettered.WithLabelValues(s.stage, errType).Inc()
}

// A StatsCollector exports the Redis-side state of stages (stream length,
// group lag, PEL depth, oldest pending age, DLQ length, retry-set size) as
// gauges, read from Redis at scrape time.
type StatsCollector struct {
	admin  *Admin
	stages []StageRef
	descs  map[string]*prometheus.Desc
}

// NewStatsCollector returns a collector for stages, read through admin
// (summed over each stage's partitions), its gauges named
// <namespace>_stage_… ("" is DefaultNamespace); register it with a registry.
func NewStatsCollector(namespace string, admin *Admin, stages ...StageRef) *StatsCollector {
	namespace = cmp.Or(namespace, DefaultNamespace)
	d := func(name, help string) *prometheus.Desc {
		return prometheus.NewDesc(namespace+"_stage_"+name, help, []string{"stage"}, nil)
	}
	return &StatsCollector{
		admin:  admin,
		stages: stages,
		descs: map[string]*prometheus.Desc{
			"length":   d("stream_length", "Entries in the stage's stream."),
			"lag":      d("group_lag", "Entries not yet delivered to the stage's group."),
			"pending":  d("pending", "Entries delivered but not acked (PEL depth)."),
			"age":      d("oldest_pending_age_seconds", "Age of the oldest pending entry."),
			"dlq":      d("dlq_length", "Entries in the stage's dead-letter stream."),
			"retry":    d("retry_set_size", "Entries waiting for a delayed retry after a failure."),
			"deferred": d("deferred_set_size", "Entries a handler stepped aside with until later (a host's politeness slot): not failures."),
			"backlog": prometheus.NewDesc(namespace+"_stage_partition_backlog",
				"Entries waiting on one partition of a partitioned stage (lag + pending): a hot partition shows here.",
				[]string{"stage", "partition"}, nil),
		},
	}
}

// Describe implements prometheus.Collector.
func (c *StatsCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range c.descs {
		ch <- d
	}
}

// Collect implements prometheus.Collector; on a Redis error it exports nothing.
func (c *StatsCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	stats, err := c.admin.Stats(ctx, c.stages)
	if err != nil {
		return
	}
	for _, s := range stats {
		g := func(key string, v float64) {
			ch <- prometheus.MustNewConstMetric(c.descs[key], prometheus.GaugeValue, v, s.Stage)
		}
		g("length", float64(s.Length))
		g("lag", float64(s.Lag))
		g("pending", float64(s.Pending))
		g("age", s.OldestPendingAgeS)
		g("dlq", float64(s.DLQ))
		g("retry", float64(s.Retry))
		g("deferred", float64(s.Deferred))
		for _, p := range s.Partitions {
			ch <- prometheus.MustNewConstMetric(c.descs["backlog"], prometheus.GaugeValue, float64(p.Lag+p.Pending), s.Stage, strconv.Itoa(p.Partition))
		}
	}
}
