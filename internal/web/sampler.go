package web

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/newscrawl/newscrawl/pkg/streamkit"
)

// sampleKeep is how far back throughput is kept.
const sampleKeep = 15 * time.Minute

// rateWindow is the span throughput is shown over.
const rateWindow = 5 * time.Minute

// A sampler reads every stage's counters on a schedule (serve has none of
// the workers' own): entries its group has read and the dead-letter length,
// from which the pipeline page shows throughput and the DLQ's recent rate.
type sampler struct {
	stats func(ctx context.Context) ([]streamkit.StageStats, error)
	every time.Duration
	log   *slog.Logger

	mu      sync.Mutex
	samples []sample // oldest first
}

type sample struct {
	at   time.Time
	read map[string]int64
	dlq  map[string]int64
}

func (s *sampler) run(ctx context.Context) {
	t := time.NewTicker(s.every)
	defer t.Stop()
	for {
		s.take(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func (s *sampler) take(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, s.every)
	defer cancel()
	stats, err := s.stats(ctx)
	if err != nil {
		s.log.Debug("pipeline sample failed", "err", err)
		return
	}
	s.add(time.Now(), stats)
}

func (s *sampler) add(at time.Time, stats []streamkit.StageStats) {
	sm := sample{at: at, read: map[string]int64{}, dlq: map[string]int64{}}
	for _, st := range stats {
		sm.read[st.Stage] = st.Read
		sm.dlq[st.Stage] = st.DLQ
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.samples = append(s.samples, sm)
	for len(s.samples) > 1 && at.Sub(s.samples[0].at) > sampleKeep {
		s.samples = s.samples[1:]
	}
}

// A rate is a stage's messages per minute over a window.
type rates struct {
	Read   float64 // entries read by the group, per minute
	DLQ    float64 // dead letters written, per minute
	Window time.Duration
}

// rates returns each stage's rates over the last window (or as much of it
// as has been sampled); none before two samples.
func (s *sampler) rates(window time.Duration) map[string]rates {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]rates{}
	if len(s.samples) < 2 {
		return out
	}
	last := s.samples[len(s.samples)-1]
	first := s.samples[0]
	for _, sm := range s.samples {
		if last.at.Sub(sm.at) <= window {
			first = sm
			break
		}
	}
	span := last.at.Sub(first.at)
	if span <= 0 {
		return out
	}
	per := time.Minute.Seconds() / span.Seconds()
	for stage, n := range last.read {
		out[stage] = rates{
			Read:   float64(max(0, n-first.read[stage])) * per,
			DLQ:    float64(max(0, last.dlq[stage]-first.dlq[stage])) * per,
			Window: span,
		}
	}
	return out
}
