//go:build !unix

package article

import "time"

// processCPU is unavailable here; the benchmark then omits pages/cpu-s.
func processCPU() time.Duration { return 0 }
