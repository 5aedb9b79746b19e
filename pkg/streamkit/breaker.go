package streamkit

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"
)

// Names of the dependencies every consumer has.
const (
	DependencyRedis    = "redis"
	DependencyPostgres = "postgres"
)

// Probe timing: the first probe comes soon after a trip, later ones back
// off to probeMax (±20% jitter); a probe gets probeTimeout.
const (
	probeFirst     = 250 * time.Millisecond
	probeMax       = 10 * time.Second
	probeTimeout   = 3 * time.Second
	outageSummary  = time.Minute            // how often an ongoing outage is logged
	checkCacheTime = 250 * time.Millisecond // a failed Check reused for suspicions close together
)

// A Breaker is open while its dependency is away. Tripping it starts a
// prober that closes it again once the dependency answers; while it is
// open, consumers stop reading and hold their work (DESIGN rule 12).
type Breaker struct {
	name   string
	probe  func(context.Context) error
	onDown func() // called once per outage (e.g. drop a pool's dead connections)
	deps   *Dependencies

	mu      sync.Mutex
	open    bool
	since   time.Time
	reason  string
	closed  chan struct{} // closed while the breaker is closed
	probes  int
	lastLog time.Time
}

// An Outage is an open breaker: what is away, since when, and why.
type Outage struct {
	Dependency string    `json:"dependency"`
	Since      time.Time `json:"since"`
	Reason     string    `json:"reason"`
}

func (o Outage) String() string {
	return fmt.Sprintf("%s unavailable for %s: %s", o.Dependency, time.Since(o.Since).Round(time.Second), o.Reason)
}

// Name is the dependency's name.
func (b *Breaker) Name() string { return b.name }

// Trip opens the breaker because of err (no-op while already open) and
// starts probing. It logs one line when the dependency goes away.
func (b *Breaker) Trip(err error) {
	b.mu.Lock()
	if b.open || b.deps.ctx.Err() != nil {
		b.mu.Unlock()
		return
	}
	b.open, b.since, b.reason, b.probes = true, time.Now(), clip(err.Error(), maxLogValue), 0
	b.closed = make(chan struct{})
	b.lastLog = b.since
	b.mu.Unlock()
	b.deps.log.Warn("dependency unavailable; pausing work until it answers", "dependency", b.name, "err", clip(err.Error(), maxLogValue))
	if b.onDown != nil {
		b.onDown()
	}
	b.deps.wg.Go(b.probeUntilBack)
}

// probeUntilBack probes with backoff until the dependency answers or the
// dependencies are closed; it logs a summary a minute and one line at the end.
func (b *Breaker) probeUntilBack() {
	ctx := b.deps.ctx
	d := probeFirst
	for {
		jitter := time.Duration(float64(d) * 0.2 * (2*rand.Float64() - 1))
		sleep(ctx, d+jitter)
		if ctx.Err() != nil {
			return
		}
		pctx, cancel := context.WithTimeout(ctx, probeTimeout)
		err := b.probe(pctx)
		cancel()
		if err == nil {
			b.close()
			return
		}
		if ctx.Err() != nil {
			return
		}
		b.mu.Lock()
		b.probes++
		b.reason = clip(err.Error(), maxLogValue)
		summary := time.Since(b.lastLog) >= outageSummary
		if summary {
			b.lastLog = time.Now()
		}
		down, probes := time.Since(b.since), b.probes
		b.mu.Unlock()
		if summary {
			b.deps.log.Warn("dependency still unavailable", "dependency", b.name, "down_for", down.Round(time.Second).String(),
				"probes", probes, "err", clip(err.Error(), maxLogValue))
		}
		d = min(2*d, probeMax)
	}
}

func (b *Breaker) close() {
	b.mu.Lock()
	if !b.open {
		b.mu.Unlock()
		return
	}
	b.open = false
	close(b.closed)
	down := time.Since(b.since)
	b.mu.Unlock()
	b.deps.log.Info("dependency back; resuming", "dependency", b.name, "down_for", down.Round(time.Millisecond).String())
}

// outage returns the breaker's outage while it is open.
func (b *Breaker) outage() (Outage, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return Outage{Dependency: b.name, Since: b.since, Reason: b.reason}, b.open
}

// wait blocks while the breaker is open; it returns ctx's error if ctx ends first.
func (b *Breaker) wait(ctx context.Context) error {
	b.mu.Lock()
	open, closed := b.open, b.closed
	b.mu.Unlock()
	if !open {
		return nil
	}
	select {
	case <-closed:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Dependencies are the breakers of one process, shared by its consumers:
// Redis and PostgreSQL, and any a stage adds for its own (a model server).
// Close stops their probers.
type Dependencies struct {
	log    *slog.Logger
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu       sync.Mutex
	breakers map[string]*Breaker
	checked  time.Time // last Check, reused for a short while
	checkErr error
}

// NewDependencies returns an empty set; log receives the outage lines.
func NewDependencies(log *slog.Logger) *Dependencies {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Dependencies{log: log, ctx: ctx, cancel: cancel, breakers: map[string]*Breaker{}}
}

// StandardDependencies returns a set with Redis and PostgreSQL.
func StandardDependencies(rdb redis.UniversalClient, pool *pgxpool.Pool, log *slog.Logger) *Dependencies {
	d := NewDependencies(log)
	d.Add(DependencyRedis, redisProbe(rdb), nil)
	// Reset drops the pool's connections, all dead after a restart, so the
	// work resumes on fresh ones instead of finding them one failure at a time.
	d.Add(DependencyPostgres, pool.Ping, pool.Reset)
	return d
}

// Add registers a dependency with the probe that tells whether it answers,
// and an optional onDown called when it goes away; it returns its breaker.
// Adding a name twice returns the first breaker.
func (d *Dependencies) Add(name string, probe func(context.Context) error, onDown func()) *Breaker {
	d.mu.Lock()
	defer d.mu.Unlock()
	if b, ok := d.breakers[name]; ok {
		return b
	}
	b := &Breaker{name: name, probe: probe, onDown: onDown, deps: d}
	d.breakers[name] = b
	return b
}

// Breaker returns the named dependency's breaker, or nil.
func (d *Dependencies) Breaker(name string) *Breaker {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.breakers[name]
}

func (d *Dependencies) all() []*Breaker {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make([]*Breaker, 0, len(d.breakers))
	for _, b := range d.breakers {
		out = append(out, b)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// Wait blocks until no breaker is open, or ctx ends (its error).
func (d *Dependencies) Wait(ctx context.Context) error {
	for {
		open := false
		for _, b := range d.all() {
			if _, isOpen := b.outage(); isOpen {
				open = true
				if err := b.wait(ctx); err != nil {
					return err
				}
			}
		}
		if !open {
			return ctx.Err()
		}
	}
}

// Outages lists the open breakers, by name.
func (d *Dependencies) Outages() []Outage {
	var out []Outage
	for _, b := range d.all() {
		if o, open := b.outage(); open {
			out = append(out, o)
		}
	}
	return out
}

// Err describes the open breakers as one error, or returns nil.
func (d *Dependencies) Err() error {
	outages := d.Outages()
	if len(outages) == 0 {
		return nil
	}
	parts := make([]string, len(outages))
	for i, o := range outages {
		parts[i] = o.String()
	}
	return errors.New(strings.Join(parts, "; "))
}

// Check probes every dependency now, trips those that fail, and returns
// their errors joined (nil when all answer). A failure less than a quarter
// second old is reused; an answer is not: a probe that passed just before
// an outage began would vouch for it, and every error in its shadow would
// spend an attempt (seen under load: 88 retries in a PostgreSQL outage).
func (d *Dependencies) Check(ctx context.Context) error {
	d.mu.Lock()
	if d.checkErr != nil && time.Since(d.checked) < checkCacheTime {
		err := d.checkErr
		d.mu.Unlock()
		return err
	}
	d.mu.Unlock()
	var errs []error
	for _, b := range d.all() {
		if _, open := b.outage(); open {
			errs = append(errs, fmt.Errorf("%s: unavailable", b.name))
			continue
		}
		pctx, cancel := context.WithTimeout(ctx, probeTimeout)
		err := b.probe(pctx)
		cancel()
		if err != nil && ctx.Err() == nil {
			b.Trip(err)
			errs = append(errs, fmt.Errorf("%s: %w", b.name, err))
		}
	}
	err := errors.Join(errs...)
	d.mu.Lock()
	d.checked, d.checkErr = time.Now(), err
	d.mu.Unlock()
	return err
}

// Close stops the probers; open breakers stay open.
func (d *Dependencies) Close() {
	d.cancel()
	d.wg.Wait()
}

// Down reports whether err comes from a dependency that is away: the error
// must look like it (suspect) and a probe must fail, which trips that
// dependency's breaker.
func (d *Dependencies) Down(err error) bool {
	if !suspect(err) {
		return false
	}
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	return d.Check(ctx) != nil
}

// redisProbe pings Redis. On a cluster a PING goes to any one node, which
// answers while the master of this stage's slots is dead: there every
// master must answer, so a failover pauses the stage (no attempt spent)
// until a replica has taken over and the client has learnt it.
func redisProbe(rdb redis.UniversalClient) func(context.Context) error {
	cc, ok := rdb.(*redis.ClusterClient)
	if !ok {
		return func(ctx context.Context) error { return rdb.Ping(ctx).Err() }
	}
	return func(ctx context.Context) error {
		err := cc.ForEachMaster(ctx, func(ctx context.Context, node *redis.Client) error {
			return node.Ping(ctx).Err()
		})
		if err != nil {
			cc.ReloadState(ctx) // the next command reads the cluster's slots again
		}
		return err
	}
}
