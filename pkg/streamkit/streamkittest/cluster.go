package streamkittest

import (
	"context"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newscrawl/newscrawl/internal/localredis"
)

// A RedisCluster is a Redis Cluster of the test's own: masters (and
// replicas) on free loopback ports, data in a temp folder.
type RedisCluster struct {
	Ports   []int
	servers []*localredis.Server
}

// StartRedisCluster starts n masters (3 at least, as redis-cli requires),
// joins them into a cluster that covers every slot, and waits until it says
// ok; every server is killed when the test ends. It skips the test when
// redis-server or redis-cli is not on the PATH.
func StartRedisCluster(t testing.TB, n int) *RedisCluster {
	t.Helper()
	return startCluster(t, n, 0)
}

// StartRedisClusterWithReplicas is StartRedisCluster with one replica per
// master and a 1 s node timeout, so a killed master's replica takes over
// within seconds.
func StartRedisClusterWithReplicas(t testing.TB, masters int) *RedisCluster {
	t.Helper()
	return startCluster(t, masters, 1)
}

func startCluster(t testing.TB, masters, replicas int) *RedisCluster {
	t.Helper()
	for _, bin := range []string{"redis-server", "redis-cli"} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Skipf("no %s: %v", bin, err)
		}
	}
	c := &RedisCluster{}
	t.Cleanup(c.kill)
	var addrs []string
	for range masters * (1 + replicas) {
		srv, err := localredis.Start("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
			"--cluster-node-timeout", "1000", "--appendonly", "no")
		if err != nil {
			t.Fatal(err)
		}
		c.servers, c.Ports = append(c.servers, srv), append(c.Ports, srv.Port)
		addrs = append(addrs, srv.Addr())
	}
	args := append([]string{"--cluster", "create"}, addrs...)
	args = append(args, "--cluster-replicas", strconv.Itoa(replicas), "--cluster-yes")
	if out, err := exec.Command("redis-cli", args...).CombinedOutput(); err != nil {
		t.Fatalf("redis-cli --cluster create: %v\n%s", err, out)
	}
	c.WaitOK(t)
	return c
}

// WaitOK waits until every live node says cluster_state:ok and, with
// replicas, every replica is in sync.
func (c *RedisCluster) WaitOK(t testing.TB) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		ok := true
		for i, port := range c.Ports {
			if !c.servers[i].Running() {
				continue // killed
			}
			one := redis.NewClient(&redis.Options{Addr: fmt.Sprintf("127.0.0.1:%d", port)})
			info, err := one.ClusterInfo(context.Background()).Result()
			repl, rerr := one.Info(context.Background(), "replication").Result()
			one.Close()
			ok = ok && err == nil && strings.Contains(info, "cluster_state:ok") &&
				rerr == nil && (strings.Contains(repl, "role:master") || strings.Contains(repl, "master_link_status:up"))
		}
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the cluster on %v did not reach cluster_state:ok", c.Ports)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// KillMasterOf SIGKILLs the master that serves key, and returns its port;
// it fails the test when no live node serves the key.
func (c *RedisCluster) KillMasterOf(t testing.TB, key string) int {
	t.Helper()
	master, _ := c.nodesOf(t, key)
	i := c.index(t, master)
	c.servers[i].Kill()
	return c.Ports[i]
}

// StopReplicasOf SIGSTOPs the replicas of the master that serves key, so
// what the master takes from then on is not replicated (replication is
// asynchronous: the master acknowledges writes anyway); resume SIGCONTs
// them. Resume before WaitOK or the test's end.
func (c *RedisCluster) StopReplicasOf(t testing.TB, key string) (resume func()) {
	t.Helper()
	_, replicas := c.nodesOf(t, key)
	if len(replicas) == 0 {
		t.Fatalf("the master of %s has no replica", key)
	}
	var stopped []int
	for _, addr := range replicas {
		i := c.index(t, addr)
		c.servers[i].Signal(syscall.SIGSTOP)
		stopped = append(stopped, i)
	}
	return func() {
		for _, i := range stopped {
			c.servers[i].Signal(syscall.SIGCONT)
		}
	}
}

// nodesOf returns the addresses of the master serving key and of its replicas.
func (c *RedisCluster) nodesOf(t testing.TB, key string) (master string, replicas []string) {
	t.Helper()
	rdb := c.Client(t)
	slot, err := rdb.ClusterKeySlot(context.Background(), key).Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range rdb.ClusterSlots(context.Background()).Val() {
		if int64(s.Start) <= slot && slot <= int64(s.End) {
			master = s.Nodes[0].Addr
			for _, n := range s.Nodes[1:] {
				replicas = append(replicas, n.Addr)
			}
		}
	}
	if master == "" {
		t.Fatalf("no node serves %s (slot %d)", key, slot)
	}
	return master, replicas
}

// index is the position of the live server at addr.
func (c *RedisCluster) index(t testing.TB, addr string) int {
	t.Helper()
	for i, port := range c.Ports {
		if fmt.Sprintf("127.0.0.1:%d", port) == addr && c.servers[i].Running() {
			return i
		}
	}
	t.Fatalf("no live server at %s", addr)
	return 0
}

// URL is the cluster's seed list in go-redis' cluster URL form.
func (c *RedisCluster) URL() string {
	u := fmt.Sprintf("redis://127.0.0.1:%d", c.Ports[0])
	for i, p := range c.Ports[1:] {
		sep := "&"
		if i == 0 {
			sep = "?"
		}
		u += fmt.Sprintf("%saddr=127.0.0.1:%d", sep, p)
	}
	return u
}

// Client is a cluster client; it is closed when the test ends.
func (c *RedisCluster) Client(t testing.TB) *redis.ClusterClient {
	opt, err := redis.ParseClusterURL(c.URL())
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClusterClient(opt)
	t.Cleanup(func() { rdb.Close() })
	return rdb
}

func (c *RedisCluster) kill() {
	for _, srv := range c.servers {
		srv.Close()
	}
}
