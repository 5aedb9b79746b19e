package streamkit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// Dead-letter fields added by streamkit next to the original fields.
const (
	DLQFieldStage     = "stage"
	DLQFieldAttempts  = "attempts"
	DLQFieldErrorType = "error_type"
	DLQFieldError     = "error"
	DLQFieldFailedAt  = "failed_at"
	DLQFieldConsumer  = "consumer"
	DLQFieldSourceID  = "source_id"
	DLQFieldOriginal  = "original_fields" // JSON list of the original field names, used by replay
	maxErrorText      = 2000
	collisionPrefix   = "orig:" // an original field named like a DLQ field is stored under this prefix
)

// A StageRef names a stage and the consumer group that reads its stream.
type StageRef struct {
	Stage string
	Group string
}

// StreamStats are the figures of one stream for a group, or their sums
// over a stage's partitions (the oldest pending age and the consumers:
// their maximum).
type StreamStats struct {
	Length            int64   `json:"length"`
	Lag               int64   `json:"lag"`
	Pending           int64   `json:"pending"`
	OldestPendingAgeS float64 `json:"oldest_pending_age_s"`
	DLQ               int64   `json:"dlq"`
	Retry             int64   `json:"retry"`
	Deferred          int64   `json:"deferred"` // stepped aside until later (a host's politeness slot), not failed
	Consumers         int64   `json:"consumers"`
	Read              int64   `json:"read"` // entries the group has read, ever (Redis 7's entries-read)
}

// add counts o into s.
func (s *StreamStats) add(o StreamStats) {
	s.Length += o.Length
	s.Lag += o.Lag
	s.Pending += o.Pending
	s.DLQ += o.DLQ
	s.Retry += o.Retry
	s.Deferred += o.Deferred
	s.Read += o.Read
	s.Consumers = max(s.Consumers, o.Consumers)
	s.OldestPendingAgeS = max(s.OldestPendingAgeS, o.OldestPendingAgeS)
}

// StageStats is a snapshot of one stage's Redis state.
type StageStats struct {
	Stage  string `json:"stage"`
	Stream string `json:"stream"`
	Group  string `json:"group"`
	StreamStats
	// Workers are the live status records of the stage's consumers.
	Workers []ConsumerStatus `json:"workers"`
	// Partitions are the figures of each stream of a partitioned stage
	// (the stage's own are their sums); empty for a stage with one stream.
	Partitions []PartitionStats `json:"partitions,omitempty"`
}

// PartitionStats is a snapshot of one partition of a stage.
type PartitionStats struct {
	Partition int `json:"partition"` // -1: the stream of the stage unpartitioned
	// Former marks a stream of a former partition count, read until it drains.
	Former bool   `json:"former,omitempty"`
	Stream string `json:"stream"`
	StreamStats
}

// State summarises the workers' states: "running", "paused: <why>", a mix
// such as "1 running, 1 paused: <why>", or "-" with no live worker.
func (s StageStats) State() string {
	if len(s.Workers) == 0 {
		return "-"
	}
	counts := map[string]int{}
	var order []string
	reason := ""
	for _, w := range s.Workers {
		if counts[w.State] == 0 {
			order = append(order, w.State)
		}
		counts[w.State]++
		if w.Reason != "" {
			reason = w.Reason
		}
	}
	parts := make([]string, len(order))
	for i, st := range order {
		parts[i] = st
		if len(order) > 1 {
			parts[i] = fmt.Sprintf("%d %s", counts[st], st)
		}
		if st == StatePaused && reason != "" {
			parts[i] += ": " + reason
		}
	}
	return strings.Join(parts, ", ")
}

// Admin offers the operator's view of stages: stats and dead letters, over
// every partition of a partitioned stage.
type Admin struct {
	RDB        redis.UniversalClient
	Prefix     string
	Partitions Partitions // nil: every stage has one stream
	// Windows are the windows of stages whose producers share one (by
	// stage): DLQReplay puts their dead letters back only while there is room.
	Windows map[string]*Window

	mu      sync.Mutex
	layouts map[string]layout // by stage: Layout's answer, reused for layoutTTL
}

type layout struct {
	keys []Keys
	at   time.Time
}

// layoutTTL is how long Admin reuses a stage's layout: the streams of a
// former partition count come and go with a change of the count, which is
// rare, and looking for them costs one EXISTS per possible key.
const layoutTTL = 30 * time.Second

// Layout returns the keys of every stream of stage (Partitions.Layout): its
// partitions, then those a former partition count left behind.
func (a *Admin) Layout(ctx context.Context, stage string) ([]Keys, error) {
	a.mu.Lock()
	l, ok := a.layouts[stage]
	a.mu.Unlock()
	if ok && time.Since(l.at) < layoutTTL {
		return l.keys, nil
	}
	keys, err := a.Partitions.Layout(ctx, a.RDB, a.Prefix, stage)
	if err != nil {
		return nil, err
	}
	a.mu.Lock()
	if a.layouts == nil {
		a.layouts = map[string]layout{}
	}
	a.layouts[stage] = layout{keys: keys, at: time.Now()}
	a.mu.Unlock()
	return keys, nil
}

// Stats reads every stage's streams, group, DLQs and retry sets, summed
// over its partitions. A stage whose stream or group does not exist yet
// reports zeros.
func (a *Admin) Stats(ctx context.Context, stages []StageRef) ([]StageStats, error) {
	out := make([]StageStats, 0, len(stages))
	for _, ref := range stages {
		parts, err := a.Layout(ctx, ref.Stage)
		if err != nil {
			return nil, err
		}
		s := StageStats{Stage: ref.Stage, Stream: parts[0].Stream(), Group: ref.Group}
		for i, k := range parts {
			p, err := a.partitionStats(ctx, k, ref.Group)
			if err != nil {
				return nil, err
			}
			p.Former = i >= a.Partitions.Of(ref.Stage)
			s.add(p.StreamStats)
			if len(parts) > 1 {
				s.Partitions = append(s.Partitions, p)
			}
		}
		if s.Workers, err = a.Consumers(ctx, ref.Stage); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// partitionStats reads one stream's figures for group.
func (a *Admin) partitionStats(ctx context.Context, k Keys, group string) (PartitionStats, error) {
	s := PartitionStats{Partition: k.Partition, Stream: k.Stream()}
	pipe := a.RDB.Pipeline()
	xlen := pipe.XLen(ctx, k.Stream())
	dlq := pipe.XLen(ctx, k.DLQ())
	retry := pipe.ZCard(ctx, k.Retry())
	deferred := pipe.ZCard(ctx, k.Deferred())
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return s, fmt.Errorf("read stats of %s: %w", k.Stream(), err)
	}
	s.Length, s.DLQ, s.Retry, s.Deferred = xlen.Val(), dlq.Val(), retry.Val(), deferred.Val()
	g, err := groupInfo(ctx, a.RDB, k.Stream(), group)
	if err != nil {
		return s, err
	}
	if g == nil {
		// No group yet (or it was lost, as in a FLUSHALL): every entry
		// is still to be delivered.
		s.Lag = s.Length
		return s, nil
	}
	s.Pending, s.Consumers, s.Read = g.Pending, g.Consumers, g.EntriesRead
	if s.Lag, err = lagOf(ctx, a.RDB, k.Stream(), g); err != nil {
		return s, err
	}
	if g.Pending > 0 {
		p, err := a.RDB.XPendingExt(ctx, &redis.XPendingExtArgs{Stream: k.Stream(), Group: group, Start: "-", End: "+", Count: 1}).Result()
		if err != nil {
			return s, fmt.Errorf("read oldest pending of %s: %w", k.Stream(), err)
		}
		if len(p) == 1 {
			s.OldestPendingAgeS = time.Since(idTime(p[0].ID)).Seconds()
		}
	}
	return s, nil
}

// groupInfo returns the group's XINFO entry, or nil when the stream or group is missing.
func groupInfo(ctx context.Context, rdb redis.UniversalClient, stream, group string) (*redis.XInfoGroup, error) {
	groups, err := rdb.XInfoGroups(ctx, stream).Result()
	if err != nil {
		if isNoSuchKey(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("read groups of %s: %w", stream, err)
	}
	for i := range groups {
		if groups[i].Name == group {
			return &groups[i], nil
		}
	}
	return nil, nil
}

// lagOf is the group's lag; when Redis cannot tell (-1 after deletions) it
// counts the entries after the last delivered id.
func lagOf(ctx context.Context, rdb redis.UniversalClient, stream string, g *redis.XInfoGroup) (int64, error) {
	if g.Lag >= 0 {
		return g.Lag, nil
	}
	msgs, err := rdb.XRangeN(ctx, stream, "("+g.LastDeliveredID, "+", 100000).Result()
	if err != nil {
		return 0, fmt.Errorf("count undelivered entries of %s: %w", stream, err)
	}
	return int64(len(msgs)), nil
}

// Pressure is the work waiting on a stage: over its streams (Layout), the
// sum of the largest lag+pending of the groups reading each one (its
// length when no group reads it yet).
func (a *Admin) Pressure(ctx context.Context, stage string) (int64, error) {
	parts, err := a.Layout(ctx, stage)
	if err != nil {
		return 0, err
	}
	var total int64
	for _, k := range parts {
		n, err := a.streamPressure(ctx, k.Stream())
		if err != nil {
			return 0, err
		}
		total += n
	}
	return total, nil
}

func (a *Admin) streamPressure(ctx context.Context, stream string) (int64, error) {
	groups, err := a.RDB.XInfoGroups(ctx, stream).Result()
	if err != nil {
		if isNoSuchKey(err) {
			return 0, nil
		}
		return 0, fmt.Errorf("read groups of %s: %w", stream, err)
	}
	if len(groups) == 0 {
		return a.RDB.XLen(ctx, stream).Result()
	}
	var worst int64
	for i := range groups {
		lag, err := lagOf(ctx, a.RDB, stream, &groups[i])
		if err != nil {
			return 0, err
		}
		worst = max(worst, lag+groups[i].Pending)
	}
	return worst, nil
}

// A DeadLetter is one entry of a stage's dead-letter stream.
type DeadLetter struct {
	ID        string            `json:"id"`
	Stage     string            `json:"stage"`
	Attempts  int               `json:"attempts"`
	ErrorType string            `json:"error_type"`
	Error     string            `json:"error"`
	FailedAt  string            `json:"failed_at"`
	Consumer  string            `json:"consumer"`
	SourceID  string            `json:"source_id"`
	Fields    map[string]string `json:"fields"`
	// Ref names it unambiguously: "<partition>/<id>" on a partitioned
	// stage (an id is unique within one partition's DLQ only), the id
	// otherwise. DLQFilter.IDs takes either.
	Ref string `json:"ref"`

	keys Keys // of the partition whose DLQ holds it
}

// DLQFilter selects dead letters: by error type, entry ids and/or age;
// empty selects all.
type DLQFilter struct {
	ErrorType string
	IDs       []string
	Before    time.Time // only dead letters written before this (zero: any age)
	Limit     int       // 0: no limit
}

// end is the last stream id f can select ("+": any).
func (f DLQFilter) end() string {
	if f.Before.IsZero() {
		return "+"
	}
	return strconv.FormatInt(max(f.Before.UnixMilli()-1, 0), 10) // ms alone: every entry of that millisecond
}

func (f DLQFilter) match(d DeadLetter) bool {
	if f.ErrorType != "" && d.ErrorType != f.ErrorType {
		return false
	}
	if len(f.IDs) > 0 {
		for _, id := range f.IDs {
			if id == d.ID || id == d.Ref {
				return true
			}
		}
		return false
	}
	return true
}

// DLQList returns a stage's dead letters, oldest first, that match f.
func (a *Admin) DLQList(ctx context.Context, stage string, f DLQFilter) ([]DeadLetter, error) {
	parts, err := a.Layout(ctx, stage)
	if err != nil {
		return nil, err
	}
	var out []DeadLetter
	for _, k := range parts {
		var part []DeadLetter
		err := a.scanDLQ(ctx, k, f.end(), func(d DeadLetter) bool {
			if f.match(d) {
				part = append(part, d)
			}
			return f.Limit == 0 || len(part) < f.Limit
		})
		if err != nil {
			return nil, err
		}
		out = append(out, part...)
	}
	sortByID(out, false)
	if f.Limit > 0 && len(out) > f.Limit {
		out = out[:f.Limit]
	}
	return out, nil
}

// DLQNewest returns a stage's n newest dead letters, newest first.
func (a *Admin) DLQNewest(ctx context.Context, stage string, n int64) ([]DeadLetter, error) {
	parts, err := a.Layout(ctx, stage)
	if err != nil {
		return nil, err
	}
	var out []DeadLetter
	for _, k := range parts {
		msgs, err := a.RDB.XRevRangeN(ctx, k.DLQ(), "+", "-", n).Result()
		if err != nil {
			return nil, fmt.Errorf("read dead letters of %s: %w", stage, err)
		}
		for _, m := range msgs {
			out = append(out, decodeDeadLetter(k, m))
		}
	}
	sortByID(out, true)
	return out[:min(int64(len(out)), n)], nil
}

// sortByID orders dead letters by when they were written.
func sortByID(ds []DeadLetter, newestFirst bool) {
	sort.SliceStable(ds, func(i, j int) bool {
		a, b := parseID(ds[i].ID), parseID(ds[j].ID)
		if newestFirst {
			return b.less(a)
		}
		return a.less(b)
	})
}

// DLQCounts counts a stage's dead letters by error type.
func (a *Admin) DLQCounts(ctx context.Context, stage string) (map[string]int64, error) {
	parts, err := a.Layout(ctx, stage)
	if err != nil {
		return nil, err
	}
	counts := map[string]int64{}
	for _, k := range parts {
		err := a.scanDLQ(ctx, k, "+", func(d DeadLetter) bool { counts[d.ErrorType]++; return true })
		if err != nil {
			return nil, err
		}
	}
	return counts, nil
}

// DLQReplay moves matching dead letters back onto the stream of their
// partition with their original fields and a fresh attempt count; it
// returns how many moved. Each move is atomic, so concurrent replays never
// duplicate an entry.
func (a *Admin) DLQReplay(ctx context.Context, stage string, f DLQFilter) (int, error) {
	moved, full, err := a.DLQReplayWithin(ctx, stage, f, a.Windows[stage])
	if err == nil && full {
		err = fmt.Errorf("replayed %d: %s's window is full, the rest stay dead letters (replay them once it has drained): %w", moved, stage, ErrWindowFull)
	}
	return moved, err
}

// ErrWindowFull reports a replay that stopped at a full window.
var ErrWindowFull = errors.New("window full")

// DLQReplayWithin is DLQReplay for a stage whose producers share w (nil:
// none): a dead letter goes back only while the window has room, and the
// rest stay dead letters, reported by full, to be replayed later.
func (a *Admin) DLQReplayWithin(ctx context.Context, stage string, f DLQFilter, w *Window) (moved int, full bool, err error) {
	list, err := a.DLQList(ctx, stage, f)
	if err != nil {
		return 0, false, err
	}
	for _, d := range list {
		fields := make(map[string]string, len(d.Fields))
		for key, v := range d.Fields {
			fields[key] = v
		}
		fields[FieldAttempt] = "0"
		delete(fields, FieldDeferred)
		delete(fields, FieldRunaways)
		args := []interface{}{d.ID}
		for _, key := range sortedKeys(fields) {
			args = append(args, key, fields[key])
		}
		if w != nil {
			args = append([]interface{}{w.group, w.share()}, args...)
			n, err := windowReplayScript.Run(ctx, a.RDB, []string{d.keys.Stream(), d.keys.Retry(), d.keys.Deferred(), d.keys.DLQ()}, args...).Int()
			if err != nil {
				return moved, false, fmt.Errorf("replay dead letter %s: %w", d.ID, err)
			}
			if n == 0 {
				return moved, true, nil
			}
			if n == 1 {
				moved++
			}
			continue
		}
		res, err := replayScript.Run(ctx, a.RDB, []string{d.keys.DLQ(), d.keys.Stream()}, args...).Result()
		if err != nil && !errors.Is(err, redis.Nil) {
			return moved, false, fmt.Errorf("replay dead letter %s: %w", d.ID, err)
		}
		if res != nil {
			moved++
		}
	}
	return moved, false, nil
}

// DLQPurge deletes matching dead letters and returns how many were removed.
func (a *Admin) DLQPurge(ctx context.Context, stage string, f DLQFilter) (int, error) {
	list, err := a.DLQList(ctx, stage, f)
	if err != nil {
		return 0, err
	}
	ids := map[string][]string{} // by DLQ key
	for _, d := range list {
		ids[d.keys.DLQ()] = append(ids[d.keys.DLQ()], d.ID)
	}
	removed := 0
	for key, ids := range ids {
		for len(ids) > 0 {
			n := min(len(ids), 500)
			c, err := a.RDB.XDel(ctx, key, ids[:n]...).Result()
			if err != nil {
				return removed, fmt.Errorf("purge dead letters: %w", err)
			}
			removed += int(c)
			ids = ids[n:]
		}
	}
	return removed, nil
}

// scanDLQ visits one partition's dead letters up to stream id end, oldest
// first, while visit returns true.
func (a *Admin) scanDLQ(ctx context.Context, k Keys, end string, visit func(DeadLetter) bool) error {
	start := "-"
	for {
		msgs, err := a.RDB.XRangeN(ctx, k.DLQ(), start, end, 500).Result()
		if err != nil {
			return fmt.Errorf("read dead letters of %s: %w", k.Stage, err)
		}
		for _, m := range msgs {
			if !visit(decodeDeadLetter(k, m)) {
				return nil
			}
		}
		if len(msgs) < 500 {
			return nil
		}
		start = "(" + msgs[len(msgs)-1].ID
	}
}

func decodeDeadLetter(k Keys, m redis.XMessage) DeadLetter {
	f, _ := fieldsOf(m.Values)
	d := DeadLetter{
		keys: k,
		ID:   m.ID, Stage: f[DLQFieldStage], ErrorType: f[DLQFieldErrorType], Error: f[DLQFieldError],
		FailedAt: f[DLQFieldFailedAt], Consumer: f[DLQFieldConsumer], SourceID: f[DLQFieldSourceID],
	}
	d.Attempts, _ = strconv.Atoi(f[DLQFieldAttempts])
	d.Ref = m.ID
	if k.Partition >= 0 {
		d.Ref = strconv.Itoa(k.Partition) + "/" + m.ID
	}
	var names []string
	_ = json.Unmarshal([]byte(f[DLQFieldOriginal]), &names)
	d.Fields = make(map[string]string, len(names))
	for _, name := range names {
		if v, ok := f[storedName(name)]; ok {
			d.Fields[name] = v
		}
	}
	return d
}

// dlqFields are the names streamkit writes into a dead letter.
var dlqFields = map[string]bool{DLQFieldStage: true, DLQFieldAttempts: true, DLQFieldErrorType: true,
	DLQFieldError: true, DLQFieldFailedAt: true, DLQFieldConsumer: true, DLQFieldSourceID: true, DLQFieldOriginal: true}

// storedName is where an original field lives in a dead letter: under its
// own name (byte-exact, so binary values survive), unless that clashes.
func storedName(name string) string {
	if dlqFields[name] || strings.HasPrefix(name, collisionPrefix) {
		return collisionPrefix + name
	}
	return name
}

// deadLetterArgs builds the DLQ entry: the original fields verbatim plus
// the failure's context.
func deadLetterArgs(stage string, attempts int, errType, errText, consumer, sourceID string, original map[string]string) []interface{} {
	if len(errText) > maxErrorText {
		errText = errText[:maxErrorText] + "…"
	}
	names := sortedKeys(original)
	orig, _ := json.Marshal(names)
	args := make([]interface{}, 0, 2*len(names)+16)
	for _, name := range names {
		args = append(args, storedName(name), original[name])
	}
	return append(args,
		DLQFieldStage, stage,
		DLQFieldAttempts, strconv.Itoa(attempts),
		DLQFieldErrorType, errType,
		DLQFieldError, errText,
		DLQFieldFailedAt, time.Now().UTC().Format(time.RFC3339Nano),
		DLQFieldConsumer, consumer,
		DLQFieldSourceID, sourceID,
		DLQFieldOriginal, string(orig),
	)
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func isNoSuchKey(err error) bool {
	return err != nil && (strings.Contains(err.Error(), "no such key") || errors.Is(err, redis.Nil))
}

func isBusyGroup(err error) bool {
	return err != nil && strings.HasPrefix(err.Error(), "BUSYGROUP")
}

// isDeletedWhileBlocked is a blocking read ended by the deletion of its stream.
func isDeletedWhileBlocked(err error) bool {
	return err != nil && strings.HasPrefix(err.Error(), "UNBLOCKED")
}

func isNoGroup(err error) bool {
	return err != nil && strings.HasPrefix(err.Error(), "NOGROUP")
}

// statusKey is where stage's consumers publish their status records.
func (a *Admin) statusKey(stage string) string { return KeysFor(a.Prefix, stage).Status() }
