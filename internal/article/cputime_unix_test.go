//go:build unix

package article

import (
	"syscall"
	"time"
)

// processCPU is the user+system CPU time of this process, so the benchmark
// can report throughput per CPU-second, which other load on the machine
// does not distort.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
