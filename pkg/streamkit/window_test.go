package streamkit_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newscrawl/newscrawl/pkg/streamkit"
)

func windowMsgs(from, n int) []map[string]string {
	out := make([]map[string]string, n)
	for i := range out {
		out[i] = map[string]string{"doc_id": fmt.Sprintf("doc-%d", from+i), "content_hash": "h"}
	}
	return out
}

// Producers in many processes share one window: four adding at once never
// put more than the window on the stage, retries and deferrals count, a
// finished entry makes room, and the stream is trimmed as it grows past the
// window and the retained entries, never past what the group still needs.
func TestWindow_OneWindowForEveryProducer(t *testing.T) {
	t.Parallel()
	e, keys := newWindowEnv(t)
	ctx := context.Background()
	w := streamkit.NewWindow(e.RDB, e.Prefix, "w", "w-group", 100).WithRetain(10)
	var wg sync.WaitGroup
	var mu sync.Mutex
	total := 0
	for p := range 4 {
		wg.Go(func() {
			added, err := w.Add(ctx, windowMsgs(p*1000, 60))
			if err != nil {
				t.Error(err)
			}
			mu.Lock()
			for _, ok := range added {
				if ok {
					total++
				}
			}
			mu.Unlock()
		})
	}
	wg.Wait()
	if total != 100 || e.xlen(keys.Stream()) != 100 {
		t.Fatalf("%d added, stream length %d; want the window, 100", total, e.xlen(keys.Stream()))
	}
	if room, _ := w.Room(ctx); room != 0 {
		t.Fatalf("room %d in a full window", room)
	}
	// Handled: 50 read and acked, 10 more read and pending, 5 put in the
	// retry set and 5 deferred: the load is 40 waiting + 10 pending + 10.
	e.consume("w", "w-group", 50, true)
	e.consume("w", "w-group", 10, false)
	e.RDB.ZAdd(ctx, keys.Retry(), zmembers(5, "r")...)
	e.RDB.ZAdd(ctx, keys.Deferred(), zmembers(5, "d")...)
	if room, _ := w.Room(ctx); room != 40 {
		t.Fatalf("room %d, want 40", room)
	}
	added, err := w.Add(ctx, windowMsgs(9000, 100))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, ok := range added {
		if ok {
			n++
		}
	}
	// 140 entries now, past window + retain (110): trimmed to the 10 kept
	// before the oldest the group still needs (the first pending one).
	if n != 40 || e.xlen(keys.Stream()) != 10+10+40+40 {
		t.Fatalf("%d added, stream length %d; want 40 added and 100 (10 retained, 10 pending, 80 waiting)", n, e.xlen(keys.Stream()))
	}
}

// A message added due later waits in the deferred set, counted against the
// window, until it is due; then the promoter publishes it as it was given,
// and two equal messages stay two.
func TestWindow_AddDueWaitsInTheDeferredSet(t *testing.T) {
	t.Parallel()
	e, keys := newWindowEnv(t)
	ctx := context.Background()
	w := streamkit.NewWindow(e.RDB, e.Prefix, "w", "w-group", 6)
	same := map[string]string{"doc_id": "twin", "content_hash": "h"}
	msgs := []streamkit.Due{
		{Fields: map[string]string{"doc_id": "now", "content_hash": "h"}},
		{Fields: same, After: 400 * time.Millisecond},
		{Fields: same, After: 400 * time.Millisecond},
		{Fields: map[string]string{"doc_id": "later", "content_hash": "h"}, After: time.Hour},
	}
	added, err := w.AddDue(ctx, msgs)
	if err != nil {
		t.Fatal(err)
	}
	for i, ok := range added {
		if !ok {
			t.Fatalf("message %d not added to an empty window", i)
		}
	}
	if st, def := e.xlen(keys.Stream()), e.zcard(keys.Deferred()); st != 1 || def != 3 {
		t.Fatalf("stream %d, deferred %d; want 1 and 3", st, def)
	}
	if room, _ := w.Room(ctx); room != 2 {
		t.Fatalf("room %d, want 2: the deferred messages count", room)
	}
	if n, next, err := streamkit.Promote(ctx, e.RDB, keys, 10); err != nil || n != 0 || next <= 0 || next > 400*time.Millisecond {
		t.Fatalf("promoted %d (%v) before any was due, the next due in %v; want 0, in at most 400ms", n, err, next)
	}
	time.Sleep(500 * time.Millisecond)
	if n, next, err := streamkit.Promote(ctx, e.RDB, keys, 10); err != nil || n != 2 || next < 59*time.Minute || next > time.Hour {
		t.Fatalf("promoted %d (%v), the next due in %v; want the two due, and the last due in about an hour", n, err, next)
	}
	got, err := e.RDB.XRange(ctx, keys.Stream(), "-", "+").Result()
	if err != nil {
		t.Fatal(err)
	}
	var docs []string
	for _, m := range got {
		docs = append(docs, fmt.Sprint(m.Values["doc_id"], "/", m.Values["content_hash"]))
	}
	if fmt.Sprint(docs) != "[now/h twin/h twin/h]" || e.zcard(keys.Deferred()) != 1 {
		t.Fatalf("stream holds %v and %d deferred; want now, twin, twin and the one due in an hour", docs, e.zcard(keys.Deferred()))
	}
}

// A crawl of dead letters put back while the window is full stops there:
// the rest stay dead letters, and the replay says so.
func TestAdmin_ReplayStopsAtAFullWindow(t *testing.T) {
	t.Parallel()
	e, keys := newWindowEnv(t)
	ctx := context.Background()
	for i := range 20 {
		if err := e.RDB.XAdd(ctx, &redis.XAddArgs{Stream: keys.DLQ(), Values: map[string]interface{}{"doc_id": fmt.Sprintf("dead-%d", i),
			streamkit.DLQFieldOriginal: `["doc_id"]`, streamkit.DLQFieldStage: "w", streamkit.DLQFieldErrorType: "x",
			streamkit.DLQFieldError: "e", streamkit.DLQFieldAttempts: "1"}}).Err(); err != nil {
			t.Fatal(err)
		}
	}
	w := streamkit.NewWindow(e.RDB, e.Prefix, "w", "w-group", 15)
	if _, err := w.Add(ctx, windowMsgs(0, 10)); err != nil {
		t.Fatal(err)
	}
	admin := &streamkit.Admin{RDB: e.RDB, Prefix: e.Prefix, Windows: map[string]*streamkit.Window{"w": w}}
	n, err := admin.DLQReplay(ctx, "w", streamkit.DLQFilter{})
	if n != 5 || !errors.Is(err, streamkit.ErrWindowFull) {
		t.Fatalf("replayed %d (%v); want 5 and a full window", n, err)
	}
	if dl, st := e.xlen(keys.DLQ()), e.xlen(keys.Stream()); dl != 15 || st != 15 {
		t.Fatalf("%d dead letters and %d entries left; want 15 and 15", dl, st)
	}
}

// newWindowEnv is an env with stage "w" read by group "w-group".
func newWindowEnv(t *testing.T) (*env, streamkit.Keys) {
	e := newEnv(t)
	keys := e.keys("w")
	if err := streamkit.EnsureGroup(context.Background(), e.RDB, keys.Stream(), "w-group"); err != nil {
		t.Fatal(err)
	}
	return e, keys
}

// consume reads n entries as consumer "c" of group, acking them if ack.
func (e *env) consume(stage, group string, n int, ack bool) {
	e.T.Helper()
	ctx := context.Background()
	res, err := e.RDB.XReadGroup(ctx, &redis.XReadGroupArgs{Group: group, Consumer: "c", Streams: []string{e.keys(stage).Stream(), ">"},
		Count: int64(n), Block: -1}).Result()
	if err != nil || len(res[0].Messages) != n {
		e.T.Fatalf("read %d: %v", n, err)
	}
	for _, m := range res[0].Messages {
		if ack {
			e.RDB.XAck(ctx, e.keys(stage).Stream(), group, m.ID)
		}
	}
}

func zmembers(n int, prefix string) []redis.Z {
	out := make([]redis.Z, n)
	for i := range out {
		out[i] = redis.Z{Score: float64(time.Now().Add(time.Hour).UnixMilli()), Member: fmt.Sprintf("%s-%d", prefix, i)}
	}
	return out
}
