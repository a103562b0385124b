#!/usr/bin/env bash
# The project's one test command (README, .ci/run): formatting, vet, every
# test with the race detector, and each benchmark once so none rots.
# It needs only Go; later suites that need more install it here, idempotently.
set -euo pipefail
cd "$(dirname "$0")/.."

export CGO_ENABLED="${CGO_ENABLED:-1}" # the race detector needs cgo; the product builds with CGO_ENABLED=0

echo "== gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then
  echo "gofmt would change:"; echo "$unformatted"; exit 1
fi

echo "== go vet"
go vet ./...

echo "== build without cgo"
CGO_ENABLED=0 go build -o /dev/null ./cmd/jarvisbot

echo "== published MCP servers for the tests (npm, pinned, installed once)"
export JARVIS_NPM_CACHE="${JARVIS_NPM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/jarvisbot-test/npm}"
pins=$(grep -v '^#' mcphost/testdata/published.txt | grep .)
if ! command -v npm >/dev/null; then
  echo "node/npm not installed: the tests against published MCP servers will skip"
else
  missing=""
  for p in $pins; do
    name=${p%@*}; version=${p##*@}
    have=$(node -p "require('$JARVIS_NPM_CACHE/node_modules/$name/package.json').version" 2>/dev/null || true)
    [ "$have" = "$version" ] || missing="$missing $p"
  done
  if [ -n "$missing" ]; then
    mkdir -p "$JARVIS_NPM_CACHE"
    npm install --no-audit --no-fund --prefix "$JARVIS_NPM_CACHE" $pins
  else
    echo "already installed in $JARVIS_NPM_CACHE"
  fi
fi

echo "== go test -race"
go test -race -count=1 ./...

echo "== benchmarks (one iteration each)"
go test -run '^$' -bench . -benchtime 1x ./... >/dev/null
echo "ok"
