#!/usr/bin/env bash
# bench-cleaner.sh (make bench-cleaner): the cleaner's quality and speed, beside
# go-trafilatura and go-readability measured in the same run.
#   1. F1 (../shared/extractbench) on both dev sets: ScrapingHub's and readability's;
#   2. the same on each set's fixed tuning and held-out halves (a page is held out when
#      the first byte of the SHA-1 of its name is divisible by 4: tuning looks at the
#      other three quarters only, the held-out quarter is scored here);
#   3. metadata on the readability set (../shared/extractbench/metadata_score.py; the
#      ScrapingHub set has no metadata truths);
#   4. WCXB's development split (human truths, seven page kinds) by WCXB's own measures
#      (../shared/extractbench/wcxb_score.py), each half apart: word F1, title, author, day
#      and wrong day on the articles, the cleaner's "article" precision and recall, and word
#      F1 over all seven kinds; the peers run through bench/cleanerpeers (a module of its own);
#   5. pages per CPU-second on one core, in-process, against go-trafilatura's: the
#      median of ROUNDS ratios, each of the two measured in turn.
# Run from the repository root. The last line printed is "F1=<value>" (ScrapingHub set).
set -euo pipefail

BENCH_TOOL_DIR=${BENCH_TOOL_DIR:-../shared/extractbench}
SCRAPINGHUB=${EXTRACTION_BENCH_DIR:-../shared/extraction-bench}
READABILITY=${EXTRACTION_BENCH_READABILITY_DIR:-../shared/extraction-bench-readability}
WCXB=${EXTRACTION_BENCH_WCXB_DIR:-../shared/extraction-bench-wcxb}
BENCHTIME=${BENCHTIME:-543x} # three passes over the 181 pages
ROUNDS=${ROUNDS:-5}           # speed rounds, the cleaner's and go-trafilatura's in turn
PEERS=${PEERS:-trafilatura,trafilatura-fallback,readability}

if [[ ! -f go.mod || ! -d cmd/cleaner ]]; then
	echo "bench-cleaner: run from the repository root" >&2
	exit 2
fi
for d in "$SCRAPINGHUB" "$READABILITY"; do
	if [[ ! -f "$d/ground-truth.json" ]]; then
		echo "bench-cleaner: dataset not found at $d (set EXTRACTION_BENCH_DIR / EXTRACTION_BENCH_READABILITY_DIR)" >&2
		exit 2
	fi
done
SCRAPINGHUB=$(cd "$SCRAPINGHUB" && pwd)
READABILITY=$(cd "$READABILITY" && pwd)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "== building the evaluator ($BENCH_TOOL_DIR) and ./bin/cleaner"
(cd "$BENCH_TOOL_DIR" && go build -o "$tmp/extractbench" .)
mkdir -p bin
go build -o bin/cleaner ./cmd/cleaner
CLEANER="$PWD/bin/cleaner extract {}"

# halves DATASET: writes $tmp/<name>-tune and $tmp/<name>-held, the two halves as datasets.
halves() {
	python3 - "$1" "$tmp" <<'EOF'
import hashlib, json, os, sys
src, out = sys.argv[1], sys.argv[2]
name = os.path.basename(src.rstrip("/"))
gt = json.load(open(os.path.join(src, "ground-truth.json")))
for half in ("tune", "held"):
    d = os.path.join(out, f"{name}-{half}")
    os.makedirs(os.path.join(d, "html"))
    keep = {k: v for k, v in gt.items() if (hashlib.sha1(k.encode()).digest()[0] % 4 == 0) == (half == "held")}
    json.dump(keep, open(os.path.join(d, "ground-truth.json"), "w"))
    for k in keep:
        for ext in (".html.gz", ".html"):
            f = os.path.join(src, "html", k + ext)
            if os.path.exists(f):
                os.symlink(f, os.path.join(d, "html", k + ext))
EOF
}

declare -A F1
for d in "$SCRAPINGHUB" "$READABILITY"; do
	name=$(basename "$d")
	echo
	echo "== quality on $name (one cleaner process per page; peers in-process)"
	out=$("$tmp/extractbench" run -q -cmd "$CLEANER" -x "$PEERS" -worst 8 "$d")
	echo "$out"
	F1[$name]=$(echo "$out" | awk '$2 == "cmd" { print $4; exit }')
	halves "$d"
	for half in tune held; do
		"$tmp/extractbench" run -q -bootstrap 0 -cmd "$CLEANER" -x trafilatura "$tmp/$name-$half" |
			awk -v h="$half" '$2 == "cmd" || $2 == "trafilatura" { printf "   %s half: %-12s n=%s F1=%s\n", h, $2, $3, $4 }'
	done
done

echo
echo "== metadata on $(basename "$READABILITY") (share of pages with a truth for the field)"
meta=$(python3 "$BENCH_TOOL_DIR/metadata_score.py" "$READABILITY" "$PWD/bin/cleaner extract --json")
echo "$meta"

declare -A WCXB_LINE
if [[ -f "$WCXB/pages.json" ]]; then
	echo
	echo "== WCXB development split, by WCXB's measures (articles; article precision/recall over seven kinds)"
	(cd bench/cleanerpeers && go build -o "$tmp/cleanerpeers" .)
	for half in tune check; do
		for x in cleaner trafilatura trafilatura-fallback readability; do
			if [[ $x == cleaner ]]; then cmd="$PWD/bin/cleaner extract"; else cmd="$tmp/cleanerpeers -x $x"; fi
			scored=$(HALF=$half python3 "$BENCH_TOOL_DIR/wcxb_score.py" "$WCXB" "$cmd")
			line=$(echo "$scored" | tail -n 1)
			[[ $x == cleaner ]] || line=${line% article-precision*} # the peers label no page kinds
			# word F1 over every page of the half, all seven kinds: the per-kind rows weighted by their n
			kinds=$(echo "$scored" | awk -v h="$half" '$2 == h && $3 ~ /^[0-9]+$/ { n += $3; s += $3 * $4 } END { if (n) printf "%.3f", s / n }')
			line="${line#articles } all-kinds-wordF1 $kinds"
			printf '   %-5s %-21s %s\n' "$half" "$x" "$line"
			[[ $x == cleaner ]] && WCXB_LINE[$half]=$line
		done
	done
else
	echo
	echo "== WCXB: dataset not found at $WCXB (set EXTRACTION_BENCH_WCXB_DIR); skipped"
fi

echo
echo "== speed on one core, in-process (GOMAXPROCS=1), $ROUNDS rounds, the cleaner and go-trafilatura in turn"
# A shared machine's load moves both rates from minute to minute: rounds taken in
# turn, and the median of their ratios, keep a busy minute from deciding the figure.
go test -c -o "$tmp/article.test" ./internal/article
ratios=()
for round in $(seq 1 "$ROUNDS"); do
	bench_out=$(cd internal/article && GOMAXPROCS=1 EXTRACTION_BENCH_DIR="$SCRAPINGHUB" \
		"$tmp/article.test" -test.run '^$' -test.bench '^BenchmarkExtract$' -test.benchtime="$BENCHTIME")
	ours=$(echo "$bench_out" | awk '/^BenchmarkExtract/ { for (i = 1; i < NF; i++) if ($(i+1) == "pages/cpu-s") print $i }')
	# awk reads to the end: exiting at the first match would SIGPIPE the run (exit 141).
	peer=$(GOMAXPROCS=1 "$tmp/extractbench" run -q -bootstrap 0 -j 1 -repeat 3 -x trafilatura "$SCRAPINGHUB" |
		awk '$2 == "trafilatura" && !done { print $(NF-3); done = 1 }')
	ratio=$(awk -v a="$ours" -v b="$peer" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')
	echo "round $round: cleaner $ours pages/cpu-s, go-trafilatura $peer: ${ratio}x"
	ratios+=("$ratio $ours $peer")
done
echo "$bench_out" | grep -E '^cpu:' || true
read -r ratio ours peer < <(printf '%s\n' "${ratios[@]}" | sort -n | sed -n "$(((ROUNDS + 1) / 2))p")

echo
echo "== summary"
for name in "${!F1[@]}"; do echo "F1 $name: ${F1[$name]}"; done | sort
echo "$meta" | tail -n 1
for half in tune check; do [[ -n ${WCXB_LINE[$half]:-} ]] && echo "WCXB $half: ${WCXB_LINE[$half]}"; done
echo "speed (the median round of $ROUNDS): $ours pages/cpu-s, go-trafilatura $peer: ${ratio}x"
echo "F1=${F1[$(basename "$SCRAPINGHUB")]}"
