package streamkit_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/newscrawl/newscrawl/pkg/streamkit/streamkittest"
)

// clusterPrefix names the subtests that run on a Redis Cluster.
const clusterPrefix = "TestFailureMatrixOnRedisCluster/"

var cluster struct {
	sync.Mutex
	rdb redis.UniversalClient
}

func onCluster(t *testing.T) redis.UniversalClient {
	if !strings.HasPrefix(t.Name(), clusterPrefix) {
		return nil
	}
	cluster.Lock()
	defer cluster.Unlock()
	return cluster.rdb
}

// The failure matrix again, on a Redis Cluster of three masters: retries,
// dead letters and replay, deferrals, leases, reclaim and poison, where
// every key of a stage must share a slot, the hand-off crosses slots, and
// a partitioned stage's partitions sit on different masters.
func TestFailureMatrixOnRedisCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Redis Cluster")
	}
	c := streamkittest.StartRedisCluster(t, 3)
	cluster.Lock()
	cluster.rdb = c.Client(t)
	cluster.Unlock()
	for name, test := range map[string]func(*testing.T){
		"processes, commits, forwards, acks": TestConsumer_ProcessesCommitsForwardsAndAcks,
		"reclaims from a stopped consumer":   TestConsumer_ReclaimsFromStoppedConsumer,
		"crash between commit and ack":       TestConsumer_CrashBetweenCommitAndAck,
		"keeps the lease of a slow handler":  TestConsumer_KeepsLeaseOfSlowHandler,
		"poison to the DLQ":                  TestConsumer_PoisonGoesToDLQ,
		"retries, dead letter, replay":       TestConsumer_RetriesThenDeadLettersThenReplays,
		"last attempt dead-letters":          TestConsumer_LastAttemptDeadLetters,
		"bad input dead-lettered":            TestConsumer_BadInputDeadLettered,
		"concurrent promoters":               TestPromote_ConcurrentPromotersMoveEachRetryOnce,
		"downstream high-water":              TestConsumer_DownstreamStopsAtItsHighWaterMark,
		"trim never past a group":            TestTrim_NeverPastWhatAGroupNeeds,
		"later is no failure":                TestConsumer_LaterIsNoFailure,
		"two consumers, one retry":           TestConsumer_TwoConsumersFailingOneEntryRetryOnce,
		"many consumers, random failures":    TestConsumer_ManyConsumersRandomFailures,
		"partitioned stage":                  TestConsumer_PartitionedStage,
		"partitioned reclaim":                TestConsumer_PartitionedReclaim,
		"former partition count":             TestConsumer_ReadsAFormerPartitionCount,
	} {
		t.Run(name, test)
	}
}
