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
	"syscall"

	"github.com/newscrawl/newscrawl/internal/app"
	"github.com/newscrawl/newscrawl/internal/config"
	"github.com/newscrawl/newscrawl/internal/version"
)

// A command is one subcommand: its name, the line help shows, and the
// function that parses its own flags and runs it.
type command struct {
	name, summary string
	run           func(ctx context.Context, args []string) error
}

// commands is the whole CLI in one place, in the order help lists it; each
// command lives in its file of the same name.
var commands = []command{
	{"seed", "enqueue seed URLs for the crawler (args or --file, # comments); refuses what the crawler would not fetch", runSeed},
	{"ingest", "take WARC archives in (files, directories, URLs, warc.paths.gz listings, -): --host --since --until --limit --json", runIngest},
	{"wait", "block until every stage is idle, with live progress; then say how it ended", runWait},
	{"stats", "per-stage length, lag, pending, retries, deferrals, DLQ, workers; documents (--watch refreshes)", runStats},
	{"health", "with URL: exit 0 if it answers 200 (container healthchecks); without: every stage's workers and their state", runHealth},
	{"search", `search embedded articles: search "query" [--k 10] [--mode hybrid|vector|lexical] [--json]`, runSearch},
	{"ask", `answer a question from the archive, every sentence citing checked sources: ask "question" [--since --until --host --k --strict --json]`, runAsk},
	{"serve", "the web page (search, documents, pipeline) and the JSON API on 127.0.0.1:8080 (/api/openapi.json)", runServe},
	{"dlq", "dead letters: list, counts, replay, purge", runDLQ},
	{"reconcile", "rebuild the work still owed from PostgreSQL and publish it (after Redis lost state)", runReconcile},
	{"export", "stream documents with their metadata and extraction: --format jsonl|csv [--host --lang --since --until]", runExport},
	{"forget", "remove documents everywhere (URL..., --host, --before, --older-than; --dry-run): takedowns and retention", runForget},
	{"reextract", "enqueue cleaned documents for extraction again (a model change; --fallbacks)", runReextract},
	{"reembed", "enqueue cleaned articles for embedding again (after an embedding model change)", runReembed},
	{"index", "status, build or drop the configured embedding model's HNSW index (around a large backfill)", runIndex},
	{"migrate", "apply database migrations (idempotent)", runMigrate},
	{"demo-site", "serve the synthetic news site `make demo` crawls (offline, on loopback)", runDemoSite},
}

func lookup(name string) (command, bool) {
	for _, c := range commands {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: newsctl <command> [flags] [args]\n\ncommands:")
	for _, c := range commands {
		fmt.Fprintf(os.Stderr, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(os.Stderr, "\nRun 'newsctl <command> -h' for a command's flags, 'newsctl --version' for the build.\nSettings come from the environment (docs/CONFIG.md).")
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
	cmd, ok := lookup(os.Args[1])
	if !ok {
		fmt.Fprintf(os.Stderr, "newsctl: unknown command %q\n\n", os.Args[1])
		usage()
		os.Exit(2)
	}
	// go-redis would print its own pool errors before our one-line message.
	app.RouteRedisLogs(slog.New(slog.DiscardHandler))
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	err := app.Profiled(config.CPUProfile(), func() error { return cmd.run(ctx, os.Args[2:]) })
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
