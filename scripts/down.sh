#!/usr/bin/env bash
# down.sh — stop what `make up` started (`make down`).
#
# Local workers: SIGTERM to each pid in .run/pids/, then up to DOWN_TIMEOUT seconds
# (default 30) for a graceful exit, reporting each exit status; a worker still running
# then gets SIGKILL and down.sh exits 1. Docker: `docker compose down` when `make up`
# used Docker. Redis and PostgreSQL are left running (they are the machine's services).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD
RUN=$ROOT/.run
# shellcheck source=scripts/workers.sh
source scripts/workers.sh
WORKERS=(crawler cleaner extractor embedder renderer) # the renderer runs only with RENDER set
TIMEOUT=${DOWN_TIMEOUT:-30}

say() { printf 'down: %s\n' "$*"; }

rc=0
if [[ -f $RUN/docker ]]; then
  read -r -a compose <"$RUN/docker"
  say "${compose[*]} down"
  "${compose[@]}" down || rc=1
  rm -f "$RUN/docker"
fi

# describe NAME: how NAME ended, from the status its supervisor shell recorded.
describe() {
  local f=$RUN/pids/$1.exit i st
  for ((i = 0; i < 20; i++)); do [[ -f $f ]] && break; sleep 0.1; done
  [[ -f $f ]] || { printf 'stopped (exit status not recorded)'; return; }
  st=$(<"$f")
  case $st in
    0) printf 'exited 0 (clean shutdown)' ;;
    143) printf 'exit status 143: killed by SIGTERM (no graceful shutdown)' ;;
    137) printf 'exit status 137: killed by SIGKILL' ;;
    *) printf 'exit status %s' "$st" ;;
  esac
}

# The demo site (make demo), if it runs: it holds nothing, so SIGTERM is enough.
if [[ -f $RUN/pids/demo-site.pid ]]; then
  pid=$(<"$RUN/pids/demo-site.pid")
  if [[ $pid =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null &&
    tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q "^$ROOT/bin/newsctl demo-site\|^bin/newsctl demo-site"; then
    kill -TERM "$pid" 2>/dev/null || true
    say "demo site: SIGTERM sent (pid $pid)"
  fi
  rm -f "$RUN/pids/demo-site.pid"
fi

declare -A pids=()
for name in "${WORKERS[@]}"; do
  if pid=$(running_pid "$name"); then
    kill -TERM "$pid" 2>/dev/null || true
    pids[$name]=$pid
    say "$name: SIGTERM sent (pid $pid)"
  elif [[ -f $RUN/pids/$name.pid ]]; then
    say "$name: not running ($(describe "$name"))"
    rm -f "$RUN/pids/$name.pid"
  fi
done

if [[ ${#pids[@]} -eq 0 ]]; then
  say "no local workers running"
  exit "$rc"
fi

deadline=$((SECONDS + TIMEOUT))
while [[ ${#pids[@]} -gt 0 ]]; do
  for name in "${!pids[@]}"; do
    if ! kill -0 "${pids[$name]}" 2>/dev/null; then
      say "$name: $(describe "$name")"
      [[ $(cat "$RUN/pids/$name.exit" 2>/dev/null) == 0 ]] || rc=1
      rm -f "$RUN/pids/$name.pid"
      unset "pids[$name]"
    fi
  done
  [[ ${#pids[@]} -eq 0 ]] && break
  if ((SECONDS >= deadline)); then
    for name in "${!pids[@]}"; do
      say "$name: still running after ${TIMEOUT}s: SIGKILL (pid ${pids[$name]}); see .run/logs/$name.log"
      kill -KILL "${pids[$name]}" 2>/dev/null || true
      rm -f "$RUN/pids/$name.pid"
    done
    rc=1
    break
  fi
  sleep 0.2
done
exit "$rc"
