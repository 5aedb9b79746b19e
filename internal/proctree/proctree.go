// Package proctree reads a process and those it started from /proc: the
// renderer watches Chromium's processes with it (memory), its bench counts
// their CPU, tests find the browser to kill.
package proctree

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// stat returns the fields of /proc/pid/stat after the command name (which
// may hold spaces and parentheses): state, ppid, …
func stat(pid int) []string {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return nil
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return nil
	}
	return strings.Fields(string(b[i+1:]))
}

// parents maps every process to its children.
func parents() map[int][]int {
	children := map[int][]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if f := stat(p); len(f) > 1 {
			if pp, err := strconv.Atoi(f[1]); err == nil {
				children[pp] = append(children[pp], p)
			}
		}
	}
	return children
}

// Children lists the processes whose parent is pid.
func Children(pid int) []int { return parents()[pid] }

// Tree lists pid and every live process below it; nil for pid <= 0.
func Tree(pid int) []int {
	if pid <= 0 {
		return nil
	}
	children := parents()
	out := []int{pid}
	for i := 0; i < len(out); i++ {
		out = append(out, children[out[i]]...)
	}
	return out
}

// Sum adds up the kB field named key (e.g. "VmRSS:" of "status", "Pss:" of
// "smaps_rollup") of /proc/PID/file over pids, in bytes.
func Sum(pids []int, file, key string) int64 {
	var total int64
	for _, p := range pids {
		f, err := os.Open(filepath.Join("/proc", strconv.Itoa(p), file))
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if rest, ok := strings.CutPrefix(sc.Text(), key); ok {
				if kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64); err == nil {
					total += kb << 10
				}
				break
			}
		}
		f.Close()
	}
	return total
}

// CPUSeconds is the user and system time of pids, with that of the
// children each has reaped.
func CPUSeconds(pids []int) float64 {
	var ticks int64
	for _, p := range pids {
		f := stat(p)
		if len(f) <= 14 {
			continue
		}
		for _, i := range []int{11, 12, 13, 14} { // utime, stime, cutime, cstime
			v, _ := strconv.ParseInt(f[i], 10, 64)
			ticks += v
		}
	}
	return float64(ticks) / 100 // USER_HZ
}
