package streamkit

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"
)

// Consumer states, as published in status records.
const (
	StateStarting = "starting" // waiting for Redis to create its group
	StateRunning  = "running"
	StatePaused   = "paused" // a dependency is away: reading stopped, work held
	StateDraining = "draining"
)

// A ConsumerStatus is what a consumer publishes of itself under its stage's
// Status key, refreshed every StatusInterval; a record not refreshed for
// three intervals is stale and no longer listed.
type ConsumerStatus struct {
	Consumer       string            `json:"consumer"`
	Stage          string            `json:"stage"`
	Group          string            `json:"group"`
	State          string            `json:"state"`
	Reason         string            `json:"reason,omitempty"` // why it is paused
	Outages        []Outage          `json:"outages,omitempty"`
	Since          time.Time         `json:"since"` // in this state since
	Host           string            `json:"host"`
	PID            int               `json:"pid"`
	Held           int               `json:"held"` // entries leased: queued, running or committing
	Visibility     string            `json:"visibility"`
	HandlerTimeout string            `json:"handler_timeout"`
	Concurrency    int               `json:"concurrency"`
	BatchSize      int               `json:"batch_size"`
	Settings       map[string]string `json:"settings,omitempty"` // the stage's own (Config.Status)
	UpdatedAt      time.Time         `json:"updated_at"`
	ExpiresAt      time.Time         `json:"expires_at"`
}

// status publishes one consumer's status record.
type status struct {
	*loop
	rdb    redis.UniversalClient
	key    string
	cfg    *Config
	deps   *Dependencies
	held   func() int // entries held by the consumer
	host   string
	paused prometheus.Gauge // 1 while paused

	mu    sync.Mutex
	state string
	since time.Time
}

func newStatus(rdb redis.UniversalClient, keys Keys, cfg *Config, deps *Dependencies, held func() int, paused prometheus.Gauge) *status {
	host, _ := os.Hostname()
	s := &status{rdb: rdb, key: keys.Status(), cfg: cfg, deps: deps, held: held, host: host, since: time.Now(), paused: paused}
	s.loop = newLoop(cfg.StatusInterval, s.exec)
	return s
}

// set records a state change; the next publication carries it.
func (s *status) set(state string) {
	s.mu.Lock()
	if s.state != state {
		s.state, s.since = state, time.Now()
	}
	s.mu.Unlock()
}

// record is the current status.
func (s *status) record(now time.Time) ConsumerStatus {
	s.mu.Lock()
	state, since := s.state, s.since
	s.mu.Unlock()
	st := ConsumerStatus{
		Consumer: s.cfg.Consumer, Stage: s.cfg.Stage, Group: s.cfg.Group, State: state, Since: since,
		Host: s.host, PID: os.Getpid(), Held: s.held(),
		Visibility: s.cfg.Visibility.String(), HandlerTimeout: s.cfg.HandlerTimeout.String(),
		Concurrency: s.cfg.Concurrency, BatchSize: s.cfg.BatchSize, Settings: s.cfg.Status,
		UpdatedAt: now, ExpiresAt: now.Add(3 * s.cfg.StatusInterval),
	}
	if outages := s.deps.Outages(); len(outages) > 0 && state == StateRunning {
		st.State, st.Outages = StatePaused, outages
		reasons := make([]string, len(outages))
		for i, o := range outages {
			reasons[i] = o.String()
			if o.Since.After(st.Since) {
				st.Since = o.Since
			}
		}
		st.Reason = strings.Join(reasons, "; ")
	}
	return st
}

// exec publishes the record; an error is left for the next turn (the
// record expires by itself if the consumer is gone).
func (s *status) exec(ctx context.Context) {
	now := time.Now()
	rec := s.record(now)
	if rec.State == StatePaused {
		s.paused.Set(1)
	} else {
		s.paused.Set(0)
	}
	raw, _ := json.Marshal(rec)
	pipe := s.rdb.Pipeline()
	pipe.HSet(ctx, s.key, s.cfg.Consumer, raw)
	pipe.PExpire(ctx, s.key, 3*s.cfg.StatusInterval)
	_, _ = pipe.Exec(ctx)
}

// start publishes at once, then every interval.
func (s *status) start(wg *sync.WaitGroup) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	s.exec(ctx)
	cancel()
	s.loop.start(wg)
}

// remove deletes the record (at shutdown).
func (s *status) remove() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = s.rdb.HDel(ctx, s.key, s.cfg.Consumer).Err()
}

// Consumers lists the live status records of stage's consumers, by name;
// stale ones are removed.
func (a *Admin) Consumers(ctx context.Context, stage string) ([]ConsumerStatus, error) {
	key := a.statusKey(stage)
	all, err := a.RDB.HGetAll(ctx, key).Result()
	if err != nil {
		return nil, fmt.Errorf("read status of %s: %w", stage, err)
	}
	now := time.Now()
	var out []ConsumerStatus
	var stale []string
	for name, raw := range all {
		var st ConsumerStatus
		if json.Unmarshal([]byte(raw), &st) != nil || now.After(st.ExpiresAt) {
			stale = append(stale, name)
			continue
		}
		out = append(out, st)
	}
	if len(stale) > 0 {
		_ = a.RDB.HDel(ctx, key, stale...).Err()
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Consumer < out[j].Consumer })
	return out, nil
}
