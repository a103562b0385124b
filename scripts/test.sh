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

echo "== go test -race"
go test -race -count=1 ./...

echo "== benchmarks (one iteration each)"
go test -run '^$' -bench . -benchtime 1x ./... >/dev/null
echo "ok"
