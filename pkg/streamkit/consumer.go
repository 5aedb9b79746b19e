package streamkit

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"
)

// Defaults for Config fields left zero.
const (
	DefaultVisibility      = 30 * time.Second
	DefaultMaxDeliveries   = 5
	DefaultMaxAttempts     = 5
	DefaultMaxDeferrals    = 100
	DefaultMaxRunaways     = 3
	DefaultConcurrency     = 8
	DefaultBatchSize       = 50 // the binaries ran (and chaos measured) 50 before it was the library's too
	DefaultBlock           = 2 * time.Second
	DefaultGracePeriod     = 30 * time.Second
	DefaultRetryBase       = 5 * time.Second
	DefaultRetryMax        = 15 * time.Minute
	DefaultPromoteInterval = time.Second
	DefaultJanitorInterval = 30 * time.Second
	DefaultRetainLen       = 1000
	DefaultDeadConsumer    = time.Hour
	DefaultHighWater       = 10000
	DefaultCommitters      = 4 // concurrent ledger transactions: overlaps their WAL flushes
	DefaultCommitLinger    = 2 * time.Millisecond
	DefaultStatusInterval  = 5 * time.Second
	bookkeepingTimeout     = 10 * time.Second
	// conflictRetries bounds the immediate reruns of work that hit a
	// serialization failure or deadlock before it counts as a failure.
	conflictRetries = 10
)

// Config describes one stage's consumer. Zero fields take the defaults above.
type Config struct {
	Prefix   string // key prefix (STREAM_PREFIX)
	Stage    string // names the stream, retry set and DLQ: <prefix>:{<stage>}:…
	Group    string // consumer group; default Stage
	Consumer string // consumer name; default host-pid-random, unique per process

	Visibility     time.Duration // idle time after which another consumer may reclaim an entry
	HandlerTimeout time.Duration // handler's working time (Wait excluded); default 5×Visibility
	MaxDeliveries  int64         // deliveries after which a reclaimed entry is poison
	MaxAttempts    int           // failed attempts before the dead-letter stream
	MaxDeferrals   int           // RetryAfter deferrals before one counts as a failed attempt
	MaxRunaways    int           // tries in a row stopped by a wall-clock guard (Runaway, HandlerTimeout) before the DLQ
	Concurrency    int           // handlers running at once
	BatchSize      int           // entries per read and per ledger transaction
	Committers     int           // ledger transactions in flight at once
	CommitLinger   time.Duration // how long a commit waits to fill its batch
	Block          time.Duration // XREADGROUP BLOCK
	GracePeriod    time.Duration // how long shutdown waits for in-flight handlers
	RetryBase      time.Duration // first retry delay; doubles per attempt
	RetryMax       time.Duration // retry delay ceiling
	Version        string        // appended to idempotency keys (model/prompt version)
	Key            KeyFunc       // default: stage:doc_id:content_hash[:version]

	Downstream string // stage whose stream is watched for backpressure ("" = none)
	HighWater  int64  // pause reading while Downstream's lag+pending is above this

	// Partitions are the partition counts of this stage and of the stages it
	// emits to; the consumer reads every partition of its stage, and emits
	// each message to the partition of its doc_id. Nil: one stream each.
	Partitions Partitions

	PromoteInterval time.Duration // retry promoter period
	JanitorInterval time.Duration // trimming period; negative disables the janitor
	RetainLen       int64         // finished entries kept in the stream for inspection
	DeadConsumer    time.Duration // idle time after which a consumer with nothing pending is removed

	StatusInterval time.Duration     // how often the consumer's status record is refreshed
	Status         map[string]string // settings shown in the status record beside streamkit's own

	// Dependencies are the process's breakers; nil: the consumer makes its
	// own for Redis and PostgreSQL. A stage adds its own to it (a model
	// server) and returns Unavailable(name, err) to pause on it.
	Dependencies *Dependencies

	// ErrorTypes are the stage's own error types (beside streamkit's): their
	// failure and dead-letter counters exist at zero from the start.
	ErrorTypes []string

	Logger  *slog.Logger
	Metrics *Metrics
}

func (c *Config) setDefaults() error {
	if c.Stage == "" {
		return errors.New("streamkit: Config.Stage is required")
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	if c.Group == "" {
		c.Group = c.Stage
	}
	if c.Consumer == "" {
		c.Consumer = consumerName()
	}
	def(&c.Visibility, DefaultVisibility)
	def(&c.HandlerTimeout, 5*c.Visibility)
	def(&c.Block, DefaultBlock)
	def(&c.GracePeriod, DefaultGracePeriod)
	def(&c.RetryBase, DefaultRetryBase)
	def(&c.CommitLinger, DefaultCommitLinger)
	def(&c.RetryMax, DefaultRetryMax)
	def(&c.PromoteInterval, DefaultPromoteInterval)
	def(&c.StatusInterval, DefaultStatusInterval)
	if c.JanitorInterval == 0 {
		c.JanitorInterval = DefaultJanitorInterval
	}
	def(&c.DeadConsumer, DefaultDeadConsumer)
	if c.MaxDeliveries <= 0 {
		c.MaxDeliveries = DefaultMaxDeliveries
	}
	if c.MaxAttempts <= 0 {
		c.MaxAttempts = DefaultMaxAttempts
	}
	if c.MaxDeferrals <= 0 {
		c.MaxDeferrals = DefaultMaxDeferrals
	}
	if c.MaxRunaways <= 0 {
		c.MaxRunaways = DefaultMaxRunaways
	}
	if c.Concurrency <= 0 {
		c.Concurrency = DefaultConcurrency
	}
	if c.BatchSize <= 0 {
		c.BatchSize = DefaultBatchSize
	}
	if c.Committers <= 0 {
		c.Committers = DefaultCommitters
	}
	if c.HighWater <= 0 {
		c.HighWater = DefaultHighWater
	}
	if c.RetainLen < 0 {
		c.RetainLen = 0
	} else if c.RetainLen == 0 {
		c.RetainLen = DefaultRetainLen
	}
	if c.Key == nil {
		c.Key = defaultKey
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	c.Logger = slog.New(clipHandler{c.Logger.Handler()})
	if c.Metrics == nil {
		c.Metrics = NewMetrics("", nil)
	}
	return nil
}

// consumerName returns host-pid-random, unique per process.
func consumerName() string {
	host, _ := os.Hostname()
	var b [3]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("%s-%d-%s", host, os.Getpid(), hex.EncodeToString(b[:]))
}

// A Consumer runs one stage: it reads its stream with its group, runs the
// handler, commits, emits downstream and acks, with the background loops
// (reclaimer, lease keeper, retry promoter, janitor, status) that make it safe.
type Consumer struct {
	cfg     Config
	rdb     redis.UniversalClient
	parts   []*partition // one per stream of the stage, in partition order
	ledger  *ledgerStore
	handler Handler
	log     logger
	metrics *stageMetrics
	deps    *Dependencies
	ownDeps bool // deps were made here and are closed by Run
	status  *status
	// hard is cancelled when shutdown's grace runs out; bookkeeping that
	// waits for a dependency gives up then.
	hard context.Context

	inflight *inflight         // one slot per held entry, over all partitions
	work     chan *Message     // entries waiting for a handler
	commits  chan *ledgerEntry // finished entries waiting for the ledger
	// abandoned is closed when shutdown gives up on handlers that ignore
	// cancellation: the gatherer stops, and a late result is dropped (its
	// entry stays pending for another consumer) instead of being sent on.
	abandoned chan struct{}
	// gate bounds reading by the next stage's room; nil without one.
	gate *gate
}

func (c *Consumer) newPartition(k Keys) *partition {
	return &partition{
		ops: &ops{rdb: c.rdb, keys: k, prefix: c.cfg.Prefix, partitions: c.cfg.Partitions,
			group: c.cfg.Group, consumer: c.cfg.Consumer, block: c.cfg.Block},
		leases: newLeaseTable(),
	}
}

// A partition is one stream of the stage as this consumer holds it: the
// Redis operations on its keys and the leases of the entries read from it.
// Entry ids are unique within a stream only, so each partition keeps its own.
type partition struct {
	ops    *ops
	leases *leaseTable
	former bool // a stream of a former partition count, read until it drains
}

// NewConsumer builds a consumer; it does not touch Redis until Run.
func NewConsumer(rdb redis.UniversalClient, pool *pgxpool.Pool, cfg Config, h Handler) (*Consumer, error) {
	if err := cfg.setDefaults(); err != nil {
		return nil, err
	}
	// Enough slots for every committer to hold a batch while the reader
	// fetches the next one and the handlers stay busy.
	capacity := cfg.Concurrency + (cfg.Committers+1)*cfg.BatchSize
	log := cfg.Logger.With("stage", cfg.Stage, "consumer", cfg.Consumer)
	deps, own := cfg.Dependencies, false
	if deps == nil {
		deps, own = StandardDependencies(rdb, pool, log), true
	}
	c := &Consumer{
		cfg:       cfg,
		rdb:       rdb,
		ledger:    newLedger(pool),
		handler:   h,
		log:       logger{Logger: log, deps: deps},
		metrics:   cfg.Metrics.forStage(cfg.Stage, cfg.Visibility, cfg.ErrorTypes...),
		deps:      deps,
		ownDeps:   own,
		inflight:  newInflight(capacity),
		work:      make(chan *Message, capacity),
		commits:   make(chan *ledgerEntry, capacity),
		abandoned: make(chan struct{}),
		hard:      context.Background(),
	}
	for _, k := range cfg.Partitions.Keys(cfg.Prefix, cfg.Stage) {
		c.parts = append(c.parts, c.newPartition(k))
	}
	c.status = newStatus(rdb, KeysFor(cfg.Prefix, cfg.Stage), &c.cfg, deps, c.held, c.metrics.paused)
	if cfg.Downstream != "" {
		admin := &Admin{RDB: rdb, Prefix: cfg.Prefix, Partitions: cfg.Partitions}
		c.gate = &gate{highWater: cfg.HighWater, held: c.inflight.held, log: c.log, deps: deps,
			pressure: func(ctx context.Context) (int64, error) { return admin.Pressure(ctx, cfg.Downstream) }}
	}
	return c, nil
}

// EnsureGroup creates every partition's stream and group if missing (from
// the stream's first entry, so entries published before the group existed
// are read).
func (c *Consumer) EnsureGroup(ctx context.Context) error {
	for _, p := range c.parts {
		if err := EnsureGroup(ctx, c.rdb, p.ops.keys.Stream(), c.cfg.Group); err != nil {
			return err
		}
	}
	return nil
}

// readerOf builds the reader of partition p, with its reclaimer. A reader
// holds the slots of a read while it blocks on an empty stream, so with
// many partitions each reads at most its share of the slots, leaving some
// for the others and for the reclaimers.
func (c *Consumer) readerOf(p *partition) *reader {
	log := c.log.partition(p.ops.keys, len(c.parts))
	dispatch := func(ctx context.Context, msgs []redis.XMessage, deliveries map[string]int64) {
		c.dispatch(ctx, p, msgs, deliveries)
	}
	batch := min(c.cfg.BatchSize, max(1, c.inflight.capacity()/(len(c.parts)+1)))
	return newReader(readerParams{
		ops: p.ops, inflight: c.inflight, deps: c.deps, log: log, batch: batch, gate: c.gate,
		former: p.former, dispatch: dispatch,
		reclaimer: newReclaimer(reclaimerParams{
			stage: c.cfg.Stage, part: p, inflight: c.inflight, deps: c.deps, log: log,
			visibility: c.cfg.Visibility, batch: batch, maxDeliveries: c.cfg.MaxDeliveries, lost: c.metrics.lost,
			dispatch: dispatch, deadLetter: c.deadLetter, bookkeep: c.bookkeep,
		}),
	})
}

// findFormerPartitions adds the streams a former partition count of the
// stage left behind (see Partitions.Layout): they are read, reclaimed,
// promoted and leased like the others, so what was written there before a
// change of the count is processed, not stranded.
func (c *Consumer) findFormerPartitions(ctx context.Context) error {
	keys, err := c.cfg.Partitions.Layout(ctx, c.rdb, c.cfg.Prefix, c.cfg.Stage)
	if err != nil {
		return err
	}
	have := map[int]bool{}
	for _, p := range c.parts {
		have[p.ops.keys.Partition] = true
	}
	for _, k := range keys {
		if have[k.Partition] { // ours, or found by an earlier try of the start-up
			continue
		}
		c.log.Warn("reading a partition stream of a former partition count until it drains",
			"stream", k.Stream(), "partitions", c.cfg.Partitions.Of(c.cfg.Stage))
		p := c.newPartition(k)
		p.former = true
		c.parts = append(c.parts, p)
	}
	return nil
}

// held is how many entries this consumer holds, over all partitions.
func (c *Consumer) held() int {
	n := 0
	for _, p := range c.parts {
		n += p.leases.len()
	}
	return n
}

// EnsureGroup creates stream and group if missing; an existing group is fine.
func EnsureGroup(ctx context.Context, rdb redis.UniversalClient, stream, group string) error {
	err := rdb.XGroupCreateMkStream(ctx, stream, group, "0").Err()
	if err != nil && !isBusyGroup(err) {
		return fmt.Errorf("create group %s on %s: %w", group, stream, err)
	}
	return nil
}

// Run consumes until ctx is cancelled, then stops reading, gives in-flight
// handlers the grace period to finish, commits and acks what finished, and
// returns nil. Entries still unfinished stay pending for a later reclaim.
// While Redis or PostgreSQL (or a dependency the stage added) is away it
// pauses and waits, and it waits the same way for Redis at start; it returns
// an error only when the group cannot be created for another reason.
func (c *Consumer) Run(ctx context.Context) error {
	if c.ownDeps {
		defer c.deps.Close()
	}
	c.status.set(StateStarting)
	for {
		err := c.findFormerPartitions(ctx)
		if err == nil {
			err = c.EnsureGroup(ctx)
		}
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			return nil
		}
		if !c.deps.Down(err) {
			return err
		}
		_ = c.deps.Wait(ctx)
	}
	c.log.Info("consumer started", "stream", c.parts[0].ops.keys.Stream(), "partitions", len(c.parts), "group", c.cfg.Group,
		"visibility", c.cfg.Visibility.String(), "handler_timeout", c.cfg.HandlerTimeout.String(), "concurrency", c.cfg.Concurrency)

	// hardCtx outlives ctx by the grace period: handlers and bookkeeping use it.
	hardCtx, hardCancel := context.WithCancel(context.WithoutCancel(ctx))
	defer hardCancel()
	c.hard = hardCtx

	var loops, workers, committing sync.WaitGroup
	// Every partition has its own lease keeper, promoter and janitor. The
	// lease keepers start first and stop last: every entry held is renewed
	// until the very end.
	var leases, promoters, janitors []*loop
	for _, p := range c.parts {
		log := c.log.partition(p.ops.keys, len(c.parts))
		leases = append(leases, newLeaseKeeper(leaseParams{ops: p.ops, leases: p.leases, deps: c.deps, log: log, period: c.cfg.Visibility / 3}).loop)
		promoters = append(promoters, newPromoter(promoterParams{ops: p.ops, deps: c.deps, log: log, interval: c.cfg.PromoteInterval, limit: c.cfg.BatchSize}).loop)
		janitors = append(janitors, newJanitor(janitorParams{ops: p.ops, deps: c.deps, log: log, interval: c.cfg.JanitorInterval,
			retain: c.cfg.RetainLen, deadConsumer: c.cfg.DeadConsumer}).loop)
	}
	c.status.set(StateRunning)
	for _, l := range slices.Concat(leases, promoters, janitors) {
		l.start(&loops)
	}
	c.status.start(&loops)

	for range c.cfg.Concurrency {
		workers.Go(func() { c.workLoop(hardCtx) })
	}
	commit := newCommitter(committerParams{
		ledger: c.ledger, deps: c.deps, log: c.log, in: c.commits, abandoned: c.abandoned, hard: hardCtx,
		committers: c.cfg.Committers, batch: c.cfg.BatchSize, linger: c.cfg.CommitLinger, processed: c.metrics.processed,
		emit:     c.parts[0].ops.emit,
		ack:      func(ctx context.Context, p *partition, ids []string) error { return p.ops.ack(ctx, ids...) },
		bookkeep: c.bookkeep, fail: c.fail, finish: c.finish,
	})
	committing.Go(commit.run)

	// One reader per partition, all drawing on the same slots, each taking
	// at most its share (readerOf), and on the same downstream room.
	var readers sync.WaitGroup
	for _, p := range c.parts {
		readers.Go(func() { c.readerOf(p).run(ctx) }) // returns when ctx is cancelled
	}
	readers.Wait()

	// Shutdown order: reader stopped; workers drain within the grace period;
	// the committers flush; then the background loops stop.
	// Nothing is held past the grace period: not a handler, not a commit
	// waiting for a dependency.
	c.status.set(StateDraining)
	close(c.work)
	grace := time.AfterFunc(c.cfg.GracePeriod, func() {
		c.log.Warn("grace period over; cancelling handlers and bookkeeping", "grace", c.cfg.GracePeriod.String())
		hardCancel()
	})
	defer grace.Stop()
	drained := make(chan struct{})
	go func() { workers.Wait(); close(drained) }()
	select {
	case <-drained:
	case <-hardCtx.Done():
		select {
		case <-drained:
		case <-time.After(5 * time.Second):
			c.log.Error("handlers ignore cancellation; leaving their entries pending")
			close(c.abandoned) // those handlers may still return: commits stays open
		}
	}
	select {
	case <-c.abandoned:
	default:
		close(c.commits) // every handler is back: nothing sends any more
	}
	committing.Wait()
	for _, l := range slices.Concat(promoters, janitors, leases) {
		l.shutdown()
	}
	c.status.shutdown()
	loops.Wait()
	c.status.remove()
	c.log.Info("consumer stopped")
	return nil
}

// finish ends an entry's life in this consumer: its lease and its slot.
func (c *Consumer) finish(m *Message) {
	m.part.leases.remove(m.ID)
	c.inflight.release(1)
}

// bookkeeping is the context for acks and ledger writes: short, and
// independent of the handler's (possibly cancelled) context.
func bookkeeping() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), bookkeepingTimeout)
}

// A logger is the consumer's slog logger; failed logs a failed operation
// as an error, or at debug level while a dependency is known to be away
// (the outage itself is logged once by its breaker).
type logger struct {
	*slog.Logger
	deps *Dependencies
}

func (l logger) failed(what string, err error, args ...any) {
	level := slog.LevelError
	if l.deps.Err() != nil {
		level = slog.LevelDebug
	}
	l.Log(context.Background(), level, what, append(args, "err", err)...)
}

// partition is the logger of one partition's loops: with its index when
// the stage has more than one.
func (l logger) partition(k Keys, n int) logger {
	if n <= 1 {
		return l
	}
	return logger{Logger: l.With("partition", k.Partition), deps: l.deps}
}
