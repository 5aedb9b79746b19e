package app

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime/pprof"

	"github.com/newscrawl/newscrawl/internal/config"
	"github.com/newscrawl/newscrawl/internal/version"
)

// Main runs a binary's run function with the process arguments and exits:
// 0 on success and after -h or --version, 1 with "name: error" on stderr
// otherwise.
// With CPU_PROFILE=FILE in the environment the whole run is CPU-profiled
// into FILE (for `go tool pprof`; written when run returns).
func Main(name string, run func(args []string) error) {
	if len(os.Args) > 1 && (os.Args[1] == "--version" || os.Args[1] == "-version") {
		fmt.Println(name + " " + version.String())
		os.Exit(0)
	}
	err := Profiled(config.CPUProfile(), func() error { return run(os.Args[1:]) })
	switch {
	case err == nil:
		os.Exit(0)
	case errors.Is(err, flag.ErrHelp):
		os.Exit(0)
	default:
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		os.Exit(1)
	}
}

// Profiled runs run, CPU-profiled into file unless file is "".
func Profiled(file string, run func() error) error {
	if file == "" {
		return run()
	}
	f, err := os.Create(file)
	if err != nil {
		return fmt.Errorf("CPU_PROFILE: %w", err)
	}
	defer f.Close()
	if err := pprof.StartCPUProfile(f); err != nil {
		return fmt.Errorf("CPU_PROFILE: %w", err)
	}
	defer pprof.StopCPUProfile()
	return run()
}
