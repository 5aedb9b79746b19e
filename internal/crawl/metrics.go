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
	archived   prometheus.Counter
}

func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	m := &metrics{
		outcomes: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "newscrawl", Subsystem: "crawl",
			Name: "outcomes_total", Help: "Crawl requests by outcome (URL state or error type)."}, []string{"outcome"}),
		discovered: prometheus.NewCounter(prometheus.CounterOpts{Namespace: "newscrawl", Subsystem: "crawl",
			Name: "links_considered_total", Help: "Discovered URLs within depth and hosts, before the seen-set."}),
		archived: prometheus.NewCounter(prometheus.CounterOpts{Namespace: "newscrawl", Subsystem: "crawl",
			Name: "warc_fetches_total", Help: "Fetches written to the WARC files (CRAWL_WARC_DIR)."}),
	}
	if reg != nil {
		// A second crawler in the process (tests) shares the registered
		// collectors: counting into new, unregistered ones would lose counts.
		var err error
		if m.outcomes, err = register(reg, m.outcomes); err != nil {
			return nil, err
		}
		if m.discovered, err = register(reg, m.discovered); err != nil {
			return nil, err
		}
		if m.archived, err = register(reg, m.archived); err != nil {
			return nil, err
		}
	}
	// Every outcome at zero from the start, so a rate can be written before
	// the first one happens.
	for _, o := range append([]string{StateFetched, StateUnchanged, StateNotModified, StateGone, StateDisallowed, StateTooLarge,
		StateSkipped, StateNoIndex, StateRedirectError, StateClientError, StateParseError, StateAlias}, ErrorTypes...) {
		m.outcomes.WithLabelValues(o)
	}
	return m, nil
}

// register registers c, or returns the collector already registered as c.
func register[C prometheus.Collector](reg prometheus.Registerer, c C) (C, error) {
	err := reg.Register(c)
	var are prometheus.AlreadyRegisteredError
	switch {
	case err == nil:
		return c, nil
	case errors.As(err, &are):
		if existing, ok := are.ExistingCollector.(C); ok {
			return existing, nil
		}
	}
	return c, fmt.Errorf("register crawl metrics: %w", err)
}

func (m *metrics) outcome(o string) { m.outcomes.WithLabelValues(o).Inc() }
