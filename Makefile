# NewsCrawl. Start here:
#   make up     run the pipeline locally (Docker if an engine runs, else local services)
#   make demo   make up, then crawl the bundled demo news site and search it
#   make test   everything CI checks (services, vet, compose file, go test -race)
# `make help` lists the rest.

SHELL := /bin/bash
GO ?= $(shell command -v go 2>/dev/null || echo /usr/local/go/bin/go)
BENCH_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/newscrawl_bench?sslmode=disable
# extra arguments for the bench commands, e.g. make bench-streamkit ARGS='-n 20000'
ARGS ?=

.DEFAULT_GOAL := help
.PHONY: help build test chaos test-compose screenshots up demo down train-pagekind bench-serve bench-streamkit bench-partitions bench-crawler bench-cleaner bench-search bench-seed bench-ingest bench-render bench-ask lint clean

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{ printf "  make %-16s %s\n", $$1, $$2 }'

# The release and revision --version prints: the release from the committed VERSION
# file (tags may not reach a clone), the revision from git (this machine's Go builds
# with -buildvcs=false).
RELEASE ?= $(shell cat VERSION)
REVISION ?= $(shell git rev-parse --short=12 HEAD 2>/dev/null)
LDFLAGS := -X github.com/newscrawl/newscrawl/internal/version.Release=$(RELEASE) -X github.com/newscrawl/newscrawl/internal/version.Revision=$(REVISION)

build: ## build every binary into bin/
	$(GO) build -ldflags '$(LDFLAGS)' -o bin/ ./cmd/...

test: ## services + go vet + compose check + go test -race (what CI runs)
	@bash scripts/test.sh

chaos: ## the pipeline through kills, a stall, outages, FLUSHALL + reconcile (long schedule); then a rolling upgrade from .release/previous and a rollback
	@bash scripts/services.sh ensure
	$(GO) test -count=1 -v -run '^TestChaos$$' -timeout 40m ./internal/chaos -args -chaos.long
	$(GO) test -count=1 -v -run '^TestUpgradeAndRollback$$' -timeout 20m ./internal/upgrade

test-compose: ## the real Dockerfile and docker-compose.yml: build, up, crawl the demo site, search, scale, down
	@bash scripts/test-compose.sh

screenshots: ## run the browser test and copy its screenshots of the web page into docs/screenshots/
	@bash scripts/services.sh ensure
	@rm -rf .run/artifacts && mkdir -p .run/artifacts docs/screenshots
	DATABASE_URL='postgres://postgres@127.0.0.1:5432/newscrawl_test?sslmode=disable' \
	  $(GO) test -count=1 -run '^TestBrowser$$' -artifacts -outputdir $(CURDIR)/.run/artifacts ./internal/web
	find .run/artifacts -name '*.png' -exec cp {} docs/screenshots/ \;
	@ls docs/screenshots

up: ## start services, migrate, run the four workers (see .run/)
	@MAKE='$(MAKE)' GO='$(GO)' bash scripts/up.sh

demo: ## make up, then crawl the bundled demo news site (offline) and search it
	@MAKE='$(MAKE)' GO='$(GO)' bash scripts/demo.sh

down: ## stop the workers (SIGTERM, 30 s grace) or docker compose down
	@bash scripts/down.sh

# Bench targets print the command's output unchanged; its last line is the result.
bench-streamkit: ## streamkit throughput vs raw go-redis (last line: the ratio)
	@DATABASE_URL='$(BENCH_DATABASE_URL)' bash scripts/services.sh ensure
	@DATABASE_URL='$(BENCH_DATABASE_URL)' $(GO) run ./bench/streamkit $(ARGS)

bench-partitions: ## a partitioned stage on a local 6-node Redis Cluster vs one stream on the single node (last line: the ratio)
	@DATABASE_URL='$(BENCH_DATABASE_URL)' bash scripts/services.sh ensure
	@dir=$$(mktemp -d) && trap 'bash scripts/services.sh cluster-stop '"$$dir" EXIT && \
	  url=$$(bash scripts/services.sh cluster-start "$$dir" $${CLUSTER_PORT:-17000}) && \
	  DATABASE_URL='$(BENCH_DATABASE_URL)' $(GO) run ./bench/streamkit -cluster "$$url" -n 100000 -rounds 5 $(ARGS)

bench-crawler: ## crawler vs colly on a generated local site, 2k and 10k pages (last line: the summary)
	@DATABASE_URL='$(BENCH_DATABASE_URL)' bash scripts/services.sh ensure
	@DATABASE_URL='$(BENCH_DATABASE_URL)' $(GO) run ./bench/crawler $(ARGS)

train-pagekind: ## retrain the cleaner's page-kind model on WCXB's tune half (internal/article/pagekind_model.json)
	$(GO) run ./internal/article/kindtrain -data $${EXTRACTION_BENCH_WCXB_DIR:-../shared/extraction-bench-wcxb}

bench-cleaner: ## cleaner quality/speed bench (scripts/bench-cleaner.sh)
	@bash scripts/bench-cleaner.sh $(ARGS)

bench-serve: ## a 10k-request burst on newsctl serve (last line: the share answered within 1 s, p99, peak RSS)
	@DATABASE_URL='$(BENCH_DATABASE_URL)' bash scripts/services.sh ensure
	@$(GO) build -ldflags '$(LDFLAGS)' -o bin/ ./cmd/newsctl
	@DATABASE_URL='$(BENCH_DATABASE_URL)' $(GO) run ./bench/serve $(ARGS)

bench-seed: ## newsctl seed --file: 1M URLs over 5,000 literal hosts, 100k over 1,000 unresolvable names (last line: the times)
	@DATABASE_URL='$(BENCH_DATABASE_URL)' bash scripts/services.sh ensure
	@$(GO) build -ldflags '$(LDFLAGS)' -o bin/ ./cmd/newsctl
	@DATABASE_URL='$(BENCH_DATABASE_URL)' $(GO) run ./bench/seed $(ARGS)

bench-render: ## renderer on the script-only site, beside the static fetch of its twins (last line: the rates)
	@bash scripts/services.sh ensure
	@command -v chromium >/dev/null 2>&1 || bash scripts/services.sh apt-install chromium
	@$(GO) run ./bench/render $(ARGS)

bench-ingest: ## WARC in: the library's read rate, newsctl ingest alone, end to end until searchable (last line: the rates)
	@DATABASE_URL='$(BENCH_DATABASE_URL)' bash scripts/services.sh ensure
	@$(GO) build -ldflags '$(LDFLAGS)' -o bin/ ./cmd/...
	@DATABASE_URL='$(BENCH_DATABASE_URL)' $(GO) run ./bench/ingest $(ARGS)

bench-ask: ## newsctl ask without a model on a generated 10,000-article archive (last line: hits@5, citations, abstentions, p50)
	@DATABASE_URL='$(BENCH_DATABASE_URL)' bash scripts/services.sh ensure
	@DATABASE_URL='$(BENCH_DATABASE_URL)' $(GO) run ./bench/ask $(ARGS)

bench-search: ## search at N chunks (ARGS='-n 1000000'), full and half precision, on a PostgreSQL of its own (last line: the summary)
	@$(GO) run ./bench/search $(ARGS)

lint: ## go vet and gofmt
	$(GO) vet ./...
	@files=$$(gofmt -l .); \
	if [ -n "$$files" ]; then echo "gofmt -l: these files need gofmt -w:"; echo "$$files"; exit 1; fi

clean: ## stop local workers, remove bin/ and .run/
	@if [ -d .run ]; then bash scripts/down.sh; fi
	rm -rf bin .run
