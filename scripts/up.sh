#!/usr/bin/env bash
# up.sh — run NewsCrawl on this machine (`make up`).
#
# With a working Docker engine: `docker compose up -d --build` (see docker-compose.yml).
# Without one: Redis, PostgreSQL and pgvector through scripts/services.sh, `make build`,
# `bin/newsctl migrate`, then the four workers in the background:
#   logs  .run/logs/<name>.log     pids  .run/pids/<name>.pid     env  .run/env
# and waits until each answers /healthz. Idempotent: a worker that already runs is left
# alone (`make down && make up` restarts all, e.g. after a rebuild).
#
# environment (all optional; the workers get the whole environment):
#   DATABASE_URL   default postgres://postgres@127.0.0.1:5432/newscrawl?sslmode=disable
#   REDIS_URL      default redis://127.0.0.1:6379/0
#   CRAWLER_METRICS_ADDR, CLEANER_METRICS_ADDR, EXTRACTOR_METRICS_ADDR,
#   EMBEDDER_METRICS_ADDR   each worker's METRICS_ADDR (/metrics, /healthz);
#                  defaults 127.0.0.1:9101 … 127.0.0.1:9104
#   CRAWL_ALLOW_PRIVATE=1   let the crawler fetch private/loopback addresses (local sites)
#   RENDER=auto             also run the renderer (headless Chromium) for script-built pages
#   RENDERER_METRICS_ADDR   its METRICS_ADDR, default 127.0.0.1:9105
#   UP_HEALTH_TIMEOUT       seconds to wait for /healthz (default 60)
#   NEWSCRAWL_NO_DOCKER=1   ignore a Docker engine and run locally
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD
RUN=$ROOT/.run
# shellcheck source=scripts/workers.sh
source scripts/workers.sh
WORKERS=(crawler cleaner extractor embedder)
declare -A DEFAULT_ADDR=(
  [crawler]=127.0.0.1:9101 [cleaner]=127.0.0.1:9102
  [extractor]=127.0.0.1:9103 [embedder]=127.0.0.1:9104 [renderer]=127.0.0.1:9105
)
# RENDER=auto or always: the cleaner sends script-built pages to the renderer, which
# runs too (headless Chromium: Debian's chromium, installed when missing).
case ${RENDER:-off} in
  off|'') ;;
  auto|always) WORKERS+=(renderer) ;;
  *) printf 'up: error: RENDER=%s: want off, auto or always\n' "$RENDER" >&2; exit 1 ;;
esac
HEALTH_TIMEOUT=${UP_HEALTH_TIMEOUT:-60}

say() { printf 'up: %s\n' "$*"; }
die() { printf 'up: error: %s\n' "$*" >&2; exit 1; }
have() { command -v "$1" >/dev/null 2>&1; }

if ! have go && [[ -x /usr/local/go/bin/go ]]; then export PATH=/usr/local/go/bin:$PATH; fi

# ---------------------------------------------------------------- Docker

compose_cmd() {
  if docker compose version >/dev/null 2>&1; then COMPOSE=(docker compose)
  elif have docker-compose; then COMPOSE=(docker-compose)
  else return 1; fi
}

if [[ ${NEWSCRAWL_NO_DOCKER:-0} != 1 ]] && have docker && timeout 15 docker info >/dev/null 2>&1; then
  compose_cmd || die "a Docker engine runs, but neither 'docker compose' nor 'docker-compose' is installed (or set NEWSCRAWL_NO_DOCKER=1)"
  profiles=()
  [[ " ${WORKERS[*]} " == *" renderer "* ]] && profiles=(--profile render)
  say "Docker engine found: ${COMPOSE[*]} ${profiles[*]} up -d --build"
  "${COMPOSE[@]}" "${profiles[@]}" up -d --build
  mkdir -p "$RUN"
  printf '%s\n' "${COMPOSE[*]}" >"$RUN/docker"
  c="${COMPOSE[*]}"
  cat <<EOF

NewsCrawl runs in Docker ($c ps shows the containers; the API is on http://127.0.0.1:${API_HOST_PORT:-8080}).
  seed:    $c exec api newsctl seed https://example.org/
  wait:    $c exec api newsctl wait
  search:  $c exec api newsctl search "what happened"
  stats:   $c exec api newsctl stats      dead letters: $c exec api newsctl dlq list
  logs:    $c logs -f crawler
  scale:   $c up -d --scale cleaner=4
  stop:    make down
EOF
  exit 0
fi

# ---------------------------------------------------------------- local

export DATABASE_URL=${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/newscrawl?sslmode=disable}
export REDIS_URL=${REDIS_URL:-redis://127.0.0.1:6379/0}

say "services (Redis, PostgreSQL, pgvector, database)"
bash scripts/services.sh ensure

say "build"
"${MAKE:-make}" --no-print-directory build

say "migrate"
bin/newsctl migrate
if [[ " ${WORKERS[*]} " == *" renderer "* ]] && ! have chromium && [[ -z ${CHROMIUM:-} && -z ${RENDER_CHROMIUM:-} ]]; then
  say "RENDER=${RENDER}: installing Debian's chromium for the renderer"
  bash scripts/services.sh apt-install chromium
fi

mkdir -p "$RUN/logs" "$RUN/pids"
{
  printf '# the environment "make up" started the workers with; use: source .run/env\n'
  # the embedding settings too: newsctl search must embed queries as the embedder did
  # the Redis layout too: newsctl must read the cluster and every partition the workers use
  for v in DATABASE_URL REDIS_URL REDIS_CLUSTER CRAWL_PARTITIONS CLEAN_PARTITIONS EXTRACT_PARTITIONS EMBED_PARTITIONS \
    STREAM_PREFIX OPENAI_BASE_URL EXTRACT_MODEL EMBED_PROVIDER EMBED_BASE_URL EMBED_MODEL \
    EMBED_DIMENSIONS EMBED_SEND_DIMENSIONS EMBED_QUERY_PREFIX EMBED_DOCUMENT_PREFIX CRAWL_ALLOW_PRIVATE CRAWL_ALLOW_CIDRS RENDER; do
    if [[ -n ${!v+x} ]]; then printf 'export %s=%q\n' "$v" "${!v}"; fi
  done
} >"$RUN/env"

metrics_addr() {
  local v=${1^^}_METRICS_ADDR
  printf '%s' "${!v-${DEFAULT_ADDR[$1]}}"
}

# health_url ADDR: where /healthz answers for a listen address (":9101" → 127.0.0.1:9101).
health_url() {
  local a=$1 host port
  port=${a##*:}; host=${a%:*}
  case $host in ''|0.0.0.0|'[::]'|'::') host=127.0.0.1 ;; esac
  printf 'http://%s:%s/healthz' "$host" "$port"
}

http_ok() {
  if have curl; then
    curl -fsS -o /dev/null -m 2 "$1" 2>/dev/null
  else
    local hp=${1#http://}; hp=${hp%%/*}
    # shellcheck disable=SC2016 # expanded by the inner bash
    timeout 3 bash -c 'exec 3<>"/dev/tcp/$1/$2" && printf "GET /healthz HTTP/1.0\r\nHost: %s\r\n\r\n" "$1" >&3 && IFS= read -r l <&3 && [[ $l == HTTP/1.?" 200"* ]]' \
      _ "${hp%:*}" "${hp##*:}" 2>/dev/null
  fi
}

started=()
for name in "${WORKERS[@]}"; do
  [[ -x bin/$name ]] || die "bin/$name was not built (is there a cmd/$name?)"
  if pid=$(running_pid "$name"); then
    say "$name already runs (pid $pid); 'make down && make up' restarts it"
    continue
  fi
  addr=$(metrics_addr "$name")
  log=$RUN/logs/$name.log pidf=$RUN/pids/$name.pid exitf=$RUN/pids/$name.exit
  rm -f "$pidf" "$exitf"
  printf '\n=== %s: %s starting, METRICS_ADDR=%s ===\n' "$(date -u +%FT%TZ)" "$name" "$addr" >>"$log"
  # A small supervisor shell in its own session (so a terminal's Ctrl-C or hang-up does
  # not reach it) starts the worker, records its pid, waits, and records its exit status
  # for `make down`. All of its output goes to the log, never to our caller's pipes.
  # shellcheck disable=SC2016,SC2094 # expanded by the inner bash; the log is only appended to
  METRICS_ADDR=$addr setsid nohup bash -c '
    "$1" </dev/null >>"$2" 2>&1 &
    pid=$!
    echo "$pid" >"$3.tmp" && mv -f "$3.tmp" "$3"
    wait "$pid"; rc=$?
    echo "$rc" >"$4"
    printf "=== %s: exited with status %s ===\n" "$(date -u +%FT%TZ)" "$rc" >>"$2"
  ' _ "$ROOT/bin/$name" "$log" "$pidf" "$exitf" </dev/null >>"$log" 2>&1 &
  started+=("$name")
done

# wait for every worker's /healthz (also those that already ran)
fail=0
declare -A done_=()
deadline=$((SECONDS + HEALTH_TIMEOUT))
while :; do
  pending=0
  for name in "${WORKERS[@]}"; do
    [[ -n ${done_[$name]:-} ]] && continue
    addr=$(metrics_addr "$name")
    pidf=$RUN/pids/$name.pid exitf=$RUN/pids/$name.exit
    if [[ -f $exitf ]]; then
      say "$name exited with status $(<"$exitf") while starting; last lines of .run/logs/$name.log:"
      tail -n 25 "$RUN/logs/$name.log" | sed 's/^/    /'
      done_[$name]=failed; fail=1; continue
    fi
    pid=$(running_pid "$name") || { pending=1; continue; } # pid file not written yet
    if [[ -z $addr || $addr == 0 ]]; then
      say "$name runs (pid $pid; METRICS_ADDR disabled, so /healthz not checked)"
      done_[$name]=ok; continue
    fi
    url=$(health_url "$addr")
    if http_ok "$url"; then
      say "$name healthy (pid $pid, ${url%/healthz}/metrics)"
      done_[$name]=ok; continue
    fi
    pending=1
  done
  [[ $pending == 0 ]] && break
  if ((SECONDS >= deadline)); then
    for name in "${WORKERS[@]}"; do
      [[ -n ${done_[$name]:-} ]] && continue
      say "$name did not answer $(health_url "$(metrics_addr "$name")") within ${HEALTH_TIMEOUT}s; last lines of .run/logs/$name.log:"
      tail -n 25 "$RUN/logs/$name.log" | sed 's/^/    /'
    done
    fail=1
    break
  fi
  sleep 0.3
done

if [[ $fail == 1 ]]; then
  say "not every worker came up (the others keep running; 'make down' stops them)"
  exit 1
fi

# The banner says what the crawler may fetch as it was started.
if [[ ${CRAWL_ALLOW_PRIVATE:-0} =~ ^(1|true|yes|on)$ ]]; then
  reach="           (the crawler may fetch private and loopback addresses: CRAWL_ALLOW_PRIVATE is on)"
elif [[ -n ${CRAWL_ALLOW_CIDRS:-} ]]; then
  reach="           (beyond public sites the crawler may fetch $CRAWL_ALLOW_CIDRS only: CRAWL_ALLOW_CIDRS)"
else
  reach="           (public sites only; for a site on this machine or network start with CRAWL_ALLOW_CIDRS=10.0.0.0/8 or CRAWL_ALLOW_PRIVATE=1)"
fi

cat <<EOF

NewsCrawl is up. Logs in .run/logs/, pids in .run/pids/.
The workers' settings are in .run/env; run newsctl with the same ones:
  source .run/env
  seed:    bin/newsctl seed https://example.org/
$reach
  wait:    bin/newsctl wait              # until the pipeline has drained
  search:  bin/newsctl search "what happened"
  stats:   bin/newsctl stats             dead letters: bin/newsctl dlq list
  stop:    make down
EOF
