#!/usr/bin/env bash
# demo.sh — `make demo`: everything `make up` does, then the pipeline at work on the
# synthetic news site that ships with the project (internal/demosite), offline:
#   1. the demo site on 127.0.0.1:$DEMO_PORT (default 18600), pid in .run/pids/demo-site.pid
#   2. the workers, with the SSRF guard opened for 127.0.0.1 only (CRAWL_ALLOW_CIDRS, not
#      CRAWL_ALLOW_PRIVATE) and a short host delay; workers already running with other
#      settings are restarted
#   3. seed, wait with the stats, a search that finds an article, and what to try next
# `make down` stops the site too.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD
RUN=$ROOT/.run
PORT=${DEMO_PORT:-18600}
SITE=http://127.0.0.1:$PORT

say() { printf 'demo: %s\n' "$*"; }

have() { command -v "$1" >/dev/null 2>&1; }

# With a Docker engine the demo site is a compose service (profile demo) on a network
# of its own, and the crawler's SSRF guard is opened for its address alone.
if [[ ${NEWSCRAWL_NO_DOCKER:-0} != 1 ]] && have docker && timeout 15 docker info >/dev/null 2>&1; then
  if docker compose version >/dev/null 2>&1; then compose=(docker compose); else compose=(docker-compose); fi
  export CRAWL_ALLOW_CIDRS=172.30.99.10/32
  say "Docker engine found: ${compose[*]} --profile demo up -d --build"
  "${compose[@]}" --profile demo up -d --build
  mkdir -p "$RUN" && printf '%s --profile demo\n' "${compose[*]}" >"$RUN/docker"
  for _ in $(seq 120); do "${compose[@]}" exec -T api newsctl health >/dev/null 2>&1 && break; sleep 1; done
  "${compose[@]}" exec -T api newsctl seed http://172.30.99.10:18600/
  "${compose[@]}" exec -T api newsctl wait --timeout 5m
  "${compose[@]}" exec -T api newsctl stats
  "${compose[@]}" exec -T api newsctl search "bridge reopened after repairs" --k 3
  printf '\nTry next: %s exec api newsctl search "comet visible in the evening"; make down stops it all.\n' "${compose[*]}"
  exit 0
fi

export NEWSCRAWL_NO_DOCKER=1 # the demo site runs on this machine's loopback
export CRAWL_ALLOW_CIDRS=127.0.0.1/32 CRAWL_HOST_DELAY=${CRAWL_HOST_DELAY:-100ms} CRAWL_MAX_DEPTH=${CRAWL_MAX_DEPTH:-3}

# Workers started by an earlier `make up` without the demo's settings would refuse the site.
if [[ -d $RUN/pids ]] && ! grep -qs 'CRAWL_ALLOW_CIDRS=127.0.0.1/32' "$RUN/env"; then
  say "restarting the workers with the demo's settings"
  bash scripts/down.sh >/dev/null || true
fi

bash scripts/up.sh

pidf=$RUN/pids/demo-site.pid
if [[ -f $pidf ]] && kill -0 "$(<"$pidf")" 2>/dev/null; then
  say "the demo site already runs (pid $(<"$pidf"))"
else
  setsid nohup bin/newsctl demo-site --addr "127.0.0.1:$PORT" </dev/null >>"$RUN/logs/demo-site.log" 2>&1 &
  echo $! >"$pidf"
  for _ in $(seq 50); do
    bin/newsctl health "$SITE/robots.txt" 2>/dev/null && break
    sleep 0.1
  done
  say "demo site on $SITE (pid $(<"$pidf"), log .run/logs/demo-site.log)"
fi

# shellcheck source=/dev/null
source "$RUN/env"
bin/newsctl seed "$SITE/"
say "crawling, cleaning, extracting and embedding (a minute or so)"
T0=$SECONDS
bin/newsctl wait --timeout 5m
say "done in $((SECONDS - T0)) s"
bin/newsctl stats
echo
say 'search "bridge reopened after repairs":'
bin/newsctl search "bridge reopened after repairs" --k 3
echo
say 'ask "How much did the harbour bridge repairs cost?":'
bin/newsctl ask "How much did the harbour bridge repairs cost?" --k 3

cat <<EOT

Try next (after: source .run/env):
  bin/newsctl search "comet visible in the evening"
  bin/newsctl search "train drivers strike" --mode lexical --json
  bin/newsctl ask "How did the rail strike end?"        # cited, checked; --json, --strict
  bin/newsctl stats                 # stages, workers, documents and extractions
  bin/newsctl health                # every stage's workers and their state
  bin/newsctl serve                 # the web page and API on http://127.0.0.1:8080/
  bin/newsctl seed https://your-site.example/   # a site of your own
  make down                         # stop the workers and the demo site
EOT
