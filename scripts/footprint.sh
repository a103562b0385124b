#!/usr/bin/env bash
# Measures jarvisbot serve's start-up and idle memory (issue 7's footprint):
# the time from exec to the "jarvisbot is ready" log line, and VmRSS / VmHWM
# from /proc/PID/status after it has idled. A measurement, not a test.
#   bash scripts/footprint.sh            # the console channel
# Extra environment (bot tokens, JARVIS_TELEGRAM_API_ENDPOINT,
# JARVIS_DISCORD_API_BASE) is passed through, so the same script measures a
# service connected to Telegram and Discord or to their fakes.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(mktemp -d)/jarvisbot
CGO_ENABLED=0 go build -ldflags='-s -w' -o "$bin" ./cmd/jarvisbot
work=$(mktemp -d)
export JARVIS_DATA_DIR="$work/data" HOME="$work/home" JARVIS_KEYRING_BACKEND=file JARVIS_KEYRING_PASSWORD=footprint
mkdir -p "$HOME"
"$bin" init >/dev/null 2>&1 || true
fifo="$work/stdin"; mkfifo "$fifo"
sleep 30 > "$fifo" &
holder=$!
start=$(date +%s%N)
"$bin" serve < "$fifo" > "$work/out" 2> "$work/err" &
pid=$!
until grep -q "jarvisbot is ready" "$work/err" 2>/dev/null; do
  if ! kill -0 "$pid" 2>/dev/null; then echo "jarvisbot exited:"; cat "$work/err"; exit 1; fi
  sleep 0.001
done
ready=$(( ($(date +%s%N) - start) / 1000000 ))
sleep 3
echo "binary:  $(du -h "$bin" | cut -f1)"
echo "ready:   ${ready} ms after exec (includes the shell's polling, ~1 ms)"
grep -E "VmRSS|VmHWM" "/proc/$pid/status"
grep -E "^(Rss|Pss_Anon|Pss_File)" "/proc/$pid/smaps_rollup" 2>/dev/null || true
kill "$pid" "$holder" 2>/dev/null; wait "$pid" 2>/dev/null || true
