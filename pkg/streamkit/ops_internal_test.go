package streamkit

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Each Redis operation of a consumer, alone against the real Redis: no
// consumer, no loop, no PostgreSQL.

// opsFor returns the operations of consumer on a fresh stage "s" (its
// stream and group made) under a prefix of the test's own.
func opsFor(t *testing.T, consumer string) (*ops, redis.UniversalClient) {
	t.Helper()
	url := os.Getenv("REDIS_URL")
	if url == "" {
		url = "redis://127.0.0.1:6379/0"
	}
	opt, err := redis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opt)
	prefix := "t" + randomName()
	t.Cleanup(func() {
		ctx := context.Background()
		iter := rdb.Scan(ctx, 0, prefix+":*", 1000).Iterator()
		for iter.Next(ctx) {
			rdb.Del(ctx, iter.Val())
		}
		rdb.Close()
	})
	o := &ops{rdb: rdb, keys: KeysFor(prefix, "s"), prefix: prefix, group: "g", consumer: consumer, block: 50 * time.Millisecond}
	if err := o.ensureGroup(context.Background()); err != nil {
		t.Fatalf("redis at %s: %v", url, err)
	}
	return o, rdb
}

func randomName() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// as is o for another consumer of the same group.
func (o *ops) as(consumer string) *ops { c := *o; c.consumer = consumer; return &c }

func add(t *testing.T, rdb redis.UniversalClient, stream string, n int) []string {
	t.Helper()
	var ids []string
	for i := range n {
		id, err := rdb.XAdd(context.Background(), &redis.XAddArgs{Stream: stream, Values: []string{"doc_id", "d" + string(rune('0'+i))}}).Result()
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	return ids
}

func idsOf(msgs []redis.XMessage) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = m.ID
	}
	return out
}

func TestOps_ReadNewThenOwnPending(t *testing.T) {
	o, rdb := opsFor(t, "a")
	ctx := context.Background()
	ids := add(t, rdb, o.keys.Stream(), 5)

	got, err := o.readNew(ctx, 3)
	if err != nil || !slices.Equal(idsOf(got), ids[:3]) {
		t.Fatalf("readNew(3) = %v, %v; want the first three %v", idsOf(got), err, ids[:3])
	}
	if got, err := o.as("b").readNew(ctx, 10); err != nil || !slices.Equal(idsOf(got), ids[3:]) {
		t.Fatalf("another consumer's readNew = %v, %v; want the last two", idsOf(got), err)
	}
	if got, err := o.readNew(ctx, 10); err != nil || len(got) != 0 {
		t.Fatalf("readNew on an empty stream = %v, %v; want nothing after the block", idsOf(got), err)
	}
	// Its own pending entries, from the start or after a cursor; never another's.
	if got, err := o.readOwn(ctx, "0", 10); err != nil || !slices.Equal(idsOf(got), ids[:3]) {
		t.Fatalf("readOwn(0) = %v, %v; want its three", idsOf(got), err)
	}
	if got, err := o.readOwn(ctx, ids[1], 10); err != nil || !slices.Equal(idsOf(got), ids[2:3]) {
		t.Fatalf("readOwn after %s = %v, %v; want %s", ids[1], idsOf(got), err, ids[2])
	}
}

func TestOps_ClaimIdleTakesOverAndReportsTrimmed(t *testing.T) {
	o, rdb := opsFor(t, "a")
	ctx := context.Background()
	ids := add(t, rdb, o.keys.Stream(), 4)
	if _, err := o.as("dead").readNew(ctx, 4); err != nil {
		t.Fatal(err)
	}
	if got, _, _, err := o.claimIdle(ctx, time.Hour, "0-0", 10); err != nil || len(got) != 0 {
		t.Fatalf("claimIdle of entries not idle long enough = %v, %v; want none", idsOf(got), err)
	}
	rdb.XDel(ctx, o.keys.Stream(), ids[0]) // trimmed while pending
	time.Sleep(20 * time.Millisecond)
	got, _, deleted, err := o.claimIdle(ctx, 10*time.Millisecond, "0-0", 10)
	if err != nil || !slices.Equal(idsOf(got), ids[1:]) || !slices.Equal(deleted, ids[:1]) {
		t.Fatalf("claimIdle = %v, deleted %v, %v; want %v and %v", idsOf(got), deleted, err, ids[1:], ids[:1])
	}
	n, err := o.deliveries(ctx, ids[1:])
	if err != nil || n[ids[1]] != 2 || n[ids[3]] != 2 {
		t.Fatalf("deliveries = %v, %v; want 2 each (read, then claimed)", n, err)
	}
	p, _ := rdb.XPendingExt(ctx, &redis.XPendingExtArgs{Stream: o.keys.Stream(), Group: "g", Start: "-", End: "+", Count: 10, Consumer: "a"}).Result()
	if len(p) != 3 {
		t.Fatalf("a owns %d entries after the claim, want 3", len(p))
	}
}

func TestOps_RenewKeepsOnlyWhatIsStillOwned(t *testing.T) {
	o, rdb := opsFor(t, "a")
	ctx := context.Background()
	ids := add(t, rdb, o.keys.Stream(), 3)
	if _, err := o.readNew(ctx, 3); err != nil {
		t.Fatal(err)
	}
	time.Sleep(30 * time.Millisecond)
	// b took ids[1] over; ids[2] was acked elsewhere.
	if err := rdb.XClaim(ctx, &redis.XClaimArgs{Stream: o.keys.Stream(), Group: "g", Consumer: "b", MinIdle: 0, Messages: ids[1:2]}).Err(); err != nil {
		t.Fatal(err)
	}
	if err := o.ack(ctx, ids[2]); err != nil {
		t.Fatal(err)
	}
	// Renewed, the entry's idle time counts from the renewal: no longer
	// than since just before it (two milliseconds of rounding aside), however
	// busy the machine; without it, 30 ms more.
	before := time.Now()
	owned, lost, err := o.renew(ctx, ids)
	if err != nil || !slices.Equal(owned, ids[:1]) || !slices.Equal(lost, ids[1:]) {
		t.Fatalf("renew = owned %v, lost %v, %v; want %v and %v", owned, lost, err, ids[:1], ids[1:])
	}
	p, _ := rdb.XPendingExt(ctx, &redis.XPendingExtArgs{Stream: o.keys.Stream(), Group: "g", Start: ids[0], End: ids[0], Count: 1}).Result()
	since := time.Since(before)
	if len(p) != 1 || p[0].Idle > since+2*time.Millisecond || p[0].RetryCount != 1 {
		t.Fatalf("renewed entry %+v, %s after the renewal began: want its idle time reset and no delivery counted", p, since)
	}
}

func TestOps_ScheduleRetryOnlyByTheOwner(t *testing.T) {
	o, rdb := opsFor(t, "a")
	ctx := context.Background()
	ids := add(t, rdb, o.keys.Stream(), 2)
	if _, err := o.readNew(ctx, 2); err != nil {
		t.Fatal(err)
	}
	if owned, err := o.as("b").scheduleRetry(ctx, ids[0], "m0", time.Minute, false); err != nil || owned {
		t.Fatalf("a retry by a consumer that does not own the entry: owned=%v, %v; want refused", owned, err)
	}
	if owned, err := o.scheduleRetry(ctx, ids[0], "m0", time.Minute, false); err != nil || !owned {
		t.Fatalf("scheduleRetry = %v, %v", owned, err)
	}
	if owned, err := o.scheduleRetry(ctx, ids[1], "m1", time.Minute, true); err != nil || !owned {
		t.Fatalf("scheduleRetry of a deferral = %v, %v", owned, err)
	}
	if r, d := rdb.ZCard(ctx, o.keys.Retry()).Val(), rdb.ZCard(ctx, o.keys.Deferred()).Val(); r != 1 || d != 1 {
		t.Fatalf("retry set %d, deferred set %d; want 1 each", r, d)
	}
	score := rdb.ZScore(ctx, o.keys.Retry(), "m0").Val()
	if due := time.UnixMilli(int64(score)); due.Before(time.Now().Add(50*time.Second)) || due.After(time.Now().Add(70*time.Second)) {
		t.Fatalf("retry due at %s, want in about a minute", due)
	}
	if p := rdb.XPending(ctx, o.keys.Stream(), "g").Val(); p.Count != 0 {
		t.Fatalf("%d entries still pending: a scheduled retry acks its entry", p.Count)
	}
}

func TestOps_DeadLetterOnlyByTheOwner(t *testing.T) {
	o, rdb := opsFor(t, "a")
	ctx := context.Background()
	ids := add(t, rdb, o.keys.Stream(), 1)
	if _, err := o.readNew(ctx, 1); err != nil {
		t.Fatal(err)
	}
	fields := deadLetterArgs("s", 1, "bad_message", "no doc", "a", ids[0], map[string]string{"doc_id": "d0", "stage": "clash"})
	if owned, err := o.as("b").deadLetter(ctx, ids[0], fields); err != nil || owned {
		t.Fatalf("a dead letter by a consumer that does not own the entry: owned=%v, %v; want refused", owned, err)
	}
	if owned, err := o.deadLetter(ctx, ids[0], fields); err != nil || !owned {
		t.Fatalf("deadLetter = %v, %v", owned, err)
	}
	msgs := rdb.XRange(ctx, o.keys.DLQ(), "-", "+").Val()
	if len(msgs) != 1 {
		t.Fatalf("%d dead letters, want 1", len(msgs))
	}
	d := decodeDeadLetter(o.keys, msgs[0])
	if d.ErrorType != "bad_message" || d.SourceID != ids[0] || d.Fields["doc_id"] != "d0" || d.Fields["stage"] != "clash" {
		t.Fatalf("dead letter %+v: want its context and the original fields, a clashing name kept apart", d)
	}
	if p := rdb.XPending(ctx, o.keys.Stream(), "g").Val(); p.Count != 0 {
		t.Fatalf("%d entries still pending: a dead letter acks its entry", p.Count)
	}
}

func TestOps_EmitRoutesToTheDocumentsPartition(t *testing.T) {
	o, rdb := opsFor(t, "a")
	ctx := context.Background()
	o.partitions = Partitions{"next": 3}
	var emits []Emit
	for _, doc := range []string{"a", "b", "c", "d", "e", "f"} {
		emits = append(emits, Emit{Stage: "next", Fields: map[string]string{"doc_id": doc}}, Emit{Stage: "other", Fields: map[string]string{"doc_id": doc}})
	}
	if err := o.emit(ctx, emits); err != nil {
		t.Fatal(err)
	}
	for _, k := range o.partitions.Keys(o.prefix, "next") {
		for _, m := range rdb.XRange(ctx, k.Stream(), "-", "+").Val() {
			if doc := m.Values["doc_id"].(string); PartitionOf(doc, 3) != k.Partition {
				t.Errorf("%s on partition %d of next, belongs on %d", doc, k.Partition, PartitionOf(doc, 3))
			}
		}
	}
	if n := rdb.XLen(ctx, KeysFor(o.prefix, "other").Stream()).Val(); n != 6 {
		t.Errorf("the unpartitioned stage got %d, want 6", n)
	}
	if !strings.HasSuffix(KeysFor(o.prefix, "other").Stream(), ":{other}:stream") {
		t.Errorf("an unpartitioned stage's stream is %s", KeysFor(o.prefix, "other").Stream())
	}
}
