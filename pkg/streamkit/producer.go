package streamkit

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// A Producer publishes messages onto stage streams. With a high-water mark
// it blocks while the target stage has more than that much work waiting
// (lag + pending of its busiest group), so a burst cannot flood Redis.
type Producer struct {
	rdb       redis.UniversalClient
	admin     *Admin
	highWater int64
	poll      time.Duration

	mu     sync.Mutex
	budget map[string]int64 // publishes allowed before the next check: mark minus last pressure
}

// NewProducer returns a producer for keys under prefix. highWater <= 0
// disables backpressure.
func NewProducer(rdb redis.UniversalClient, prefix string, highWater int64) *Producer {
	return &Producer{rdb: rdb, admin: &Admin{RDB: rdb, Prefix: prefix}, highWater: highWater,
		poll: 100 * time.Millisecond, budget: map[string]int64{}}
}

// WithPartitions makes p publish to the partition of each message's doc_id
// on partitioned stages, and watch every partition's pressure; it returns p.
func (p *Producer) WithPartitions(parts Partitions) *Producer {
	p.admin.Partitions = parts
	return p
}

// Publish appends one message to stage's stream (the partition of its
// doc_id on a partitioned stage) and returns its id. It
// waits while the stage is over the high-water mark and returns ctx's error
// if ctx ends first.
func (p *Producer) Publish(ctx context.Context, stage string, fields map[string]string) (string, error) {
	if err := p.Wait(ctx, stage); err != nil {
		return "", err
	}
	values := make([]interface{}, 0, 2*len(fields))
	for k, v := range fields {
		values = append(values, k, v)
	}
	id, err := p.rdb.XAdd(ctx, &redis.XAddArgs{Stream: p.admin.Partitions.Route(p.admin.Prefix, stage, fields).Stream(), Values: values}).Result()
	if err != nil {
		return "", fmt.Errorf("publish to %s: %w", stage, err)
	}
	return id, nil
}

// Wait blocks while stage has the high-water mark or more waiting.
func (p *Producer) Wait(ctx context.Context, stage string) error { return p.WaitN(ctx, stage, 1) }

// WaitN is Wait for n messages about to be added to stage. Between checks
// of the stage's pressure it lets through as many messages as there was
// room for, so most calls cost no round trip. It returns Pressure's error,
// or ctx's if ctx ends first.
func (p *Producer) WaitN(ctx context.Context, stage string, n int64) error {
	if p.highWater <= 0 {
		return nil
	}
	p.mu.Lock()
	if p.budget[stage] >= n {
		p.budget[stage] -= n
		p.mu.Unlock()
		return nil
	}
	p.mu.Unlock()
	for {
		waiting, err := p.admin.Pressure(ctx, stage)
		if err != nil {
			return err
		}
		if waiting < p.highWater {
			// Room for highWater-waiting more even if nobody consumes:
			// these n take their share, the next check comes when the
			// rest is used.
			p.mu.Lock()
			p.budget[stage] = max(p.highWater-waiting-n, 0)
			p.mu.Unlock()
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for %s below %d waiting (now %d): %w", stage, p.highWater, waiting, ctx.Err())
		case <-time.After(p.poll):
		}
	}
}
