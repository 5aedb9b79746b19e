#!/usr/bin/env bash
# test-compose.sh — make test-compose: the real Dockerfile and docker-compose.yml, run:
#   build the image, bring the stack up (with the demo site), wait for every healthcheck,
#   scale the cleaner to 2, seed the demo site, `newsctl wait` inside the stack, search
#   through the api service over HTTP, read every worker's /metrics, see both cleaners
#   consume, then `down -v`.
#
# Engine: a Docker engine when one answers (`docker info`); else rootful podman driven by
# Debian's docker-compose through podman's Docker API. No registry is reachable on CI, so
# for podman the public images are replaced by local stand-ins built here from a
# debootstrap of Debian (deploy/compose-test/images, cached by a hash of their recipe),
# named by the override deploy/compose-test/docker-compose.podman.yml.
#
# environment:
#   COMPOSE_TEST_KEEP=1      leave the stack up at the end (inspect it; `down -v` yourself)
#   NEWSCRAWL_NO_DOCKER=1    use podman even when a Docker engine answers
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD
PROJECT=newscrawl-ci
SITE=http://172.30.99.10:18600/
CI_DIR=$ROOT/deploy/compose-test
IMAGES=localhost/newscrawl-ci

T0=$SECONDS
step() { printf '==> [%3ds] %s\n' "$((SECONDS - T0))" "$*"; }
FAILED=""
die() { FAILED=$*; printf 'test-compose: FAIL: %s\n' "$*" >&2; exit 1; }
have() { command -v "$1" >/dev/null 2>&1; }

if ! have go && [[ -x /usr/local/go/bin/go ]]; then export PATH=/usr/local/go/bin:$PATH; fi

# ---------------------------------------------------------------- engine

ENGINE=podman
if [[ ${NEWSCRAWL_NO_DOCKER:-0} != 1 ]] && have docker && timeout 15 docker info 2>/dev/null | grep -qv -i podman; then
  ENGINE=docker
fi

BG_PIDS=()
cleanup() {
  local rc=$?
  if [[ $rc != 0 && ${#COMPOSE[@]} -gt 0 ]]; then
    echo "---- logs (last 40 lines per service) ----" >&2
    "${COMPOSE[@]}" logs --no-color --tail 40 >&2 2>&1 || true
    "${COMPOSE[@]}" ps >&2 2>&1 || true
    # Last, where a CI log's tail shows it: why each unhealthy container is so.
    local id
    for id in $("${COMPOSE[@]}" ps -q 2>/dev/null); do
      ${ENGINE} inspect -f '{{.Name}} {{if .State.Health}}{{.State.Health.Status}}{{range .State.Health.Log}}
    {{.Output}}{{end}}{{end}}' "$id" 2>/dev/null | grep -A20 ' unhealthy' >&2 || true
    done
    [[ -z $FAILED ]] || printf 'test-compose: FAIL: %s\n' "$FAILED" >&2
  fi
  if [[ ${COMPOSE_TEST_KEEP:-0} != 1 && ${#COMPOSE[@]} -gt 0 ]]; then
    timeout 180 "${COMPOSE[@]}" down -v --remove-orphans >/dev/null 2>&1 || true
  fi
  local p
  for p in "${BG_PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  exit "$rc"
}
COMPOSE=()
trap cleanup EXIT
# A command that fails outside die() names itself at the end of the log too.
set -E
trap 'ERR_RC=$?; [[ -n $FAILED ]] || FAILED="line $LINENO exited $ERR_RC: $BASH_COMMAND"' ERR

# recipe_hash FILE...: a short hash of a stand-in's recipe (its files and any extra inputs).
recipe_hash() { cat "$@" | sha256sum | cut -c1-16; }

# stand_in NAME HASH [podman build flags]: build $IMAGES/NAME:HASH unless it exists,
# then tag it :current (the name the override uses).
stand_in() {
  local name=$1 hash=$2; shift 2
  if ! podman image exists "$IMAGES/$name:$hash"; then
    step "building the stand-in for $name ($hash)"
    podman build -q --layers=false --build-arg "BASE=$IMAGES/base:$BASE_HASH" "$@" \
      -t "$IMAGES/$name:$hash" "$CI_DIR/images/$name" >/dev/null
  fi
  podman tag "$IMAGES/$name:$hash" "$IMAGES/$name:current"
}

if [[ $ENGINE == podman ]]; then
  step "podman, runc, docker-compose, debootstrap (apt, when missing)"
  bash scripts/services.sh apt-install podman runc uidmap catatonit \
    golang-github-containernetworking-plugin-dnsname debootstrap docker-compose
  export CONTAINERS_CONF=$CI_DIR/containers.conf

  # The base: a minimal Debian of this machine's release from this machine's mirror, with
  # the host's CA store so that builds inside reach the Go module proxy over HTTPS.
  # Only the stand-ins derive from it, never the image users build.
  MIRROR=$(bash scripts/services.sh mirror)
  SUITE=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
  BASE_HASH=$( { echo "$MIRROR $SUITE minbase"; cat /etc/ssl/certs/ca-certificates.crt; } | sha256sum | cut -c1-16)
  if ! podman image exists "$IMAGES/base:$BASE_HASH"; then
    step "debootstrap --variant=minbase $SUITE (about 40 s)"
    rootfs=$(mktemp -d /var/tmp/newscrawl-rootfs.XXXXXX)
    if ! debootstrap --variant=minbase "$SUITE" "$rootfs" "$MIRROR" >"$rootfs.log" 2>&1; then
      tail -n 20 "$rootfs.log" >&2; die "debootstrap failed (log: $rootfs.log)"
    fi
    mkdir -p "$rootfs/etc/ssl"
    cp -rL /etc/ssl/certs "$rootfs/etc/ssl/"
    tar -C "$rootfs" -c . | podman import -q - "$IMAGES/base:$BASE_HASH" >/dev/null
    rm -rf "$rootfs" "$rootfs.log"
  fi

  GOROOT_DIR=$(go env GOROOT)
  stand_in golang "$(recipe_hash "$CI_DIR"/images/golang/* <(echo "$BASE_HASH"; go version))" \
    -v "$GOROOT_DIR:/hostgo:ro"
  stand_in distroless "$(recipe_hash "$CI_DIR"/images/distroless/* <(echo "$BASE_HASH"))"
  stand_in redis "$(recipe_hash "$CI_DIR"/images/redis/* <(echo "$BASE_HASH"))"
  stand_in pgvector "$(recipe_hash "$CI_DIR"/images/pgvector/* scripts/services.sh <(echo "$BASE_HASH"))" \
    -v "$ROOT/scripts:/newscrawl-scripts:ro"

  SOCK_DIR=/run/newscrawl-podman
  mkdir -p "$SOCK_DIR"
  SOCK=$SOCK_DIR/podman.sock
  if ! timeout 5 curl -fsS --unix-socket "$SOCK" http://d/_ping >/dev/null 2>&1; then
    rm -f "$SOCK"
    podman system service --time=0 "unix://$SOCK" >"$SOCK_DIR/service.log" 2>&1 &
    BG_PIDS+=($!)
    for _ in $(seq 100); do [[ -S $SOCK ]] && break; sleep 0.1; done
    [[ -S $SOCK ]] || die "podman system service did not start (log: $SOCK_DIR/service.log)"
  fi
  export DOCKER_HOST=unix://$SOCK
  COMPOSE=(docker-compose -p "$PROJECT" -f docker-compose.yml -f "$CI_DIR/docker-compose.podman.yml" --profile demo)

  # Podman runs healthchecks from systemd timers, which this machine does not have:
  # run every container's healthcheck here, so that depends_on: service_healthy is met.
  (
    while sleep 2; do
      for c in $(podman ps -q --filter "label=com.docker.compose.project=$PROJECT" 2>/dev/null); do
        podman healthcheck run "$c" >/dev/null 2>&1 || true
      done
    done
  ) &
  BG_PIDS+=($!)
else
  if docker compose version >/dev/null 2>&1; then
    COMPOSE=(docker compose -p "$PROJECT" --profile demo)
  else
    COMPOSE=(docker-compose -p "$PROJECT" --profile demo)
  fi
fi

# ---------------------------------------------------------------- the stack

export CRAWL_ALLOW_CIDRS=172.30.99.10/32
API_HOST_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
export API_HOST_PORT
API=http://127.0.0.1:$API_HOST_PORT

timeout 120 "${COMPOSE[@]}" down -v --remove-orphans >/dev/null 2>&1 || true

step "build the image from the Dockerfile (${COMPOSE[0]})"
REVISION=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
timeout 900 "${COMPOSE[@]}" build --build-arg "REVISION=$REVISION" migrate

# awk reads all of config's output: leaving early could kill the writer with
# SIGPIPE, which pipefail turns into this script's failure.
image=$("${COMPOSE[@]}" config | awk '$1 == "image:" && $2 ~ /newscrawl/ && !image { image = $2 } END { print image }')
out=$(${ENGINE} run --rm "$image" 2>&1) || die "the image's default command failed: $out"
[[ $out == *"usage: newsctl"* ]] || die "the image's default command did not print newsctl's help: $out"
echo "the image's default command prints help and exits 0"

step "up -d (waits for Redis, PostgreSQL and the migration to be healthy)"
timeout 600 "${COMPOSE[@]}" up -d --no-build

# wait_healthy: every container of the project with a healthcheck reports healthy.
wait_healthy() {
  local deadline=$((SECONDS + 300)) ids states bad
  while :; do
    ids=$("${COMPOSE[@]}" ps -q)
    bad=""
    for id in $ids; do
      # podman reports an empty health status where Docker has none
      states=$(${ENGINE} inspect -f '{{.Name}} {{.State.Status}}:{{.State.ExitCode}} {{if .State.Health}}{{.State.Health.Status}}{{end}}' "$id")
      case $states in
        *" running:"*" healthy" | *" running:"*" " | *" exited:0 ") ;;
        *" exited:"*) die "a container exited with an error: $states" ;;
        *) bad+="  $states"$'\n' ;;
      esac
    done
    [[ -z $bad ]] && return 0
    if ((SECONDS > deadline)); then printf '%s' "$bad" >&2; die "containers not healthy after 300 s"; fi
    sleep 2
  done
}
wait_healthy

step "scale the cleaner to 2"
timeout 300 "${COMPOSE[@]}" up -d --no-build --no-recreate --scale cleaner=2
wait_healthy
n=$("${COMPOSE[@]}" ps -q cleaner | wc -l)
[[ $n == 2 ]] || die "expected 2 cleaner containers, found $n"

api_cmd() { "${COMPOSE[@]}" exec -T api newsctl "$@"; }

step "seed the demo site ($SITE) and wait for the pipeline"
api_cmd seed "$SITE"
api_cmd wait --timeout 5m
api_cmd stats

step "search through the api service over HTTP ($API)"
out=$(curl -fsS --max-time 20 "$API/api/search?q=bridge+reopened+after+repairs&k=3")
echo "$out" | python3 -c '
import json, sys
r = json.load(sys.stdin)
hits = r.get("results") or r.get("hits") or []
assert hits, "no results: %r" % r
top = hits[0]
print("top hit:", top.get("title"), top.get("url"))
assert "bridge" in (top.get("title", "") + top.get("url", "")).lower(), "the bridge article is not first"
'
curl -fsS --max-time 5 "$API/healthz" >/dev/null || die "api /healthz"

step "every worker's /metrics, on its published loopback port"
metric() { # metric URL NAME: the sum of a counter over its labels
  curl -fsS --max-time 5 "$1" | awk -v n="$2" 'index($1, n "{") == 1 || $1 == n { s += $2 } END { printf "%d\n", s }'
}
for svc in crawler cleaner extractor embedder; do
  i=0
  for _ in $("${COMPOSE[@]}" ps -q "$svc"); do
    i=$((i + 1))
    hostport=$("${COMPOSE[@]}" port --index "$i" "$svc" 9100)
    [[ -n $hostport ]] || die "$svc #$i publishes no metrics port"
    done_n=$(metric "http://$hostport/metrics" newscrawl_stage_processed_total)
    echo "$svc #$i ($hostport): newscrawl_stage_processed_total $done_n"
    if [[ $svc == cleaner ]]; then eval "cleaner_$i=$done_n"; fi
    ((done_n > 0)) || [[ $svc == cleaner ]] || die "$svc #$i processed nothing"
  done
done
# shellcheck disable=SC2154 # set by the eval above
((cleaner_1 > 0 && cleaner_2 > 0)) || die "both cleaners should have consumed (got $cleaner_1 and $cleaner_2)"

step "down -v"
if [[ ${COMPOSE_TEST_KEEP:-0} == 1 ]]; then
  echo "COMPOSE_TEST_KEEP=1: the stack stays up (${COMPOSE[*]} down -v)"
else
  timeout 180 "${COMPOSE[@]}" down -v --remove-orphans
  COMPOSE=()
fi
step "test-compose passed"
