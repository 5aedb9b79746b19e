// Command newsctl is NewsCrawl's operator and query CLI: migrate, seed,
// stats, wait, dlq, search, serve and backfills. Each subcommand lives in
// its own file and parses its own flags.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"sort"
	"syscall"

	"github.com/newscrawl/newscrawl/internal/app"
	"github.com/newscrawl/newscrawl/internal/version"
)

// A command is one subcommand.
type command struct {
	summary string
	run     func(ctx context.Context, args []string) error
}

// commands is filled by each subcommand file's init.
var commands = map[string]command{}

func register(name, summary string, run func(ctx context.Context, args []string) error) {
	commands[name] = command{summary: summary, run: run}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: newsctl <command> [flags] [args]\n\ncommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(os.Stderr, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(os.Stderr, "\nRun 'newsctl <command> -h' for a command's flags. Settings come from the environment (docs/CONFIG.md).")
}

func main() {
	if len(os.Args) < 2 {
		usage()
		os.Exit(2)
	}
	switch os.Args[1] {
	case "-h", "--help", "help":
		usage()
		os.Exit(0)
	case "-version", "--version", "version":
		fmt.Println("newsctl " + version.String())
		os.Exit(0)
	}
	cmd, ok := commands[os.Args[1]]
	if !ok {
		fmt.Fprintf(os.Stderr, "newsctl: unknown command %q\n\n", os.Args[1])
		usage()
		os.Exit(2)
	}
	// go-redis would print its own pool errors before our one-line message.
	app.RouteRedisLogs(slog.New(slog.DiscardHandler))
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	err := cmd.run(ctx, os.Args[2:])
	stop()
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		var ec exitCode
		if errors.As(err, &ec) {
			os.Exit(int(ec))
		}
		fmt.Fprintf(os.Stderr, "newsctl %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
}

// exitCode ends newsctl with a given status without printing an error.
type exitCode int

func (e exitCode) Error() string { return fmt.Sprintf("exit status %d", int(e)) }
