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
	okTill map[string]time.Time // stage was under the mark; skip checks until then
}

// NewProducer returns a producer for keys under prefix. highWater <= 0
// disables backpressure.
func NewProducer(rdb redis.UniversalClient, prefix string, highWater int64) *Producer {
	return &Producer{rdb: rdb, admin: &Admin{RDB: rdb, Prefix: prefix}, highWater: highWater,
		poll: 100 * time.Millisecond, okTill: map[string]time.Time{}}
}

// Publish appends one message to stage's stream and returns its id. It
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
	id, err := p.rdb.XAdd(ctx, &redis.XAddArgs{Stream: p.admin.keys(stage).Stream(), Values: values}).Result()
	if err != nil {
		return "", fmt.Errorf("publish to %s: %w", stage, err)
	}
	return id, nil
}

// Wait blocks while stage has more than the high-water mark waiting.
func (p *Producer) Wait(ctx context.Context, stage string) error {
	if p.highWater <= 0 {
		return nil
	}
	p.mu.Lock()
	fresh := time.Now().Before(p.okTill[stage])
	p.mu.Unlock()
	if fresh {
		return nil
	}
	for {
		n, err := p.admin.Pressure(ctx, stage)
		if err != nil {
			return err
		}
		if n <= p.highWater {
			if n <= p.highWater/2 { // far from the mark: skip checks for a while
				p.mu.Lock()
				p.okTill[stage] = time.Now().Add(p.poll)
				p.mu.Unlock()
			}
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for %s below %d waiting (now %d): %w", stage, p.highWater, n, ctx.Err())
		case <-time.After(p.poll):
		}
	}
}
