package streamkit_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newscrawl/newscrawl/pkg/streamkit"
)

func TestPartitions_KeysAndRouting(t *testing.T) {
	one := streamkit.Partitions{}.Keys("nc", "clean")
	if len(one) != 1 || one[0].Stream() != "nc:{clean}:stream" || one[0].Status() != "nc:{clean}:status" {
		t.Fatalf("unpartitioned keys = %+v (%s)", one, one[0].Stream())
	}
	parts := streamkit.Partitions{"clean": 3}
	keys := parts.Keys("nc", "clean")
	if len(keys) != 3 {
		t.Fatalf("%d partitions, want 3", len(keys))
	}
	for i, k := range keys {
		tag := fmt.Sprintf("nc:{clean:%d}:", i)
		for _, key := range []string{k.Stream(), k.Retry(), k.Deferred(), k.DLQ()} {
			if !strings.HasPrefix(key, tag) {
				t.Errorf("partition %d key %s lacks the tag %s", i, key, tag)
			}
		}
		if k.Status() != "nc:{clean}:status" {
			t.Errorf("partition %d status key %s: the stage has one", i, k.Status())
		}
	}
	counts := make([]int, 3)
	for i := range 3000 {
		doc := fmt.Sprintf("doc-%d", i)
		k := parts.Route("nc", "clean", map[string]string{"doc_id": doc})
		if k.Partition != streamkit.PartitionOf(doc, 3) {
			t.Fatalf("%s routed to %d, PartitionOf says %d", doc, k.Partition, streamkit.PartitionOf(doc, 3))
		}
		counts[k.Partition]++
	}
	for i, n := range counts {
		if n < 800 || n > 1200 {
			t.Errorf("partition %d got %d of 3000 documents: the hash does not spread", i, n)
		}
	}
	// The hash is part of the data's layout: a change would send a
	// document's messages to another partition than its earlier ones.
	if got := streamkit.PartitionOf("doc-1", 8); got != 3 {
		t.Errorf("PartitionOf(doc-1, 8) = %d; the stable hash changed", got)
	}
}

// A partitioned stage end to end: messages land on their document's
// partition, two consumers read every partition, emits go to the
// downstream stage's partitions, failures dead-letter into their own
// partition's DLQ, and stats and replay see the stage whole.
func TestConsumer_PartitionedStage(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.resultTable()
	ctx := context.Background()
	parts := streamkit.Partitions{"s": 4, "next": 3}
	const n = 200
	pub := streamkit.NewProducer(e.RDB, e.Prefix, 0).WithPartitions(parts)
	for i := range n {
		if _, err := pub.Publish(ctx, "s", map[string]string{"doc_id": fmt.Sprintf("doc-%d", i), "content_hash": "h"}); err != nil {
			t.Fatal(err)
		}
	}
	sKeys, nextKeys := parts.Keys(e.Prefix, "s"), parts.Keys(e.Prefix, "next")
	var total int64
	for _, k := range sKeys {
		msgs, err := e.RDB.XRange(ctx, k.Stream(), "-", "+").Result()
		if err != nil {
			t.Fatal(err)
		}
		if len(msgs) == 0 {
			t.Fatalf("partition %d got nothing of %d documents", k.Partition, n)
		}
		for _, m := range msgs {
			if doc := m.Values["doc_id"].(string); streamkit.PartitionOf(doc, 4) != k.Partition {
				t.Fatalf("%s published on partition %d, belongs on %d", doc, k.Partition, streamkit.PartitionOf(doc, 4))
			}
		}
		total += int64(len(msgs))
	}
	if total != n {
		t.Fatalf("%d entries over the partitions, want %d", total, n)
	}

	fixed := atomic.Bool{}
	h := streamkit.HandlerFunc(func(ctx context.Context, m *streamkit.Message) (streamkit.Result, error) {
		i, _ := strconv.Atoi(strings.TrimPrefix(m.Get("doc_id"), "doc-"))
		if i%10 == 0 && !fixed.Load() {
			return streamkit.Result{}, streamkit.Permanent("not_found", errors.New("HTTP 404"))
		}
		return writeResult(ctx, m)
	})
	cfg := e.config("s")
	cfg.Partitions = parts
	e.start(cfg, h)
	cfg.Consumer = "second"
	e.start(cfg, h)

	e.eventually("180 done, 20 dead", 20*time.Second, func() bool {
		return e.ledgerCount("s") == n-n/10 && e.dlqTotal(sKeys) == n/10
	})
	admin := &streamkit.Admin{RDB: e.RDB, Prefix: e.Prefix, Partitions: parts}
	e.eventually("nothing pending", 10*time.Second, func() bool {
		st, err := admin.Stats(ctx, []streamkit.StageRef{{Stage: "s", Group: "s-group"}})
		return err == nil && st[0].Pending == 0 && st[0].Lag == 0
	})
	for _, k := range sKeys {
		dl, err := e.RDB.XRange(ctx, k.DLQ(), "-", "+").Result()
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range dl {
			if doc := m.Values["doc_id"].(string); streamkit.PartitionOf(doc, 4) != k.Partition {
				t.Fatalf("%s dead-lettered in partition %d's DLQ, belongs in %d's", doc, k.Partition, streamkit.PartitionOf(doc, 4))
			}
		}
	}
	// Each done document reaches the next stage; a busy machine may let a
	// lease lapse, and the redelivery re-emits (DESIGN.md rule 3), so a
	// document may be there twice — never one that was dead-lettered.
	forwarded := map[string]bool{}
	for _, k := range nextKeys {
		msgs, err := e.RDB.XRange(ctx, k.Stream(), "-", "+").Result()
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range msgs {
			doc := m.Values["doc_id"].(string)
			if streamkit.PartitionOf(doc, 3) != k.Partition {
				t.Fatalf("%s emitted to next's partition %d, belongs on %d", doc, k.Partition, streamkit.PartitionOf(doc, 3))
			}
			if i, _ := strconv.Atoi(strings.TrimPrefix(doc, "doc-")); i%10 == 0 {
				t.Fatalf("%s was dead-lettered, yet emitted downstream", doc)
			}
			forwarded[doc] = true
		}
	}
	if len(forwarded) != n-n/10 {
		t.Fatalf("%d documents emitted downstream, want %d", len(forwarded), n-n/10)
	}

	st, err := admin.Stats(ctx, []streamkit.StageRef{{Stage: "s", Group: "s-group"}})
	if err != nil {
		t.Fatal(err)
	}
	s := st[0]
	if len(s.Partitions) != 4 || s.DLQ != n/10 || s.Read != n || s.Consumers != 2 {
		t.Fatalf("stats: %d partitions, dlq %d, read %d, consumers %d; want 4, %d, %d, 2", len(s.Partitions), s.DLQ, s.Read, s.Consumers, n/10, n)
	}
	var sumDLQ int64
	for _, p := range s.Partitions {
		sumDLQ += p.DLQ
	}
	if sumDLQ != s.DLQ {
		t.Fatalf("partitions' DLQs sum to %d, the stage says %d", sumDLQ, s.DLQ)
	}
	newest, err := admin.DLQNewest(ctx, "s", 5)
	if err != nil || len(newest) != 5 {
		t.Fatalf("DLQNewest = %d, %v; want 5", len(newest), err)
	}
	for i := 1; i < len(newest); i++ {
		if idMillis(newest[i].ID) > idMillis(newest[i-1].ID) {
			t.Fatalf("DLQNewest not newest first: %s before %s", newest[i-1].ID, newest[i].ID)
		}
	}

	fixed.Store(true)
	// One dead letter by its reference: the partition names it, since ids
	// are unique within one partition's DLQ only.
	one := newest[0]
	if want := fmt.Sprintf("%d/%s", streamkit.PartitionOf(one.Fields["doc_id"], 4), one.ID); one.Ref != want {
		t.Fatalf("dead letter ref %q, want %q", one.Ref, want)
	}
	if moved, err := admin.DLQReplay(ctx, "s", streamkit.DLQFilter{IDs: []string{one.Ref}}); err != nil || moved != 1 {
		t.Fatalf("replay by ref moved %d, %v; want 1", moved, err)
	}
	moved, err := admin.DLQReplay(ctx, "s", streamkit.DLQFilter{ErrorType: "not_found"})
	if err != nil || moved != n/10-1 {
		t.Fatalf("replay moved %d, %v; want the other %d", moved, err, n/10-1)
	}
	e.eventually("replayed letters processed", 20*time.Second, func() bool { return e.ledgerCount("s") == n })
	if rows, sum := e.resultRows(); rows != n || sum != n {
		t.Fatalf("results: %d rows, %d writes; want %d, %d (each once)", rows, sum, n, n)
	}
	if d := e.dlqTotal(sKeys); d != 0 {
		t.Fatalf("%d dead letters left after the replay", d)
	}
}

// Reclaim works per partition: entries a dead consumer left pending on one
// partition are taken over while the other partitions flow — also with
// more partitions than the slots cover one full read each (readers hold
// their slots while a read blocks; the reclaimer still gets some).
func TestConsumer_PartitionedReclaim(t *testing.T) {
	for _, n := range []int{3, 8} {
		t.Run(fmt.Sprintf("%d partitions", n), func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			e.resultTable()
			ctx := context.Background()
			parts := streamkit.Partitions{"s": n}
			pub := streamkit.NewProducer(e.RDB, e.Prefix, 0).WithPartitions(parts)
			for i := range 30 {
				if _, err := pub.Publish(ctx, "s", map[string]string{"doc_id": fmt.Sprintf("doc-%d", i), "content_hash": "h"}); err != nil {
					t.Fatal(err)
				}
			}
			k := parts.Keys(e.Prefix, "s")[2]
			if err := streamkit.EnsureGroup(ctx, e.RDB, k.Stream(), "s-group"); err != nil {
				t.Fatal(err)
			}
			res, err := e.RDB.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "s-group", Consumer: "dead", Streams: []string{k.Stream(), ">"}}).Result()
			if err != nil || len(res[0].Messages) == 0 {
				t.Fatalf("dead consumer read %v, %v", res, err)
			}
			cfg := e.config("s")
			cfg.Partitions = parts
			e.start(cfg, streamkit.HandlerFunc(writeResult))
			e.eventually("every document done, the dead consumer's too", 15*time.Second, func() bool { return e.ledgerCount("s") == 30 })
			if rows, sum := e.resultRows(); rows != 30 || sum != 30 {
				t.Fatalf("results: %d rows, %d writes; want 30, 30", rows, sum)
			}
			e.eventually("partition 2's PEL empty", 5*time.Second, func() bool {
				p, err := e.RDB.XPending(ctx, k.Stream(), "s-group").Result()
				return err == nil && p.Count == 0
			})
		})
	}
}

func (e *env) dlqTotal(keys []streamkit.Keys) int64 {
	e.T.Helper()
	var n int64
	for _, k := range keys {
		n += e.xlen(k.DLQ())
	}
	return n
}

func idMillis(id string) int64 {
	ms, _, _ := strings.Cut(id, "-")
	n, _ := strconv.ParseInt(ms, 10, 64)
	return n
}

// Changing a stage's partition count loses nothing: entries written under
// the former count (one stream, then four) are read by consumers on the
// new count (four, then one) until they drain, and stats show where.
func TestConsumer_ReadsAFormerPartitionCount(t *testing.T) {
	for _, tc := range []struct {
		name     string
		from, to int
	}{
		{name: "one stream to four partitions", from: 1, to: 4},
		{name: "four partitions to one stream", from: 4, to: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			e.resultTable()
			ctx := context.Background()
			before, after := streamkit.Partitions{"s": tc.from}, streamkit.Partitions{"s": tc.to}
			publish := func(parts streamkit.Partitions, from, to int) {
				pub := streamkit.NewProducer(e.RDB, e.Prefix, 0).WithPartitions(parts)
				for i := from; i < to; i++ {
					if _, err := pub.Publish(ctx, "s", map[string]string{"doc_id": fmt.Sprintf("doc-%d", i), "content_hash": "h"}); err != nil {
						t.Fatal(err)
					}
				}
			}
			publish(before, 0, 40) // left by the system before the change
			admin := &streamkit.Admin{RDB: e.RDB, Prefix: e.Prefix, Partitions: after}
			st, err := admin.Stats(ctx, []streamkit.StageRef{{Stage: "s", Group: "s-group"}})
			if err != nil {
				t.Fatal(err)
			}
			former := 0
			for _, p := range st[0].Partitions {
				if p.Former {
					former++
				}
			}
			if former != tc.from || st[0].Lag != 40 {
				t.Fatalf("stats before the new consumers: %d former streams, lag %d; want %d, 40", former, st[0].Lag, tc.from)
			}
			cfg := e.config("s")
			cfg.Partitions = after
			e.start(cfg, streamkit.HandlerFunc(writeResult))
			publish(after, 40, 80)  // producers already on the new count
			publish(before, 80, 90) // a producer not yet restarted
			e.eventually("every entry of both counts processed", 15*time.Second, func() bool { return e.ledgerCount("s") == 90 })
			if rows, sum := e.resultRows(); rows != 90 || sum != 90 {
				t.Fatalf("results: %d rows, %d writes; want 90, 90", rows, sum)
			}
			e.eventually("nothing left on any stream", 10*time.Second, func() bool {
				st, err := admin.Stats(ctx, []streamkit.StageRef{{Stage: "s", Group: "s-group"}})
				return err == nil && st[0].Lag == 0 && st[0].Pending == 0
			})
			// The operator deletes the drained former streams: the consumers
			// stop reading them rather than recreate them.
			current := map[string]bool{}
			for _, k := range after.Keys(e.Prefix, "s") {
				current[k.Stream()] = true
			}
			var gone []string
			for _, k := range before.Keys(e.Prefix, "s") {
				if !current[k.Stream()] {
					gone = append(gone, k.Stream())
				}
			}
			for _, key := range gone {
				if err := e.RDB.Del(ctx, key).Err(); err != nil { // one by one: on a cluster, other slots
					t.Fatal(err)
				}
			}
			time.Sleep(500 * time.Millisecond) // several block times of the test config
			for _, key := range gone {
				if n := e.RDB.Exists(ctx, key).Val(); n != 0 {
					t.Fatalf("the deleted former stream %s exists again", key)
				}
			}
		})
	}
}
