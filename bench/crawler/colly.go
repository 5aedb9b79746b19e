package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// buildPeer builds the colly peer from its own module (bench/colly), so
// colly never enters the main module's dependencies.
func buildPeer(ctx context.Context, dir, out string) (string, error) {
	bin := filepath.Join(out, "collypeer")
	cmd := exec.CommandContext(ctx, goTool(), "build", "-o", bin, ".")
	cmd.Dir = dir
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("build the colly peer in %s: %w: %s", dir, err, strings.TrimSpace(buf.String()))
	}
	return bin, nil
}

// peer runs the colly peer as a child process over the same site and
// reads its CPU time and peak RSS from its rusage.
func peer(ctx context.Context, o *options, s *site, delay time.Duration) (result, error) {
	r := result{who: "colly", n: s.n, delay: delay}
	cmd := exec.CommandContext(ctx, o.collyBin, "-seed", s.seed(), "-hosts", strings.Join(s.addrs(), ","),
		"-parallelism", strconv.Itoa(o.concurrency), "-delay", delay.String(), "-max-depth", strconv.Itoa(maxDepth+1))
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	cmd.WaitDelay = stopWait
	if err := cmd.Run(); err != nil {
		return r, fmt.Errorf("colly peer: %w: %s", err, tail(errOut.String(), 20))
	}
	r.site = s.snapshot()
	var elapsed float64
	var requests int64
	if _, err := fmt.Sscanf(strings.TrimSpace(out.String()), "requests=%d errors=%d elapsed_s=%g", &requests, &r.errors, &elapsed); err != nil {
		return r, fmt.Errorf("colly peer printed %q: %w", out.String(), err)
	}
	r.wall = time.Duration(elapsed * float64(time.Second))
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return r, errors.New("colly peer: no rusage")
	}
	r.cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	r.rssKB = ru.Maxrss // KiB on Linux
	return r, nil
}
