package testenv

import (
	"bufio"
	"encoding/json"
	"io"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// StartListening starts cmd, which was told to listen on 127.0.0.1:0, and
// returns the host:port its JSON log says it took: the "addr" or "url" of
// the first line whose "msg" is msg. The kernel picks the port as the
// binary binds it, so no other process can take it in between (a port
// found free and handed over was taken now and then on a busy machine).
// cmd's stderr is its log, at info level (LOG_LEVEL=info is added to its
// environment, as the binaries say it at info); the test fails when cmd exits or says nothing
// of it within a minute, and on failure the log's tail is printed. stop
// ends the process (SIGTERM, then a kill after 30 s); it also runs when
// the test ends.
func StartListening(t testing.TB, cmd *exec.Cmd, msg string) (addr string, stop func()) {
	t.Helper()
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	cmd.Env = append(cmd.Env, "LOG_LEVEL=info") // the last of a name wins
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", cmd.Path, err)
	}
	log := &tail{}
	found := make(chan string, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			log.add(sc.Text())
			if addr := listenedOn(sc.Bytes(), msg); addr != "" {
				select {
				case found <- addr:
				default:
				}
			}
		}
		_, _ = io.Copy(io.Discard, stderr)
	}()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			_ = cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-done:
			case <-time.After(30 * time.Second):
				_ = cmd.Process.Kill()
				<-done
			}
			_ = cmd.Wait() // after the last read of its stderr, as exec asks
		})
	}
	t.Cleanup(func() {
		stop()
		if t.Failed() {
			t.Logf("%s log (last lines):\n%s", cmd.Path, log.String())
		}
	})
	select {
	case addr = <-found:
		return addr, stop
	case <-done:
		t.Fatalf("%s exited before it said %q:\n%s", cmd.Path, msg, log.String())
	case <-time.After(time.Minute):
		t.Fatalf("%s did not say %q within a minute:\n%s", cmd.Path, msg, log.String())
	}
	return "", stop
}

// listenedOn is the host:port of a JSON log line whose msg is msg, or "".
func listenedOn(line []byte, msg string) string {
	var entry struct {
		Msg  string `json:"msg"`
		Addr string `json:"addr"`
		URL  string `json:"url"`
	}
	if json.Unmarshal(line, &entry) != nil || entry.Msg != msg {
		return ""
	}
	if entry.Addr != "" {
		return entry.Addr
	}
	if u, err := url.Parse(entry.URL); err == nil {
		return u.Host
	}
	return ""
}

// tail keeps a log's last 30 lines.
type tail struct {
	mu    sync.Mutex
	lines []string
}

func (l *tail) add(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.lines = append(l.lines, s); len(l.lines) > 30 {
		l.lines = l.lines[1:]
	}
}

func (l *tail) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}
