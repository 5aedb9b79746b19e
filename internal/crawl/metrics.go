package crawl

import (
	"errors"
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the crawler's own counters, beside streamkit's.
type metrics struct {
	outcomes   *prometheus.CounterVec
	discovered prometheus.Counter
}

func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	m := &metrics{
		outcomes: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "newscrawl", Subsystem: "crawl",
			Name: "outcomes_total", Help: "Crawl requests by outcome (URL state or error type)."}, []string{"outcome"}),
		discovered: prometheus.NewCounter(prometheus.CounterOpts{Namespace: "newscrawl", Subsystem: "crawl",
			Name: "links_considered_total", Help: "Discovered URLs within depth and hosts, before the seen-set."}),
	}
	// Every outcome at zero from the start, so a rate can be written before
	// the first one happens.
	for _, o := range append([]string{StateFetched, StateUnchanged, StateNotModified, StateGone, StateDisallowed, StateTooLarge,
		StateSkipped, StateNoIndex, StateRedirectError, StateClientError, StateParseError, StateAlias}, ErrorTypes...) {
		m.outcomes.WithLabelValues(o)
	}
	if reg == nil {
		return m, nil
	}
	for _, c := range []prometheus.Collector{m.outcomes, m.discovered} {
		if err := reg.Register(c); err != nil {
			var are prometheus.AlreadyRegisteredError
			if !errors.As(err, &are) {
				return nil, fmt.Errorf("register crawl metrics: %w", err)
			}
		}
	}
	return m, nil
}

func (m *metrics) outcome(o string) { m.outcomes.WithLabelValues(o).Inc() }
