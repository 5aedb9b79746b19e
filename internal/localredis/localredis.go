// Package localredis runs a redis-server of the caller's own on a free
// loopback port with its data in a temp folder: for tests that kill and
// restart it, and benchmarks that count its CPU with no other tenant in it.
package localredis

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"
)

// ErrNoServer says there is no redis-server on the PATH.
var ErrNoServer = errors.New("no redis-server on the PATH")

// A Server is one redis-server; Close kills it and removes its data.
type Server struct {
	dir  string
	Port int
	args []string
	cmd  *exec.Cmd
}

// Start starts a server with the extra arguments args (e.g. "--appendonly",
// "yes") and waits until it answers.
func Start(args ...string) (*Server, error) {
	if _, err := exec.LookPath("redis-server"); err != nil {
		return nil, ErrNoServer
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	dir, err := os.MkdirTemp("", "localredis-")
	if err != nil {
		return nil, err
	}
	s := &Server{dir: dir, Port: port, args: args}
	if err := s.Start(); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// Start starts the server (again, after Kill) on the same port and data,
// and waits until it answers.
func (s *Server) Start() error {
	args := append([]string{"--port", strconv.Itoa(s.Port), "--bind", "127.0.0.1", "--dir", s.dir,
		"--save", "", "--logfile", filepath.Join(s.dir, "log")}, s.args...)
	s.cmd = exec.Command("redis-server", args...)
	if err := s.cmd.Start(); err != nil {
		return fmt.Errorf("start redis-server: %w", err)
	}
	rdb := redis.NewClient(&redis.Options{Addr: s.Addr()})
	defer rdb.Close()
	deadline := time.Now().Add(20 * time.Second)
	for rdb.Ping(context.Background()).Err() != nil {
		if time.Now().After(deadline) {
			return fmt.Errorf("redis-server on %s did not answer within 20 s", s.Addr())
		}
		time.Sleep(20 * time.Millisecond)
	}
	return nil
}

// Kill ends the server at once (SIGKILL) and waits for it to exit.
func (s *Server) Kill() {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGKILL)
	_ = s.cmd.Wait()
	s.cmd = nil
}

// Close kills the server and removes its data.
func (s *Server) Close() {
	s.Kill()
	os.RemoveAll(s.dir)
}

// PID is the server's process id (0 when it is not running).
func (s *Server) PID() int {
	if s.cmd == nil || s.cmd.Process == nil {
		return 0
	}
	return s.cmd.Process.Pid
}

// Addr is host:port.
func (s *Server) Addr() string { return fmt.Sprintf("127.0.0.1:%d", s.Port) }

// URL is the server's redis:// URL, database 0.
func (s *Server) URL() string { return "redis://" + s.Addr() + "/0" }
