package streamkit

import (
	"context"
	"fmt"
	"hash/fnv"
	"strconv"

	"github.com/redis/go-redis/v9"
)

// MaxPartitions bounds a stage's partition count, and so the search for
// the streams a former count left behind.
const MaxPartitions = 64

// Keys names the Redis keys of one stage, or of one partition of a
// partitioned stage, under a prefix. Every key of a Keys shares one hash
// tag, so a script touching the stream and its retry set or DLQ runs on
// Redis Cluster.
type Keys struct {
	Prefix string
	Stage  string
	// Partition is the partition's index, or -1 for an unpartitioned stage
	// (KeysFor), whose keys carry the tag {<stage>}; partition i's carry
	// {<stage>:<i>}.
	Partition int
}

// KeysFor returns the keys of an unpartitioned stage under prefix.
func KeysFor(prefix, stage string) Keys { return Keys{Prefix: prefix, Stage: stage, Partition: -1} }

// Stream is the stage's (partition's) input stream.
func (k Keys) Stream() string { return k.key("stream") }

// Retry is the sorted set of delayed retries, scored by due time (unix ms).
func (k Keys) Retry() string { return k.key("retry") }

// Deferred is the sorted set of deferrals (Later: a handler stepping aside,
// not failing), scored by due time (unix ms); kept apart from Retry so that
// waiting for a host slot is never mistaken for failing.
func (k Keys) Deferred() string { return k.key("deferred") }

// DLQ is the stage's (partition's) dead-letter stream.
func (k Keys) DLQ() string { return k.key("dlq") }

// Status is the hash of the stage's consumers' status records, one field
// per consumer (see ConsumerStatus). A stage has one, whatever its partitions.
func (k Keys) Status() string { return fmt.Sprintf("%s:{%s}:status", k.Prefix, k.Stage) }

func (k Keys) key(kind string) string {
	if k.Partition < 0 {
		return fmt.Sprintf("%s:{%s}:%s", k.Prefix, k.Stage, kind)
	}
	return fmt.Sprintf("%s:{%s:%d}:%s", k.Prefix, k.Stage, k.Partition, kind)
}

// Label names the partition in logs and stats: "-" for an unpartitioned stage.
func (k Keys) Label() string {
	if k.Partition < 0 {
		return "-"
	}
	return strconv.Itoa(k.Partition)
}

// Partitions says how many partition streams each stage has. A stage that
// is absent, or set below 2, has one stream with the keys of KeysFor. A
// stage with N partitions has N streams, each with its own retry set,
// deferred set and DLQ in its own hash slot; a message goes to the
// partition of its doc_id (a stable hash), so one document's messages stay in
// order. Producers and consumers of a stage must agree on its N; see
// docs/SCALING.md for changing it on a running system.
type Partitions map[string]int

// Of is the number of partitions of stage (between 1 and MaxPartitions).
func (p Partitions) Of(stage string) int { return min(max(p[stage], 1), MaxPartitions) }

// Keys lists the keys of every partition of stage, in partition order.
func (p Partitions) Keys(prefix, stage string) []Keys {
	n := p.Of(stage)
	if n == 1 {
		return []Keys{KeysFor(prefix, stage)}
	}
	out := make([]Keys, n)
	for i := range out {
		out[i] = Keys{Prefix: prefix, Stage: stage, Partition: i}
	}
	return out
}

// Route returns the keys of the partition a message with these fields goes
// to on stage: the partition of its doc_id.
func (p Partitions) Route(prefix, stage string, fields map[string]string) Keys {
	n := p.Of(stage)
	if n == 1 {
		return KeysFor(prefix, stage)
	}
	return Keys{Prefix: prefix, Stage: stage, Partition: partitionOf(fields[FieldDocID], n)}
}

// partitionOf is the partition of docID among n: a stable hash (FNV-1a),
// the same in every process and release.
func partitionOf(docID string, n int) int {
	if n <= 1 {
		return 0
	}
	h := fnv.New32a()
	_, _ = h.Write([]byte(docID))
	return int(h.Sum32() % uint32(n))
}

// Layout returns the keys of every stream of stage that holds or may hold
// work: the partitions of its configured count, then those of any former
// count (the stage ran with another <STAGE>_PARTITIONS) whose stream, retry
// or deferred set or DLQ still exists. Consumers read the former ones until they drain,
// and stats and the DLQ commands show them, so changing a stage's count on
// a running system loses nothing: producers already on the new count write
// the new streams, the rest is read where it was written.
func (p Partitions) Layout(ctx context.Context, rdb redis.UniversalClient, prefix, stage string) ([]Keys, error) {
	keys := p.Keys(prefix, stage)
	current := map[int]bool{}
	for _, k := range keys {
		current[k.Partition] = true
	}
	var candidates []Keys
	for i := -1; i < MaxPartitions; i++ {
		if !current[i] {
			candidates = append(candidates, Keys{Prefix: prefix, Stage: stage, Partition: i})
		}
	}
	// One EXISTS per key: on a cluster the keys of different partitions
	// live in different slots, so they cannot share a command.
	pipe := rdb.Pipeline()
	cmds := make([][]*redis.IntCmd, len(candidates))
	for i, k := range candidates {
		for _, key := range []string{k.Stream(), k.Retry(), k.Deferred(), k.DLQ()} {
			cmds[i] = append(cmds[i], pipe.Exists(ctx, key))
		}
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return nil, fmt.Errorf("look for former partitions of %s: %w", stage, err)
	}
	for i, k := range candidates {
		for _, c := range cmds[i] {
			if c.Val() > 0 {
				keys = append(keys, k)
				break
			}
		}
	}
	return keys, nil
}
