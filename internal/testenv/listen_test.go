package testenv

import (
	"os/exec"
	"testing"
)

// The address comes from the first line that says the message, whether as
// "addr" or in a "url"; other lines and lines that are not JSON are passed
// over, and stop ends the process.
func TestStartListening_ReadsTheAddressTheLogGives(t *testing.T) {
	for _, tc := range []struct{ name, log, want string }{
		{"addr", `echo 'starting'; echo '{"msg":"other","addr":"127.0.0.1:1"}'; echo '{"msg":"serving","addr":"127.0.0.1:40123"}'`, "127.0.0.1:40123"},
		{"url", `echo '{"msg":"serving","url":"http://127.0.0.1:40124/"}'`, "127.0.0.1:40124"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command("sh", "-c", "("+tc.log+") >&2; exec sleep 60")
			addr, stop := StartListening(t, cmd, "serving")
			if addr != tc.want {
				t.Errorf("address %q, want %q", addr, tc.want)
			}
			stop()
			if cmd.ProcessState == nil {
				t.Error("stop returned before the process was reaped")
			}
		})
	}
}
