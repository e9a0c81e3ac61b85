#!/usr/bin/env bash
# record-wrangler.sh: record a case on `wrangler dev` (miniflare's local
# simulations on workerd), for bindings the anchor's `workerd serve` does not
# serve (r2_buckets).
#
#   record-wrangler.sh [--twice] <case-dir> [<out.json>]
#
# As record.sh: copies <case-dir> to a temp dir (fresh state), starts
# `wrangler dev` there on a free port, plays steps.json with replay.mjs,
# writes the transcript to <case-dir>/expected.json (or <out.json>) and
# stops wrangler by its process group. With --twice it records two fresh
# runs and writes only if they are byte-identical.
#
# Tools, from environment variables:
#   WRANGLER  path of the wrangler binary (default /tmp/wr/node_modules/.bin/wrangler;
#             install: `npm install wrangler@4` in any directory)
#   NODE_PATH where replay.mjs finds `ws` (default: the node_modules holding WRANGLER)
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TWICE=0
if [ "${1:-}" = "--twice" ]; then TWICE=1; shift; fi
if [ $# -lt 1 ] || [ $# -gt 2 ] || [ ! -d "$1" ]; then
  echo "usage: record-wrangler.sh [--twice] <case-dir> [<out.json>]" >&2
  exit 64
fi
CASE=$(cd "$1" && pwd)
OUT=${2:-$CASE/expected.json}
NAME=$(basename "$CASE")
WRANGLER=${WRANGLER:-/tmp/wr/node_modules/.bin/wrangler}
[ -x "$WRANGLER" ] || { echo "record-wrangler.sh: wrangler not found at $WRANGLER (set WRANGLER)" >&2; exit 64; }
if [ -z "${NODE_PATH:-}" ]; then
  NM=$(cd "$(dirname "$WRANGLER")/.." 2>/dev/null && pwd)
  [ -n "$NM" ] && [ -d "$NM/ws" ] && export NODE_PATH=$NM
fi

TMP=$(mktemp -d "${TMPDIR:-/tmp}/record-$NAME.XXXXXX")
PID=
cleanup() {
  if [ -n "$PID" ] && kill -0 "$PID" 2>/dev/null; then
    kill -- -"$PID" 2>/dev/null
    for _ in $(seq 1 50); do kill -0 "$PID" 2>/dev/null || break; sleep 0.1; done
    kill -9 -- -"$PID" 2>/dev/null
    wait "$PID" 2>/dev/null
  fi
  PID=
}
trap 'cleanup; rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM

fail() {
  echo "record-wrangler.sh: $NAME: $1" >&2
  if [ -n "${2:-}" ] && [ -s "$2" ]; then echo "--- wrangler log:" >&2; sed 's/^/    /' "$2" >&2; fi
  exit 1
}

free_port() { node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }

run_once() {
  local n=$1 dir=$TMP/case$1 log=$TMP/run$1.log port
  mkdir -p "$dir"
  cp -r "$CASE"/. "$dir"/
  rm -rf "$dir/.wrangler" "$dir"/expected*.json
  port=$(free_port)
  # its own process group, so that cleanup stops wrangler and its workerd
  ( cd "$dir" && WRANGLER_SEND_METRICS=false CI=1 exec setsid "$WRANGLER" dev --local --ip 127.0.0.1 --port "$port" \
      --inspector-port 0 --persist-to "$dir/.state" >"$log" 2>&1 ) &
  PID=$!
  for _ in $(seq 1 600); do
    grep -q "Ready on" "$log" 2>/dev/null && break
    kill -0 "$PID" 2>/dev/null || fail "wrangler exited before it was ready" "$log"
    sleep 0.1
  done
  grep -q "Ready on" "$log" || fail "wrangler was not ready within 60 s" "$log"
  node "$HERE/replay.mjs" "http://127.0.0.1:$port" "$CASE/steps.json" > "$TMP/run$n.json"
  local rc=$?
  cleanup
  [ $rc -eq 0 ] || fail "replay failed (exit $rc); transcript: $(head -c 2000 "$TMP/run$n.json")" "$log"
}

run_once 1
if [ $TWICE = 1 ]; then
  run_once 2
  if ! cmp -s "$TMP/run1.json" "$TMP/run2.json"; then
    echo "record-wrangler.sh: $NAME: NOT DETERMINISTIC: two fresh runs differ:" >&2
    node "$HERE/compare.mjs" "$TMP/run1.json" "$TMP/run2.json" >&2
    exit 1
  fi
fi
cp "$TMP/run1.json" "$OUT"
echo "record-wrangler.sh: $NAME: $(grep -c '^ ' "$OUT") steps recorded to $OUT$([ $TWICE = 1 ] && echo ' (two fresh runs identical)')" >&2
