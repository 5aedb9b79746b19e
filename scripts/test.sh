#!/usr/bin/env bash
# test.sh — the project's checks, as `make test` and CI (.ci/run) run them:
#   1. local services (Redis, PostgreSQL + pgvector) and the test database
#   2. go vet
#   3. docker-compose.yml is valid (docker compose config -q)
#   4. the alert rules: promtool check rules and promtool test rules (Debian's prometheus)
#   5. chromium for the browser tests (Debian's package)
#   6. newsctl migrate against the test database (when cmd/newsctl exists)
#   7. go test -race, the Kubernetes manifests' check, then the short chaos run alone
#
# environment:
#   TEST_DATABASE_URL  database the tests use (created if missing, with pgvector);
#                      default postgres://postgres@127.0.0.1:5432/newscrawl_test?sslmode=disable
#   TEST_REDIS_URL     Redis the tests use; default $REDIS_URL, else redis://127.0.0.1:6379/0
#   GO_TEST_FLAGS      extra flags for go test (e.g. "-run TestConsumer -v")
#   GO_TEST_PKGS       packages to test (default ./...)
# The tests get them as DATABASE_URL and REDIS_URL. A caller's DATABASE_URL is deliberately
# not used: it usually names the development database of `make up`.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

if ! command -v go >/dev/null 2>&1 && [[ -x /usr/local/go/bin/go ]]; then
  export PATH=/usr/local/go/bin:$PATH
fi

export DATABASE_URL=${TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/newscrawl_test?sslmode=disable}
export REDIS_URL=${TEST_REDIS_URL:-${REDIS_URL:-redis://127.0.0.1:6379/0}}

T0=$SECONDS
step() { printf '==> [%3ds] %s\n' "$((SECONDS - T0))" "$*"; }

step "services (Redis, PostgreSQL, pgvector, test database)"
bash scripts/services.sh ensure

step "go vet ./..."
go vet ./...

step "docker-compose.yml"
compose=()
if docker compose version >/dev/null 2>&1; then
  compose=(docker compose)
elif docker-compose version >/dev/null 2>&1; then
  compose=(docker-compose)
else
  # no engine is needed to validate: Debian's docker-compose (1.29) does it offline
  bash scripts/services.sh apt-install docker-compose
  compose=(docker-compose)
fi
"${compose[@]}" -f docker-compose.yml config -q
echo "docker-compose.yml is valid (${compose[*]} config -q)"

step "alert rules (promtool check rules + the rules' unit tests)"
command -v promtool >/dev/null 2>&1 || bash scripts/services.sh apt-install prometheus
promtool check rules deploy/observability/alerts.yml
(cd deploy/observability && promtool test rules alerts_test.yml)

step "chromium (the web page's browser tests)"
command -v chromium >/dev/null 2>&1 || bash scripts/services.sh apt-install chromium

if [[ -d cmd/newsctl ]]; then
  step "newsctl migrate (test database)"
  go run ./cmd/newsctl migrate
fi

step "go test -race ./..."
# The short chaos run starts eight worker processes and servers of its own;
# it runs after the rest, alone, so that it does not load the machine under
# the timing-sensitive tests (politeness gaps) of the other packages.
if [[ -z ${GO_TEST_PKGS:-} ]]; then
  pkgs=$(go list ./... | grep -v -e '/internal/chaos$' -e '/internal/upgrade$') # both run in make chaos
else
  pkgs=$GO_TEST_PKGS
fi
# shellcheck disable=SC2086 # GO_TEST_FLAGS and the package lists are word lists
go test -race -count=1 -timeout 20m ${GO_TEST_FLAGS:-} $pkgs
if [[ -z ${GO_TEST_PKGS:-} ]]; then
  step "deploy/k8s: kustomize build, every object decoded strictly (a Go module of its own)"
  (cd deploy/k8s && go test -count=1 ./...)
  step "go test ./internal/chaos (short schedule)"
  # shellcheck disable=SC2086
  go test -count=1 -timeout 15m ${GO_TEST_FLAGS:-} ./internal/chaos
fi
