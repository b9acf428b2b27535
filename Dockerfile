# syntax=docker/dockerfile:1
#
# data-mediator container image.
#
#   docker build -t data-mediator .
#   docker run --rm -p 8080:8080 -v data-mediator-data:/data data-mediator
#
# With no config the built-in demo is served from /data/demo-3.sqlite (made on first
# start). To serve your own lists, mount a config and point DATA_MEDIATOR_CONFIG at it:
#
#   docker run --rm -p 8080:8080 -v "$PWD/config:/config:ro" -v data-mediator-data:/data \
#     -e DATA_MEDIATOR_CONFIG=/config/lists.yaml data-mediator
#
# Set DATA_MEDIATOR_CURSOR_SECRET (16+ bytes) when several containers serve the
# same data, so a cursor from one is accepted by the others.

ARG SWIFT_IMAGE=swift:6.3-bookworm
ARG RUNTIME_IMAGE=debian:bookworm-slim

# ================================
# Build: a release binary with the Swift runtime linked in statically
# ================================
FROM ${SWIFT_IMAGE} AS build

WORKDIR /build

# Resolve dependencies in their own layer, so it is reused while Package.swift and
# Package.resolved are unchanged. (Package.resolved is not committed; the glob matches
# whether it is there or not.)
COPY ./Package.* ./
RUN if [ -f ./Package.resolved ]; then \
        swift package resolve --force-resolved-versions; \
    else \
        swift package resolve; \
    fi

COPY . .

# GRDB links the system SQLite: the toolchain image already ships libsqlite3-dev.
RUN swift build -c release --static-swift-stdlib --product data-mediator

WORKDIR /staging

# The binary, and the static backtracer so a crash still prints a readable backtrace.
RUN cp "$(swift build --package-path /build -c release --show-bin-path)/data-mediator" ./ \
    && cp /usr/libexec/swift/linux/swift-backtrace-static ./
# No SwiftPM resource bundles are copied: openapi.yaml and the explorer's page, script and
# styles are embedded in the binary (.embedInCode), and GRDB's bundle only holds an Apple
# privacy manifest.

# ================================
# Run: a slim Debian with only what the binary loads
# ================================
FROM ${RUNTIME_IMAGE}

# libsqlite3-0: the store. tzdata, ca-certificates: the usual runtime needs of a server.
# Versions are not pinned (DL3008): Debian replaces a package's version within a release
# for security fixes and drops the old one, so a pin would break the build; the base
# image tag pins the release.
# hadolint ignore=DL3008
RUN export DEBIAN_FRONTEND=noninteractive DEBCONF_NONINTERACTIVE_SEEN=true \
    && apt-get -q update \
    && apt-get -q install -y --no-install-recommends \
        libsqlite3-0 \
        tzdata \
        ca-certificates \
    && rm -rf /var/lib/apt/lists/*

# A non-root user that owns the data folder (the store and the cursor secret live there).
# A numeric uid, so that a runtime can check "not root" without reading /etc/passwd.
RUN useradd --uid 10001 --user-group --system --no-create-home --home-dir /nonexistent \
        --shell /usr/sbin/nologin data-mediator \
    && mkdir -p /data \
    && chown 10001:10001 /data

WORKDIR /app
COPY --from=build /staging /app

ENV PATH="/app:${PATH}" \
    DATA_MEDIATOR_HOST=0.0.0.0 \
    DATA_MEDIATOR_PORT=8080 \
    DATA_MEDIATOR_DATA_DIR=/data \
    SWIFT_BACKTRACE=enable=yes,sanitize=yes,threads=all,images=all,interactive=no,swift-backtrace=/app/swift-backtrace-static

VOLUME /data

USER 10001:10001

EXPOSE 8080

# SIGTERM: event streams end with `event: shutdown`, requests in flight finish (within
# DATA_MEDIATOR_SHUTDOWN_GRACE_SECONDS), the store is checkpointed, and the exit code is 0.
STOPSIGNAL SIGTERM

# The image has no curl: the binary asks GET /health itself (exit 0 on 200).
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
    CMD ["data-mediator", "healthcheck"]

ENTRYPOINT ["data-mediator"]
CMD ["serve"]
