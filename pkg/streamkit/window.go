package streamkit

import (
	"context"
	crand "crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// A Window bounds what a stage holds in Redis — its stream's waiting and
// pending entries, its retries and its deferrals, over every partition — for
// all producers in all processes at once. Add checks the room and adds what
// fits in one script per partition, so no two producers pass the window
// together (a window per process would let P processes hold P windows). A
// producer whose messages do not fit keeps them (a frontier in a database)
// and adds them later. Add also trims the stream, below what every group has
// finished, once it runs near the window plus Retain finished entries: the
// stream's length keeps pace with the window, not with the janitor's period.
type Window struct {
	rdb    redis.UniversalClient
	prefix string
	stage  string
	group  string
	parts  Partitions
	size   int64
	retain int64
}

// NewWindow is a window of size entries on stage, read by group, keeping
// DefaultRetainLen finished entries.
func NewWindow(rdb redis.UniversalClient, prefix, stage, group string, size int64) *Window {
	return &Window{rdb: rdb, prefix: prefix, stage: stage, group: group, size: size, retain: DefaultRetainLen}
}

// WithPartitions spreads the window over the stage's partitions, an equal
// share each (rounded up).
func (w *Window) WithPartitions(p Partitions) *Window {
	c := *w
	c.parts = p
	return &c
}

// WithRetain sets the finished entries kept in the stream for inspection
// (the consumers' RetainLen).
func (w *Window) WithRetain(n int64) *Window {
	c := *w
	c.retain = max(n, 0)
	return &c
}

func (w *Window) share() int64 {
	n := int64(w.parts.Of(w.stage))
	return (w.size + n - 1) / n
}

// Room is how many messages the window takes now, over all partitions: a
// hint for how many to prepare (Add decides).
func (w *Window) Room(ctx context.Context) (int64, error) {
	var room int64
	for _, k := range w.parts.Keys(w.prefix, w.stage) {
		res, err := windowScript.Run(ctx, w.rdb, []string{k.Stream(), k.Retry(), k.Deferred()}, w.group, w.share(), 0).Int64Slice()
		if err != nil {
			return 0, fmt.Errorf("read the room of %s: %w", k.Stream(), err)
		}
		room += max(w.share()-res[1], 0)
	}
	return room, nil
}

// Add publishes the messages that fit, in order within each partition, and
// reports which it added. A message that finds no room is not added, nor is
// any after it in its partition. On an error, added says what was added
// before it.
func (w *Window) Add(ctx context.Context, msgs []map[string]string) (added []bool, err error) {
	due := make([]Due, len(msgs))
	for i, m := range msgs {
		due[i] = Due{Fields: m}
	}
	return w.AddDue(ctx, due)
}

// A Due is a message and how long from now it is due. One due later waits
// in the stage's deferred set, where it counts against the window as a
// stepped-aside entry does, until the promoter moves it onto the stream: a
// producer that knows when a message can be handled (a host's next turn)
// need not have it read, refused and stepped aside first.
type Due struct {
	Fields map[string]string
	After  time.Duration // <= 0: at once
}

// AddDue is Add for messages due now or later.
func (w *Window) AddDue(ctx context.Context, msgs []Due) (added []bool, err error) {
	added = make([]bool, len(msgs))
	byPart := map[string][]int{}
	keys := map[string]Keys{}
	for i, m := range msgs {
		k := w.parts.Route(w.prefix, w.stage, m.Fields)
		byPart[k.Stream()] = append(byPart[k.Stream()], i)
		keys[k.Stream()] = k
	}
	streams := make([]string, 0, len(byPart))
	for s := range byPart {
		streams = append(streams, s)
	}
	sort.Strings(streams)
	for _, s := range streams {
		idx, k := byPart[s], keys[s]
		args := []interface{}{w.group, w.share(), len(idx)}
		later := false
		for _, i := range idx {
			m := msgs[i]
			if m.After > 0 {
				later = true
				args = append(args, max(m.After.Milliseconds(), 1), 1, dueMember(m.Fields))
				continue
			}
			args = append(args, 0, len(m.Fields)*2)
			for _, f := range sortedKeys(m.Fields) {
				args = append(args, f, m.Fields[f])
			}
		}
		res, err := windowScript.Run(ctx, w.rdb, []string{k.Stream(), k.Retry(), k.Deferred()}, args...).Int64Slice()
		if err != nil {
			return added, fmt.Errorf("add to %s within its window: %w", s, err)
		}
		for j := int64(0); j < res[0]; j++ {
			added[idx[j]] = true
		}
		if later && res[0] > 0 {
			dueAdded(s)
		}
		// Trimmed an eighth of the window early: entries promoted from the
		// retry and deferred sets between two Adds must still fit.
		if length := res[2]; length > w.share()+w.retain-w.share()/8 {
			if _, err := trim(ctx, w.rdb, s, w.retain); err != nil && !strings.Contains(err.Error(), "NOGROUP") {
				return added, err
			}
		}
	}
	return added, nil
}

// dueMember is a deferred-set member for a message added due later: the
// shape the promoter publishes (retryMember), under a random id, since two
// equal messages must stay two members.
func dueMember(fields map[string]string) string {
	var id [8]byte
	_, _ = crand.Read(id[:])
	b, _ := json.Marshal(retryMember{ID: "due:" + hex.EncodeToString(id[:]), Fields: fields})
	return string(b)
}

// windowLoad is the Lua that computes a stage partition's load: the group's
// lag and pending entries, the retry and deferred sets. KEYS: stream, retry
// set, deferred set; it expects group and size in locals of those names.
const windowLoad = `
local load = redis.call('ZCARD', KEYS[2]) + redis.call('ZCARD', KEYS[3])
if redis.call('EXISTS', KEYS[1]) == 1 then
  local found = false
  for _, g in ipairs(redis.call('XINFO', 'GROUPS', KEYS[1])) do
    local f = {}
    for i = 1, #g, 2 do f[g[i]] = g[i + 1] end
    if f['name'] == group then
      found = true
      local lag = f['lag']
      if not lag then
        lag = #redis.call('XRANGE', KEYS[1], '(' .. f['last-delivered-id'], '+', 'COUNT', size + 1)
      end
      load = load + lag + f['pending']
    end
  end
  if not found then load = load + redis.call('XLEN', KEYS[1]) end
end
`

// windowScript adds messages to a stream, or those due later to the
// deferred set, while the stage's load is below the window: checked and
// added in one step.
// KEYS: stream, retry set, deferred set. ARGV: group, size, count, then per
// message its delay in ms (0: at once), its argument count, and its
// arguments: the fields, or the deferred-set member when delayed. Returns
// {added, load before, length after}.
var windowScript = redis.NewScript(`
local group, size = ARGV[1], tonumber(ARGV[2])
` + windowLoad + `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local added, pos = 0, 4
for m = 1, tonumber(ARGV[3]) do
  local delay, n = tonumber(ARGV[pos]), tonumber(ARGV[pos + 1])
  if load + added >= size then break end
  if delay > 0 then
    redis.call('ZADD', KEYS[3], now + delay, ARGV[pos + 2])
  else
    redis.call('XADD', KEYS[1], '*', unpack(ARGV, pos + 2, pos + n + 1))
  end
  added = added + 1
  pos = pos + n + 2
end
return {added, load, redis.call('XLEN', KEYS[1])}
`)

// windowReplayScript moves one dead letter back onto its stream if the
// window has room. KEYS: stream, retry set, deferred set, dlq. ARGV: group,
// size, dlq entry id, field, value, ... Returns 1 moved, 0 no room, -1 the
// dead letter is gone.
var windowReplayScript = redis.NewScript(`
local group, size = ARGV[1], tonumber(ARGV[2])
` + windowLoad + `
if load >= size then return 0 end
if redis.call('XDEL', KEYS[4], ARGV[3]) == 0 then return -1 end
redis.call('XADD', KEYS[1], '*', unpack(ARGV, 4, #ARGV))
return 1
`)
