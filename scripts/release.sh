#!/usr/bin/env bash
# Builds jarvisbot's release binary, the one the container image ships and
# the README's figures measure: static (CGO_ENABLED=0), the time zone
# database embedded (timetzdata: schedules and timezone: work on a system
# without zone files, such as scratch), paths trimmed and symbols stripped,
# and the store SQLite only (nopostgres): pgx and River, linked but unused,
# would cost every single-machine process their pages (README, Figures).
#   --postgres    builds it with PostgreSQL, for replicas sharing one store
#                 (deploy/compose.yaml's image); a plain `go build` has it too
#   --unstripped  keeps the symbol table: the same layout, for
#                 scripts/footprint.sh -modules to read
#
#   bash scripts/release.sh [--postgres] [--unstripped] OUT
set -euo pipefail
cd "$(dirname "$0")/.."
tags=timetzdata,nopostgres
ldflags=(-ldflags='-s -w')
usage="usage: scripts/release.sh [--postgres] [--unstripped] OUT"
while [ $# -gt 0 ]; do
  case $1 in
  --postgres) tags=timetzdata ;;
  --unstripped) ldflags=() ;;
  -*) echo "scripts/release.sh: unknown flag $1; $usage" >&2; exit 2 ;;
  *) break ;;
  esac
  shift
done
out=${1:?$usage}
CGO_ENABLED=0 go build -trimpath -tags "$tags" "${ldflags[@]}" -o "$out" ./cmd/jarvisbot
