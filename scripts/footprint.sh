#!/usr/bin/env bash
# Measures jarvisbot serve's footprint as issue 7 asks: connected to
# Telegram and Discord (the in-repo fakes, real protocols, loopback only),
# the shipped store, and ~200 capabilities from real MCP tool lists (the
# catalog snapshot in ../shared/fixtures, served by mcptestserver). It
# reports the time from exec until the owner is reachable on both
# platforms, the idle resident memory from /proc/PID/status after start-up
# and after a turn on each platform, and the peak (ru_maxrss, as
# /usr/bin/time -v gives it). A measurement, not a test; it takes about
# two minutes. Flags go to the harness (scripts/footprint/main.go), e.g.
#   bash scripts/footprint.sh -runs 9 -settle 60s -mappings
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
CGO_ENABLED=0 go build -ldflags='-s -w' -o "$bin/jarvisbot" ./cmd/jarvisbot
CGO_ENABLED=0 go build -o "$bin/mcptestserver" ./internal/fakes/mcptestserver
CGO_ENABLED=0 go build -o "$bin/footprint" ./scripts/footprint
"$bin/footprint" -jarvisbot "$bin/jarvisbot" -mcptestserver "$bin/mcptestserver" "$@"
