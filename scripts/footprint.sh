#!/usr/bin/env bash
# Measures jarvisbot serve's footprint as issue 14 asks: connected to
# Telegram and Discord (the in-repo fakes, real protocols, loopback only),
# the shipped store, and ~200 capabilities from real MCP tool lists (the
# catalog snapshot in testdata/fixtures, served by mcptestserver). It
# reports the stripped binary's size (CGO_ENABLED=0, -ldflags='-s -w', as
# shipped), the time from exec until the owner is reachable on both
# platforms, and VmRSS, RssAnon, RssFile and PSS (/proc/PID/status and
# smaps_rollup) when idle after start-up and one second after a turn, plus
# the peak (ru_maxrss): each the median of three starts. Nothing is
# trimmed: the figures are what the process holds. A measurement, not a
# test; it takes about three minutes. Flags go to the harness
# (scripts/footprint/main.go), e.g.
#   bash scripts/footprint.sh -runs 5 -mappings
# JARVIS_BUILD_TAGS measures a binary built with those tags, e.g. the
# release build's: JARVIS_BUILD_TAGS=grpcnotrace bash scripts/footprint.sh
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
CGO_ENABLED=0 go build -tags "${JARVIS_BUILD_TAGS:-}" -ldflags='-s -w' -o "$bin/jarvisbot" ./cmd/jarvisbot
CGO_ENABLED=0 go build -o "$bin/mcptestserver" ./internal/fakes/mcptestserver
CGO_ENABLED=0 go build -o "$bin/footprint" ./scripts/footprint
"$bin/footprint" -jarvisbot "$bin/jarvisbot" -mcptestserver "$bin/mcptestserver" "$@"
