package main

import (
	"time"

	"github.com/newscrawl/newscrawl/internal/localpg"
	"github.com/newscrawl/newscrawl/internal/localredis"
	"github.com/newscrawl/newscrawl/internal/proctree"
)

// servers are a Redis and a PostgreSQL of the bench's own: the total CPU
// per page (crawler + Redis + PostgreSQL) must not count other tenants'
// work, and work moved from the crawler into SQL must show there.
type servers struct {
	redis *localredis.Server
	pg    *localpg.Server
}

// startServers starts both, the way the machine's own run: Redis without
// persistence, PostgreSQL with its defaults (fsync off, as for tests).
func startServers() (*servers, error) {
	rd, err := localredis.Start()
	if err != nil {
		return nil, err
	}
	pg, err := localpg.Start()
	if err != nil {
		rd.Close()
		return nil, err
	}
	return &servers{redis: rd, pg: pg}, nil
}

func (s *servers) close() {
	s.redis.Close()
	s.pg.Close()
}

// cpu is the user+system CPU both servers have used so far: Redis's
// process, and PostgreSQL's postmaster with every live process below it
// and the backends it has reaped. 0 for nil.
func (s *servers) cpu() time.Duration {
	if s == nil {
		return 0
	}
	pids := []int{s.redis.PID()}
	if pid, err := s.pg.PID(); err == nil {
		pids = append(pids, proctree.Tree(pid)...)
	}
	return time.Duration(proctree.CPUSeconds(pids) * float64(time.Second))
}
