package localpg

import (
	"errors"
	"net"
	"strings"
	"testing"
)

// A server whose port another process holds fails to start with "could not
// bind" in its error: the message on which Start tries another port.
func TestStart_TakenPortSaysCouldNotBind(t *testing.T) {
	srv, err := Start()
	if errors.Is(err, ErrNoServer) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	if err := srv.Stop(); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	own := srv.Port
	srv.Port = ln.Addr().(*net.TCPAddr).Port
	if err := srv.Start(); err == nil || !strings.Contains(err.Error(), "could not bind") {
		t.Fatalf("start on a taken port: %v, want a could-not-bind error", err)
	}
	srv.Port = own
	if err := srv.Start(); err != nil {
		t.Fatalf("start again on its own port: %v", err)
	}
}
