// Package config reads NewsCrawl's settings: environment variables first,
// then command-line flags of the same meaning, which override them. Only
// cmd/ packages use it. docs/CONFIG.md lists every variable.
package config

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/newscrawl/newscrawl/internal/pipeline"
	"github.com/newscrawl/newscrawl/pkg/streamkit"
)

// Defaults shared by every binary.
const (
	DefaultRedisURL     = "redis://127.0.0.1:6379/0"
	DefaultDatabaseURL  = "postgres://postgres@127.0.0.1:5432/newscrawl?sslmode=disable"
	DefaultStreamPrefix = "nc"
)

// A Set binds settings to a flag set, each defaulting to its environment
// variable (or a built-in default), so flags override the environment.
type Set struct {
	fs     *flag.FlagSet
	errs   []error
	checks []func() error // run after parsing, on the final values
}

// NewSet wraps fs.
func NewSet(fs *flag.FlagSet) *Set { return &Set{fs: fs} }

// FlagSet returns the wrapped flag set.
func (s *Set) FlagSet() *flag.FlagSet { return s.fs }

func env(name, def string) string {
	if v, ok := os.LookupEnv(name); ok {
		return v
	}
	return def
}

func flagName(envName string) string {
	return strings.ReplaceAll(strings.ToLower(envName), "_", "-")
}

// String binds env var name (flag --lower-case-name) with default def.
func (s *Set) String(name, def, usage string) *string {
	return s.fs.String(flagName(name), env(name, def), usage+" ($"+name+")")
}

// URL binds a URL setting whose password never shows in -h output.
func (s *Set) URL(name, def, usage string) *string {
	v := &redacted{val: env(name, def)}
	s.fs.Var(v, flagName(name), usage+" ($"+name+")")
	return &v.val
}

// Secret binds a setting (an API key) whose value never shows in -h output.
func (s *Set) Secret(name, usage string) *string {
	v := &redacted{val: env(name, ""), hide: true}
	s.fs.Var(v, flagName(name), usage+" ($"+name+")")
	return &v.val
}

// redacted is a flag value printed without its secret part.
type redacted struct {
	val  string
	hide bool
}

func (r *redacted) Set(v string) error { r.val = v; return nil }

func (r *redacted) String() string {
	if r == nil || r.val == "" {
		return ""
	}
	if r.hide {
		return "(set)"
	}
	if u, err := url.Parse(r.val); err == nil {
		return u.Redacted()
	}
	return "(set)"
}

// Int binds an integer setting.
func (s *Set) Int(name string, def int, usage string) *int {
	v := def
	if raw, ok := os.LookupEnv(name); ok && raw != "" {
		n, err := strconv.Atoi(raw)
		if err != nil {
			s.errs = append(s.errs, fmt.Errorf("%s=%q: not an integer", name, raw))
		} else {
			v = n
		}
	}
	return s.fs.Int(flagName(name), v, usage+" ($"+name+")")
}

// Int64 binds a 64-bit integer setting.
func (s *Set) Int64(name string, def int64, usage string) *int64 {
	v := def
	if raw, ok := os.LookupEnv(name); ok && raw != "" {
		n, err := strconv.ParseInt(raw, 10, 64)
		if err != nil {
			s.errs = append(s.errs, fmt.Errorf("%s=%q: not an integer", name, raw))
		} else {
			v = n
		}
	}
	return s.fs.Int64(flagName(name), v, usage+" ($"+name+")")
}

// Float binds a decimal setting.
func (s *Set) Float(name string, def float64, usage string) *float64 {
	v := def
	if raw, ok := os.LookupEnv(name); ok && raw != "" {
		f, err := strconv.ParseFloat(raw, 64)
		if err != nil {
			s.errs = append(s.errs, fmt.Errorf("%s=%q: not a number", name, raw))
		} else {
			v = f
		}
	}
	return s.fs.Float64(flagName(name), v, usage+" ($"+name+")")
}

// Duration binds a Go duration setting ("60s", "1m30s").
func (s *Set) Duration(name string, def time.Duration, usage string) *time.Duration {
	v := def
	if raw, ok := os.LookupEnv(name); ok && raw != "" {
		d, err := time.ParseDuration(raw)
		if err != nil {
			s.errs = append(s.errs, fmt.Errorf("%s=%q: not a duration (e.g. 30s, 2m): %v", name, raw, err))
		} else {
			v = d
		}
	}
	return s.fs.Duration(flagName(name), v, usage+" ($"+name+")")
}

// Bool binds a boolean setting; "1", "true", "yes" and "on" are true.
func (s *Set) Bool(name string, def bool, usage string) *bool {
	v := def
	if raw, ok := os.LookupEnv(name); ok && raw != "" {
		switch strings.ToLower(raw) {
		case "1", "true", "yes", "on":
			v = true
		case "0", "false", "no", "off":
			v = false
		default:
			s.errs = append(s.errs, fmt.Errorf("%s=%q: not a boolean", name, raw))
		}
	}
	return s.fs.Bool(flagName(name), v, usage+" ($"+name+")")
}

// Parse parses args and reports the first bad environment value or flag
// as one line that names it and points to -h, instead of the flag
// package's whole usage. -h and --help print the flags and return
// flag.ErrHelp (the binaries exit 0 on it).
func (s *Set) Parse(args []string) error {
	if len(s.errs) > 0 {
		return s.errs[0]
	}
	out := s.fs.Output()
	s.fs.SetOutput(io.Discard)
	err := s.fs.Parse(args)
	s.fs.SetOutput(out)
	switch {
	case errors.Is(err, flag.ErrHelp):
		if s.fs.Usage != nil {
			s.fs.Usage()
		} else {
			fmt.Fprintf(out, "usage of %s:\n", s.fs.Name())
			s.fs.PrintDefaults()
		}
		return err
	case err != nil:
		return fmt.Errorf("%w (see %s -h)", err, s.fs.Name())
	}
	for _, check := range s.checks {
		if err := check(); err != nil {
			return fmt.Errorf("%w (see %s -h)", err, s.fs.Name())
		}
	}
	return nil
}

// IntRange binds an integer setting that must lie in [lo, hi]; Parse says
// so otherwise.
func (s *Set) IntRange(name string, def, lo, hi int, usage string) *int {
	v := s.Int(name, def, fmt.Sprintf("%s, %d to %d", usage, lo, hi))
	s.checks = append(s.checks, func() error {
		if *v < lo || *v > hi {
			return fmt.Errorf("%s=%d: must be %d to %d", name, *v, lo, hi)
		}
		return nil
	})
	return v
}

// CPUProfile is CPU_PROFILE: a file to write a whole run's CPU profile to
// ("" for none). Read before flags are parsed, so it has no flag.
func CPUProfile() string { return os.Getenv("CPU_PROFILE") }

// Common holds the settings every binary shares.
type Common struct {
	RedisURL     *string
	RedisCluster *bool
	DatabaseURL  *string
	StreamPrefix *string
	MetricsAddr  *string
	LogLevel     *string
	partitions   map[string]*int // by stage
}

// Partitions are the stages' partition counts (<STAGE>_PARTITIONS), which
// every producer and consumer of a stage must agree on.
func (c Common) Partitions() streamkit.Partitions {
	p := streamkit.Partitions{}
	for stage, n := range c.partitions {
		p[stage] = *n
	}
	return p
}

// BindCommon binds REDIS_URL, REDIS_CLUSTER, DATABASE_URL, STREAM_PREFIX,
// METRICS_ADDR, LOG_LEVEL and each stage's <STAGE>_PARTITIONS;
// metricsDefault is the binary's own listener address, and "" leaves
// METRICS_ADDR out (newsctl's commands serve no metrics).
func BindCommon(s *Set, metricsDefault string) Common {
	c := Common{
		RedisURL:     s.URL("REDIS_URL", DefaultRedisURL, "Redis URL (redis:// or rediss://, user:password@, /db); with REDIS_CLUSTER a seed list: redis://host:port?addr=host:port&addr=host:port"),
		RedisCluster: s.Bool("REDIS_CLUSTER", false, "REDIS_URL names a Redis Cluster (go-redis' cluster URL form)"),
		DatabaseURL:  s.URL("DATABASE_URL", DefaultDatabaseURL, "PostgreSQL URL"),
		StreamPrefix: s.String("STREAM_PREFIX", DefaultStreamPrefix, "prefix of every Redis key"),
		LogLevel:     s.String("LOG_LEVEL", "info", "debug, info, warn or error"),
		partitions:   map[string]*int{},
	}
	for _, st := range pipeline.Stages() {
		name := strings.ToUpper(st.Stage) + "_PARTITIONS"
		c.partitions[st.Stage] = s.IntRange(name, 1, 1, streamkit.MaxPartitions,
			"partition streams of the "+st.Stage+" stage; every binary must be given the same (docs/SCALING.md)")
	}
	if metricsDefault != "" {
		c.MetricsAddr = s.String("METRICS_ADDR", metricsDefault, "listen address for /metrics, /livez and /healthz; 0 or empty disables")
	}
	return c
}

// Stage holds the streamkit settings of one stage, named <STAGE>_….
type Stage struct {
	Concurrency   *int
	Visibility    *time.Duration
	MaxAttempts   *int
	MaxRunaways   *int
	MaxDeliveries *int64
	BatchSize     *int
	HighWater     *int64
	GracePeriod   *time.Duration
	Consumer      *string
	// HandlerTimeout is the handler's working time (0: 5 × Visibility).
	HandlerTimeout  *time.Duration
	JanitorInterval *time.Duration
	Retain          *int64
}

// BindStage binds <PREFIX>_CONCURRENCY, _VISIBILITY, _HANDLER_TIMEOUT,
// _MAX_ATTEMPTS, _MAX_RUNAWAYS, _MAX_DELIVERIES, _BATCH_SIZE, _HIGH_WATER, _GRACE,
// _CONSUMER, _JANITOR_INTERVAL and _RETAIN.
func BindStage(s *Set, prefix string, concurrency int, visibility time.Duration) Stage {
	return Stage{
		Concurrency:   s.Int(prefix+"_CONCURRENCY", concurrency, "handlers running at once"),
		Visibility:    s.Duration(prefix+"_VISIBILITY", visibility, "idle time before another worker may reclaim an entry"),
		MaxAttempts:   s.Int(prefix+"_MAX_ATTEMPTS", streamkit.DefaultMaxAttempts, "failed attempts before the dead-letter stream"),
		MaxRunaways:   s.Int(prefix+"_MAX_RUNAWAYS", streamkit.DefaultMaxRunaways, "tries in a row stopped by a wall-clock guard (the handler timeout, a page guard) before the dead-letter stream as runaway; such tries spend no attempt"),
		MaxDeliveries: s.Int64(prefix+"_MAX_DELIVERIES", streamkit.DefaultMaxDeliveries, "deliveries before a crashing entry is dead-lettered as poison"),
		BatchSize:     s.Int(prefix+"_BATCH_SIZE", streamkit.DefaultBatchSize, "entries per read and per ledger transaction"),
		HighWater:     s.Int64(prefix+"_HIGH_WATER", streamkit.DefaultHighWater, "pause while the next stage has more than this waiting"),
		GracePeriod:   s.Duration(prefix+"_GRACE", streamkit.DefaultGracePeriod, "shutdown grace for in-flight work"),
		Consumer:      s.String(prefix+"_CONSUMER", "", "consumer name (default host-pid-random); set a stable one to resume own pending after restart"),
		HandlerTimeout: s.Duration(prefix+"_HANDLER_TIMEOUT", 0,
			"a handler's working time before it is cancelled and tried again later as a runaway (no attempt spent; time in rate-limit waits excluded); 0 = 5 × the visibility"),
		JanitorInterval: s.Duration(prefix+"_JANITOR_INTERVAL", streamkit.DefaultJanitorInterval, "how often finished entries are trimmed from the stream; negative disables"),
		Retain:          s.Int64(prefix+"_RETAIN", streamkit.DefaultRetainLen, "finished entries kept in the stream for inspection (0: none)"),
	}
}

// OpenAI holds the settings of an OpenAI-compatible server, shared by the
// extractor, the embedder and search.
type OpenAI struct {
	BaseURL *string
	APIKey  *string
}

// BindOpenAI binds OPENAI_BASE_URL (unset: the stage's model-free default)
// and OPENAI_API_KEY (never printed).
func BindOpenAI(s *Set) OpenAI {
	return OpenAI{
		BaseURL: s.String("OPENAI_BASE_URL", "", "OpenAI-compatible API base URL, e.g. http://127.0.0.1:11434/v1; unset = no model server"),
		APIKey:  s.Secret("OPENAI_API_KEY", "API key, optional for local servers"),
	}
}
