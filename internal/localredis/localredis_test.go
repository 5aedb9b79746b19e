package localredis

import (
	"errors"
	"os/exec"
	"strings"
	"testing"
)

// A server whose port another process took exits at once; Start says so,
// with redis-server's reason, instead of waiting out its 20 s for an answer
// that cannot come, so the package's Start can try another port.
func TestStart_TakenPortFailsFastWithTheReason(t *testing.T) {
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Skip(err)
	}
	first, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()

	second := &Server{dir: t.TempDir(), Port: first.Port}
	err = second.Start()
	if !errors.Is(err, errExited) {
		t.Fatalf("a second server on a taken port: %v, want %v", err, errExited)
	}
	if !strings.Contains(err.Error(), "Failed listening") {
		t.Errorf("the error does not carry redis-server's reason: %v", err)
	}
	if second.Running() {
		t.Error("the server that exited is still counted as running")
	}
	if first.Kill(); first.Running() {
		t.Error("a killed server is still counted as running")
	}
}
