#!/usr/bin/env bash
# The project's one test command (README, .ci/run): formatting, vet, every
# test with the race detector, and each benchmark once so none rots.
# It needs only Go; later suites that need more install it here, idempotently
# (PostgreSQL, for the store's second run, from scripts/postgres.sh).
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
# The release build leaves PostgreSQL out (scripts/release.sh): its files
# are vetted too.
go vet -tags nopostgres ./...

echo "== the dashboard's pages are generated from their templates (templ, pinned)"
# web/PAGE.templ compiles to the committed web/PAGE_templ.go, so building
# needs no generator. The pinned generator runs on a copy of the templates
# (the tree and its git state stay as they are) and each file it writes
# must be the committed one; a generated file without its template is
# stale too.
templ=github.com/a-h/templ/cmd/templ@v0.3.1118
gen=$(mktemp -d)
cp web/*.templ "$gen"/
if ! out=$(go run "$templ" generate -path "$gen" 2>&1); then
  echo "$out"; rm -rf "$gen"; exit 1
fi
stale=""
for f in "$gen"/*_templ.go; do
  cmp -s "$f" "web/$(basename "$f")" || stale="$stale web/$(basename "$f")"
done
for f in web/*_templ.go; do
  [ -f "$gen/$(basename "$f")" ] || stale="$stale $f"
done
rm -rf "$gen"
if [ -n "$stale" ]; then
  echo "not generated from the current templates:$stale"
  echo "run: go run $templ generate -path web (and commit the *_templ.go files)"
  exit 1
fi

echo "== unchecked errors (errcheck, pinned)"
# Errors on paths that change state are handled, never dropped (X4, ST1).
# errcheck lists every call whose error is ignored; `go run mod@version`
# fetches the pinned release into the module cache once, so CI installs
# nothing else. It checks the code that ships: the packages the jarvisbot
# binary is built from. Left out, because what they drop is no state of
# the product: _test.go files, the protocol fakes and test servers
# (internal/fakes/...)
# and scripts/. The only calls allowed to go unchecked are those listed,
# each with its reason, in scripts/errcheck-excludes.txt (errcheck's own
# default list is not used); an error ignored on purpose elsewhere is
# assigned to _ with the reason beside it.
errcheck=github.com/kisielk/errcheck@v1.30.0
module=$(go list -m)
go run "$errcheck" -ignoretests -excludeonly -exclude scripts/errcheck-excludes.txt \
  $(go list -deps ./cmd/jarvisbot | grep -E "^$module(/|\$)")

echo "== build without cgo"
CGO_ENABLED=0 go build -o /dev/null ./cmd/jarvisbot

echo "== the release build: within its size budget, and its store SQLite alone"
# What an owner downloads and what the process maps: the stripped release
# binary (scripts/release.sh) may not grow past 34 MB. A dependency that
# would push it over has to earn its weight (README, Figures).
release=$(mktemp -d)
bash scripts/release.sh "$release/jarvisbot"
size=$(stat -c %s "$release/jarvisbot")
budget=34000000
echo "release binary: $size bytes (budget $budget)"
if [ "$size" -gt "$budget" ]; then
  echo "FAIL: the release binary is $size bytes, over the $budget-byte budget: see README, Figures, for what each module costs" >&2
  rm -rf "$release"; exit 1
fi
# Its store is SQLite alone: pgx and River are not in it, and a
# postgres:// store is refused with the build that has it named.
if go version -m "$release/jarvisbot" | grep -E 'jackc/pgx|riverqueue/river'; then
  echo "FAIL: the release binary links PostgreSQL's modules (above); it is built with -tags nopostgres" >&2
  rm -rf "$release"; exit 1
fi
if out=$(HOME="$release" JARVIS_DATA_DIR="$release/data" JARVIS_DATABASE_URL='postgres://jarvis:hunter2@127.0.0.1:1/jarvis' \
  "$release/jarvisbot" skills list 2>&1); then
  echo "FAIL: the release binary opened a postgres:// store" >&2; rm -rf "$release"; exit 1
fi
case $out in
*hunter2*) echo "FAIL: the release binary's error shows the URL's password: $out" >&2; rm -rf "$release"; exit 1 ;;
*"built without PostgreSQL"*"scripts/release.sh --postgres"*) echo "a postgres:// store is refused: $out" ;;
*) echo "FAIL: the release binary's answer to a postgres:// store does not name the build that has it: $out" >&2; rm -rf "$release"; exit 1 ;;
esac
rm -rf "$release"
go test -count=1 -tags nopostgres -run LeftOut ./store/sqlstore/

echo "== published MCP servers, the MCP conformance suite and the claude and codex CLIs for the tests (npm, pinned, installed once)"
export JARVIS_NPM_CACHE="${JARVIS_NPM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/jarvisbot-test/npm}"
pins=$(grep -hv '^#' catalog/mcphost/testdata/published.txt mcp/surface/testdata/conformance.txt agents/cliagent/testdata/clis.txt | grep .)
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

echo "== Chromium for builtin:browser's chromium engine and the dashboard's browser tests (Debian's package, installed once)"
if command -v chromium >/dev/null; then
  echo "already installed: $(command -v chromium)"
elif [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium >/dev/null ||
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium >/dev/null; }
  echo "installed: $(command -v chromium)"
else
  echo "chromium is not installed and cannot be installed here (not root, or no apt-get): the chromium engine's tests will skip"
fi

echo "== espeak-ng, opus-tools and pocketsphinx for the voice tests (Debian's packages, installed once)"
# Real speech for the voice-note tests: espeak-ng says a sentence, opusenc
# makes the OGG/Opus voice note Telegram sends, and pocketsphinx (with its
# small US English model) hears one for real, offline.
if command -v espeak-ng >/dev/null && command -v opusenc >/dev/null && command -v pocketsphinx_continuous >/dev/null &&
  [ -d /usr/share/pocketsphinx/model/en-us ]; then
  echo "already installed: $(command -v espeak-ng) $(command -v opusenc) $(command -v pocketsphinx_continuous)"
elif [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  voice_pkgs="espeak-ng opus-tools pocketsphinx pocketsphinx-en-us"
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $voice_pkgs >/dev/null ||
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $voice_pkgs >/dev/null; }
  echo "installed: $voice_pkgs"
else
  echo "espeak-ng, opus-tools or pocketsphinx is missing and cannot be installed here (not root, or no apt-get): the voice tests that need real speech will skip"
fi

echo "== go test -race"
# The dashboard's browser tests keep a screenshot of every page here.
export JARVIS_TEST_ARTIFACTS="${JARVIS_TEST_ARTIFACTS:-$PWD/artifacts}"
go test -race -count=1 ./...
echo "screenshots of the dashboard (when Chromium ran): $JARVIS_TEST_ARTIFACTS/dashboard"

echo "== the store, the replicas and serve on PostgreSQL (Debian's package, a throwaway cluster)"
# The store's whole suite again on PostgreSQL (ST2): a fresh database per
# test on a cluster started here in a temp dir as a non-root user, gone
# when the script ends. The replicas' tests skip without the URL above.
# shellcheck source=scripts/postgres.sh
source scripts/postgres.sh
trap pg_stop EXIT
pg_start
JARVIS_TEST_STORE=postgres go test -race -count=1 ./store/...
go test -race -count=1 ./store/sqlstore/replicas/
go test -count=1 -run 'Postgres|ReplicasLoad' ./cmd/jarvisbot/
pg_stop
trap - EXIT

echo "== benchmarks (one iteration each)"
go test -run '^$' -bench . -benchtime 1x ./... >/dev/null
echo "ok"
