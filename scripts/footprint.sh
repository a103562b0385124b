#!/usr/bin/env bash
# Measures the release build of jarvisbot serve (scripts/release.sh) as
# issues 14 and 30 ask: connected to Telegram and Discord (the in-repo
# fakes, real protocols, loopback only), the shipped store, ~200 tools from
# real MCP tool lists (the catalog snapshot in testdata/fixtures, served by
# mcptestserver), the dashboard and the MCP endpoint on, and a scripted
# model. It reports the stripped binary's size, the time from exec until the
# owner is reachable on both platforms, VmRSS, RssAnon, RssFile and PSS
# (/proc/PID/status and smaps_rollup) 15 s after ready and one second after
# a turn, and the peak (VmHWM): each the median of three starts. Nothing is
# trimmed: the figures are what the process holds. A measurement, not a
# test; it takes about a minute and a half. Flags go to the harness
# (scripts/footprint/main.go), e.g.
#   bash scripts/footprint.sh -runs 5 -mappings -provider anthropic
# JARVIS_FOOTPRINT_BINARY measures another jarvisbot binary instead.
# With -modules it adds a table of what each Go module costs; for that it
# also builds jarvisbot.sym, the same build unstripped, whose symbol table
# says where each module's bytes lie (JARVIS_FOOTPRINT_SYMBOLS names another
# one, e.g. for JARVIS_FOOTPRINT_BINARY).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
jarvisbot=${JARVIS_FOOTPRINT_BINARY:-}
if [ -z "$jarvisbot" ]; then
  jarvisbot="$bin/jarvisbot"
  bash scripts/release.sh "$jarvisbot"
fi
modules=false
for arg in "$@"; do
  case $arg in -modules | --modules | -modules=true | --modules=true) modules=true ;; esac
done
if $modules; then
  symbols=${JARVIS_FOOTPRINT_SYMBOLS:-}
  if [ -z "$symbols" ]; then
    # scripts/release.sh's build unstripped: stripping drops only the
    # symbol table and DWARF, which the linker places after the loaded
    # sections, so the twin's addresses are the release binary's. The
    # harness checks that they are, should the two builds drift apart.
    symbols="$bin/jarvisbot.sym"
    bash scripts/release.sh --unstripped "$symbols"
  fi
  set -- -symbols "$symbols" "$@"
fi
CGO_ENABLED=0 go build -o "$bin/mcptestserver" ./internal/fakes/mcptestserver
CGO_ENABLED=0 go build -o "$bin/footprint" ./scripts/footprint
"$bin/footprint" -jarvisbot "$jarvisbot" -mcptestserver "$bin/mcptestserver" "$@"
