#!/usr/bin/env bash
# Builds jarvisbot's release binary, the one the container image ships and
# the README's figures measure: static (CGO_ENABLED=0), the time zone
# database embedded (timetzdata: schedules and timezone: work on a system
# without zone files, such as scratch), paths trimmed and symbols stripped.
#
#   bash scripts/release.sh OUT
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: scripts/release.sh OUT}
CGO_ENABLED=0 go build -trimpath -tags timetzdata -ldflags='-s -w' -o "$out" ./cmd/jarvisbot
