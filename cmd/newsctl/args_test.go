package main

import (
	"flag"
	"slices"
	"testing"
)

// A flag after an argument is a flag, not an argument: `forget URL
// --dry-run` must be a dry run.
func TestPositionalTakesFlagsAfterArguments(t *testing.T) {
	fs := flag.NewFlagSet("forget", flag.ContinueOnError)
	dry := fs.Bool("dry-run", false, "")
	host := fs.String("host", "", "")
	if err := fs.Parse([]string{"https://a.example/1", "--dry-run", "https://a.example/2", "--host", "b.example"}); err != nil {
		t.Fatal(err)
	}
	args, err := positional(fs)
	if err != nil {
		t.Fatal(err)
	}
	if !*dry || *host != "b.example" || !slices.Equal(args, []string{"https://a.example/1", "https://a.example/2"}) {
		t.Fatalf("dry-run %v, host %q, args %q", *dry, *host, args)
	}
}
