// Package localredis runs a redis-server of the caller's own on a free
// loopback port with its data in a temp folder: for tests that kill and
// restart it, and benchmarks that count its CPU with no other tenant in it.
package localredis

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newscrawl/newscrawl/internal/loopback"
)

// ErrNoServer says there is no redis-server on the PATH.
var ErrNoServer = errors.New("no redis-server on the PATH")

// errExited says the server exited before it answered.
var errExited = errors.New("exited before it answered")

// A Server is one redis-server; Close kills it and removes its data.
type Server struct {
	dir    string
	Port   int
	args   []string
	cmd    *exec.Cmd
	exited chan struct{} // closed once cmd has exited
}

// Start starts a server with the extra arguments args (e.g. "--appendonly",
// "yes") and waits until it answers. A free port can be taken by another
// process before redis-server binds it, so a server that exits before it
// answers is started again on another port.
func Start(args ...string) (*Server, error) {
	if _, err := exec.LookPath("redis-server"); err != nil {
		return nil, ErrNoServer
	}
	dir, err := os.MkdirTemp("", "localredis-")
	if err != nil {
		return nil, err
	}
	s := &Server{dir: dir, args: args}
	for attempt := 1; ; attempt++ {
		if s.Port, err = freePort(); err == nil {
			err = s.Start()
		}
		if err == nil {
			return s, nil
		}
		if attempt == 3 || !errors.Is(err, errExited) {
			s.Close()
			return nil, err
		}
	}
}

// freePort returns a loopback port that is free, and whose cluster bus port
// (10000 higher, which Redis Cluster needs) is free and valid too.
func freePort() (int, error) {
	for range 50 {
		port, err := loopback.FreePort()
		if err != nil {
			return 0, err
		}
		if port > 65535-10000 {
			continue
		}
		bus, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port+10000))
		if err != nil {
			continue
		}
		bus.Close()
		return port, nil
	}
	return 0, errors.New("no free loopback port pair for redis-server")
}

// Start starts the server (again, after Kill) on the same port and data,
// and waits until it answers.
func (s *Server) Start() error {
	args := append([]string{"--port", strconv.Itoa(s.Port), "--bind", "127.0.0.1", "--dir", s.dir,
		"--save", "", "--logfile", s.logPath()}, s.args...)
	cmd := exec.Command("redis-server", args...)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start redis-server: %w", err)
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	s.cmd, s.exited = cmd, exited
	rdb := redis.NewClient(&redis.Options{Addr: s.Addr(), MaxRetries: -1})
	defer rdb.Close()
	deadline := time.Now().Add(20 * time.Second)
	for !s.answers(rdb) {
		select {
		case <-exited:
			s.cmd = nil
			return fmt.Errorf("redis-server on %s %w: %s", s.Addr(), errExited, s.lastLogLine())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			s.Kill()
			return fmt.Errorf("redis-server on %s did not answer within 20 s: %s", s.Addr(), s.lastLogLine())
		}
	}
	return nil
}

// answers says whether this server answers on its port: another test's
// server that took the port first would answer too.
func (s *Server) answers(rdb *redis.Client) bool {
	info, err := rdb.Info(context.Background(), "server").Result()
	return err == nil && strings.Contains(info, fmt.Sprintf("process_id:%d\r\n", s.cmd.Process.Pid))
}

func (s *Server) logPath() string { return filepath.Join(s.dir, "log") }

// lastLogLine is the server's last log line: why it stopped, when it did.
func (s *Server) lastLogLine() string {
	b, _ := os.ReadFile(s.logPath())
	lines := bytes.Split(bytes.TrimSpace(b), []byte("\n"))
	return string(lines[len(lines)-1])
}

// Kill ends the server at once (SIGKILL) and waits for it to exit.
func (s *Server) Kill() {
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGKILL)
	<-s.exited
	s.cmd = nil
}

// Signal sends sig to the running server (SIGSTOP to freeze it, SIGCONT to
// let it go on); it does nothing when the server is not running.
func (s *Server) Signal(sig syscall.Signal) {
	if s.cmd != nil {
		_ = s.cmd.Process.Signal(sig)
	}
}

// Running says whether the server has been started and not killed.
func (s *Server) Running() bool { return s.cmd != nil }

// Close kills the server and removes its data.
func (s *Server) Close() {
	s.Kill()
	os.RemoveAll(s.dir)
}

// PID is the server's process id (0 when it is not running).
func (s *Server) PID() int {
	if s.cmd == nil {
		return 0
	}
	return s.cmd.Process.Pid
}

// Addr is host:port.
func (s *Server) Addr() string { return fmt.Sprintf("127.0.0.1:%d", s.Port) }

// URL is the server's redis:// URL, database 0.
func (s *Server) URL() string { return "redis://" + s.Addr() + "/0" }
