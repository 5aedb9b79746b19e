// Package loopback finds free ports on the loopback interface, for the
// servers tests start of their own (localpg, localredis, streamkittest).
package loopback

import "net"

// FreePort returns a loopback TCP port nobody listens on right now. Another
// process may take it before the caller binds it: callers that start a
// server on it retry on another port when the bind fails.
func FreePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}
