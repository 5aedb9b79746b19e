#!/usr/bin/env bash
# bench-cleaner.sh: article-extraction quality (F1 on the extraction-bench
# dataset, via the external evaluator) and in-process speed of the cleaner.
# Run from the repository root. The last line printed is "F1=<value>".
set -euo pipefail

BENCH_TOOL_DIR=${BENCH_TOOL_DIR:-../shared/extractbench}
DATASET=${EXTRACTION_BENCH_DIR:-../shared/extraction-bench}
BENCHTIME=${BENCHTIME:-543x} # three passes over the 181 pages

if [[ ! -f go.mod || ! -d cmd/cleaner ]]; then
	echo "bench-cleaner: run from the repository root" >&2
	exit 2
fi
if [[ ! -f "$DATASET/ground-truth.json" ]]; then
	echo "bench-cleaner: dataset not found at $DATASET (set EXTRACTION_BENCH_DIR)" >&2
	exit 2
fi
DATASET=$(cd "$DATASET" && pwd)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "== building evaluator ($BENCH_TOOL_DIR) and ./bin/cleaner"
(cd "$BENCH_TOOL_DIR" && go build -o "$tmp/extractbench" .)
mkdir -p bin
go build -o bin/cleaner ./cmd/cleaner

echo "== in-process speed (GOMAXPROCS=1, BenchmarkExtract, $BENCHTIME)"
bench_out=$(GOMAXPROCS=1 EXTRACTION_BENCH_DIR="$DATASET" \
	go test -run '^$' -bench '^BenchmarkExtract$' -benchtime="$BENCHTIME" ./internal/article)
echo "$bench_out" | grep -E '^(Benchmark|cpu:)' || true
metric() { echo "$bench_out" | awk -v unit="$1" '/^BenchmarkExtract/ { for (i = 1; i < NF; i++) if ($(i+1) == unit) print $i }'; }
pages_per_s=$(metric pages/s)          # wall clock, one core
pages_per_cpu_s=$(metric pages/cpu-s) # CPU time: robust when the machine is busy

echo "== quality (evaluator, one cleaner process per page)"
eval_out=$("$tmp/extractbench" run -cmd "$PWD/bin/cleaner extract {}" -worst 10 "$DATASET")
echo "$eval_out"
row=$(echo "$eval_out" | awk '$2 == "cmd" { print; exit }')
f1=$(echo "$row" | awk '{ print $4 }')
precision=$(echo "$row" | awk '{ print $7 }')
recall=$(echo "$row" | awk '{ print $10 }')

echo "== summary"
echo "precision=$precision recall=$recall f1=$f1"
echo "in-process, GOMAXPROCS=1: pages/s=${pages_per_s:-n/a} (wall) pages/cpu-s=${pages_per_cpu_s:-n/a}"
echo "$eval_out" | grep -E '^F1=' | tail -n 1
