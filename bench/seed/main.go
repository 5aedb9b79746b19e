// Command seed is the seeding benchmark of `newsctl seed --file`: it writes
// two seed files and runs the real binary on each, into a schema of its own
// in the bench database — 1,000,000 URLs over 5,000 hosts given as literal
// public addresses (no DNS: the time is parsing and storing), and 100,000
// URLs over 1,000 host names under .invalid, which no resolver answers
// (RFC 6761). It prints each run's time, peak RSS and what the command said
// of the unresolvable hosts. Run it with `make bench-seed`.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

func main() {
	db := flag.String("db", envOr("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/newscrawl_bench?sslmode=disable"), "bench database (its bench_seed schema is recreated)")
	newsctl := flag.String("newsctl", "bin/newsctl", "the newsctl binary to run")
	n := flag.Int("n", 1_000_000, "URLs over literal addresses")
	hosts := flag.Int("hosts", 5000, "literal hosts")
	names := flag.Int("names", 1000, "unresolvable host names")
	perName := flag.Int("per-name", 100, "URLs per unresolvable name")
	flag.Parse()
	if err := run(*db, *newsctl, *n, *hosts, *names, *perName); err != nil {
		fmt.Fprintln(os.Stderr, "bench-seed:", err)
		os.Exit(1)
	}
}

func run(db, newsctl string, n, hosts, names, perName int) error {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, db)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	dir, err := os.MkdirTemp("", "bench-seed")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)

	literal := filepath.Join(dir, "literal.txt")
	if err := writeSeeds(literal, n, func(i int) string {
		h := i % hosts // public, routable-looking addresses; nothing is fetched
		return fmt.Sprintf("http://%d.%d.%d.%d/news/%d/story-%d", 11+h/65536, h/256%256, h%256, 7, i/hosts, i)
	}); err != nil {
		return err
	}
	unresolvable := filepath.Join(dir, "names.txt")
	if err := writeSeeds(unresolvable, names*perName, func(i int) string {
		return fmt.Sprintf("https://site%d.newsroom.invalid/story/%d", i%names, i/names)
	}); err != nil {
		return err
	}

	lit, err := seedRun(ctx, conn, db, newsctl, literal)
	if err != nil {
		return err
	}
	fmt.Printf("literal: %d URLs over %d hosts in %.1f s, peak RSS %d MB: %s\n", n, hosts, lit.seconds, lit.rssMB, lit.summary)
	unres, err := seedRun(ctx, conn, db, newsctl, unresolvable)
	if err != nil {
		return err
	}
	named := strings.Count(unres.stderr, ".newsroom.invalid (")
	fmt.Printf("unresolvable: %d URLs over %d names in %.1f s, peak RSS %d MB, %d hosts named in the refusals (%d lines of stderr): %s\n",
		names*perName, names, unres.seconds, unres.rssMB, named, strings.Count(unres.stderr, "\n"), unres.summary)
	fmt.Printf("seed: %d URLs over %d literal hosts stored in %.1f s (goal ≤ 60 s); %d URLs over %d unresolvable names ended in %.1f s, %d hosts named once each (goal ≤ 60 s + one DNS timeout)\n",
		n, hosts, lit.seconds, names*perName, names, unres.seconds, named)
	return nil
}

type result struct {
	seconds         float64
	rssMB           int64
	summary, stderr string
}

// seedRun recreates the schema and runs newsctl seed --file on it.
func seedRun(ctx context.Context, conn *pgx.Conn, db, newsctl, file string) (result, error) {
	if _, err := conn.Exec(ctx, `DROP SCHEMA IF EXISTS bench_seed CASCADE; CREATE SCHEMA bench_seed`); err != nil {
		return result{}, err
	}
	sep := "?"
	if strings.Contains(db, "?") {
		sep = "&"
	}
	cmd := exec.CommandContext(ctx, newsctl, "seed", "--file", file)
	cmd.Env = append(os.Environ(), "DATABASE_URL="+db+sep+"search_path=bench_seed%2Cpublic", "STREAM_PREFIX=benchseed")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start).Seconds()
	if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 1 && strings.HasPrefix(stdout.String(), "queued") {
		err = nil // some URLs refused
	}
	if err != nil {
		return result{}, fmt.Errorf("newsctl seed: %v\n%s", err, stderr.String())
	}
	var rss int64
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rss = ru.Maxrss / 1024
	}
	return result{took, rss, strings.TrimSpace(stdout.String()), stderr.String()}, nil
}

func writeSeeds(path string, n int, line func(i int) string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	for i := range n {
		fmt.Fprintln(w, line(i))
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}
