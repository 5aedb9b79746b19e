package testenv

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Procs runs built binaries as one test's worker processes: each named,
// logged to a file of its own, stopped with SIGTERM (and expected to exit
// 0), and any exit the test did not cause is recorded. Processes still
// running when the test ends are killed, and on failure the tail of every
// log is printed.
type Procs struct {
	t       testing.TB
	logs    string
	environ []string

	mu         sync.Mutex
	procs      map[string]*proc
	unexpected []string
}

type proc struct {
	cmd      *exec.Cmd
	expected bool // its exit was caused by the test
	exited   chan struct{}
}

// NewProcs returns the processes of t, started with environ.
func NewProcs(t testing.TB, environ []string) *Procs {
	p := &Procs{t: t, logs: t.TempDir(), environ: environ, procs: map[string]*proc{}}
	t.Cleanup(p.cleanup)
	return p
}

// Start runs binary (a path) as name, with extra environment variables.
func (p *Procs) Start(name, binary string, extra ...string) {
	p.t.Helper()
	f, err := os.OpenFile(filepath.Join(p.logs, name+".log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		p.t.Fatal(err)
	}
	cmd := exec.Command(binary)
	cmd.Env = append(append([]string{}, p.environ...), extra...)
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Start(); err != nil {
		p.t.Fatalf("start %s: %v", name, err)
	}
	pr := &proc{cmd: cmd, exited: make(chan struct{})}
	p.mu.Lock()
	p.procs[name] = pr
	p.mu.Unlock()
	go func() {
		err := cmd.Wait()
		f.Close()
		p.mu.Lock()
		if !pr.expected {
			p.unexpected = append(p.unexpected, fmt.Sprintf("%s exited on its own: %v", name, err))
		}
		p.mu.Unlock()
		close(pr.exited)
	}()
}

// Stop sends name SIGTERM and waits; the test fails unless it exits 0
// within a minute.
func (p *Procs) Stop(name string) {
	p.t.Helper()
	p.mu.Lock()
	pr := p.procs[name]
	pr.expected = true
	p.mu.Unlock()
	_ = pr.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-pr.exited:
		if code := pr.cmd.ProcessState.ExitCode(); code != 0 {
			p.t.Errorf("%s exited %d after SIGTERM", name, code)
		}
	case <-time.After(time.Minute):
		_ = pr.cmd.Process.Kill()
		p.t.Errorf("%s did not stop within a minute of SIGTERM", name)
	}
}

// Unexpected lists the exits the test did not cause.
func (p *Procs) Unexpected() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.unexpected...)
}

func (p *Procs) cleanup() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for name, pr := range p.procs {
		if pr.cmd.ProcessState == nil {
			pr.expected = true
			_ = pr.cmd.Process.Kill()
		}
		if p.t.Failed() {
			b, _ := os.ReadFile(filepath.Join(p.logs, name+".log"))
			lines := strings.Split(string(b), "\n")
			p.t.Logf("%s log (last 30 lines):\n%s", name, strings.Join(lines[max(0, len(lines)-30):], "\n"))
		}
	}
}

// Run runs a command (newsctl, say) to the end with the processes'
// environment and returns its combined output and exit error.
func (p *Procs) Run(binary string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Env = p.environ
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// BuildRelease builds the binaries of an earlier commit of the repository
// at root (git archive of commit, built like Build) and returns their folder.
func BuildRelease(t testing.TB, root, commit string) string {
	t.Helper()
	src := t.TempDir()
	archive := exec.Command("git", "-C", root, "archive", "--format=tar", commit)
	untar := exec.Command("tar", "-x", "-C", src)
	pipe, err := archive.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	untar.Stdin = pipe
	var stderr strings.Builder
	archive.Stderr = &stderr
	if err := untar.Start(); err != nil {
		t.Fatal(err)
	}
	if err := archive.Run(); err != nil {
		t.Fatalf("git archive %s: %v: %s (a shallow clone lacks it: git fetch --unshallow)", commit, err, stderr.String())
	}
	if err := untar.Wait(); err != nil {
		t.Fatalf("untar %s: %v", commit, err)
	}
	return Build(t, src)
}
