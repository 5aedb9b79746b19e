package app

import (
	"errors"
	"flag"
	"fmt"
	"os"
)

// Main runs a binary's run function with the process arguments and exits:
// 0 on success, 2 after -h, 1 with "name: error" on stderr otherwise.
func Main(name string, run func(args []string) error) {
	err := run(os.Args[1:])
	switch {
	case err == nil:
		os.Exit(0)
	case errors.Is(err, flag.ErrHelp):
		os.Exit(2)
	default:
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		os.Exit(1)
	}
}
