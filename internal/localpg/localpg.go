// Package localpg runs a PostgreSQL cluster of the caller's own: the
// machine's server binaries (so it has the machine's extensions, pgvector
// among them), a temp folder for its data, a free loopback port. Tests that
// stop the server and benchmarks that need settings the shared server does
// not have (shared_buffers, or no other tenant in its CPU figures) use it.
package localpg

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/newscrawl/newscrawl/internal/loopback"
)

// A Server is one cluster; Close stops it and removes its data.
type Server struct {
	bin      string
	dir      string
	Port     int
	settings []string
}

// Start initialises a cluster (trust authentication, user postgres, fsync
// off) and starts it. Settings are extra server settings, "name=value"
// each, e.g. "shared_buffers=4GB". When run as root the server binaries run
// as the postgres user (initdb and postgres refuse root).
func Start(settings ...string) (*Server, error) {
	bin, err := binDir()
	if err != nil {
		return nil, err
	}
	port, err := loopback.FreePort()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "localpg-")
	if err != nil {
		return nil, err
	}
	s := &Server{bin: bin, dir: dir, Port: port, settings: settings}
	if err := os.Chmod(dir, 0o777); err != nil {
		s.Close()
		return nil, err
	}
	if out, err := s.run("initdb", "-D", s.data(), "-A", "trust", "-U", "postgres", "--no-sync"); err != nil {
		s.Close()
		return nil, fmt.Errorf("initdb: %w\n%s", err, out)
	}
	// Another process can take the free port before the server binds it:
	// then the server is started again on another port.
	for attempt := 1; ; attempt++ {
		err := s.Start()
		if err == nil {
			return s, nil
		}
		if attempt == 3 || !strings.Contains(err.Error(), "could not bind") {
			s.Close()
			return nil, err
		}
		if s.Port, err = loopback.FreePort(); err != nil {
			s.Close()
			return nil, err
		}
	}
}

// ErrNoServer says the machine has no PostgreSQL server binaries.
var ErrNoServer = errors.New("no PostgreSQL server binaries (pg_config --bindir, /usr/lib/postgresql/*/bin)")

func binDir() (string, error) {
	if out, err := exec.Command("pg_config", "--bindir").Output(); err == nil {
		if dir := strings.TrimSpace(string(out)); fileExists(filepath.Join(dir, "initdb")) {
			return dir, nil
		}
	}
	matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(matches) == 0 {
		return "", ErrNoServer
	}
	return filepath.Dir(matches[len(matches)-1]), nil
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

func (s *Server) data() string { return filepath.Join(s.dir, "data") }

func (s *Server) run(name string, args ...string) ([]byte, error) {
	path := filepath.Join(s.bin, name)
	var cmd *exec.Cmd
	if os.Geteuid() == 0 {
		cmd = exec.Command("runuser", append([]string{"-u", "postgres", "--", path}, args...)...)
	} else {
		cmd = exec.Command(path, args...)
	}
	return cmd.CombinedOutput()
}

// Start starts the server (again, after Stop) and waits until it accepts
// connections.
func (s *Server) Start() error {
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=100", s.Port, s.dir)
	for _, kv := range s.settings {
		opts += " -c " + kv
	}
	if out, err := s.run("pg_ctl", "-D", s.data(), "-o", opts, "-l", filepath.Join(s.dir, "log"), "-w", "start"); err != nil {
		return fmt.Errorf("start postgres: %w\n%s%s", err, out, s.logTail())
	}
	return nil
}

func (s *Server) logTail() string {
	b, _ := os.ReadFile(filepath.Join(s.dir, "log"))
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return string(b)
}

// Stop shuts the server down (fast: connections are closed with an admin
// shutdown error) and waits until it is gone.
func (s *Server) Stop() error {
	if out, err := s.run("pg_ctl", "-D", s.data(), "-m", "fast", "-w", "stop"); err != nil {
		return fmt.Errorf("stop postgres: %w\n%s", err, out)
	}
	return nil
}

// Close stops the server at once, if it runs, and removes its data.
func (s *Server) Close() {
	s.run("pg_ctl", "-D", s.data(), "-m", "immediate", "stop")
	os.RemoveAll(s.dir)
}

// URL is the URL of database db on the server ("postgres" when empty).
func (s *Server) URL(db string) string {
	if db == "" {
		db = "postgres"
	}
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", s.Port, db)
}

// PID is the postmaster's process id: its children are the server's
// backends and workers, for CPU accounting.
func (s *Server) PID() (int, error) {
	b, err := os.ReadFile(filepath.Join(s.data(), "postmaster.pid"))
	if err != nil {
		return 0, err
	}
	line, _, _ := strings.Cut(string(b), "\n")
	return strconv.Atoi(strings.TrimSpace(line))
}
