# syntax=docker/dockerfile:1
# NewsCrawl: one image holding all binaries (crawler, cleaner, extractor, embedder, newsctl, …)
# in /usr/local/bin. docker-compose.yml picks the binary per service with `command:`.

# The base images are arguments only so that a machine without a registry can build with
# stand-ins (make test-compose); the defaults are the public images.
ARG GO_IMAGE=golang:1.26-bookworm
ARG RUNTIME_IMAGE=gcr.io/distroless/static-debian12:nonroot
# The renderer's target (below) needs a distribution with Chromium.
ARG RENDERER_BASE_IMAGE=debian:bookworm-slim

FROM ${GO_IMAGE} AS build
WORKDIR /src
ENV CGO_ENABLED=0
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod \
    go mod download
COPY . .
# The image has no .git: the revision --version prints comes in as an argument
# (docker build --build-arg REVISION=$(git rev-parse --short=12 HEAD)); the release
# name is the committed VERSION file.
ARG REVISION=unknown
RUN --mount=type=cache,target=/go/pkg/mod \
    --mount=type=cache,target=/root/.cache/go-build \
    go build -trimpath -ldflags="-s -X github.com/newscrawl/newscrawl/internal/version.Release=$(cat VERSION) -X github.com/newscrawl/newscrawl/internal/version.Revision=${REVISION}" -o /out/ ./cmd/... && \
    mkdir -p /warc

# The renderer's image (compose profile "render"): Chromium needs a distribution, so
# this target is Debian with Debian's chromium and the renderer binary alone.
# docker compose --profile render build renderer  (or: docker build --target renderer .)
FROM ${RENDERER_BASE_IMAGE} AS renderer
RUN apt-get update && apt-get install -y --no-install-recommends chromium ca-certificates fonts-liberation && \
    rm -rf /var/lib/apt/lists/* && useradd --uid 65532 --create-home nonroot
COPY --from=build /out/renderer /usr/local/bin/renderer
USER 65532:65532
EXPOSE 9100
CMD ["renderer"]

# Static binaries need no libc; distroless/static carries CA certificates and tzdata and
# runs as an unprivileged user (nonroot, uid 65532).
FROM ${RUNTIME_IMAGE}
COPY --from=build /out/ /usr/local/bin/
# The crawler's WARC directory (CRAWL_WARC_DIR=/warc), owned by the runtime user so a
# volume mounted on it starts writable.
COPY --from=build --chown=65532:65532 /warc /warc
USER nonroot:nonroot
EXPOSE 9100 8080
# No ENTRYPOINT: the command names the binary, e.g. `crawler` or `newsctl migrate`.
CMD ["newsctl", "help"]
