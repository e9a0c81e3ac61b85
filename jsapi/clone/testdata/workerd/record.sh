#!/usr/bin/env bash
# record.sh: records the V8 serialization fixture on workerd.
#
#   WORKERD=.../node_modules/.bin/workerd ESBUILD=.../node_modules/.bin/esbuild ./record.sh
#
# For each wrangler.<name>.jsonc here (v8ser: compatibility date 2026-01-01;
# v8ser-enhanced: the same with enhanced_error_serialization), it runs
# `workerd serve` on a copy of this folder, asks the worker to store every
# value of values.js (GET /write), to read them back (GET /read) and to probe
# the size limits (GET /limits), stops workerd, and keeps:
#   <name>.json        the three answers
#   state-<name>/      the Durable Object's SQLite file workerd wrote
#                      (.wrangler/state/workerd/<name>-Store/<id>.sqlite,
#                      the object named "fixture"; the "limits" object's file
#                      is left out, it held megabytes)
# Tools default to the anchor install (../../../../../shared/anchor/README.md):
# npm install workerd@1.20261117.1 esbuild@0.28.2
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
WORKERD=${WORKERD:-/tmp/anchor/node_modules/.bin/workerd}
ESBUILD=${ESBUILD:-/tmp/anchor/node_modules/.bin/esbuild}
"$WORKERD" --version
TMP=$(mktemp -d "${TMPDIR:-/tmp}/v8ser-record.XXXXXX")
PID=
cleanup() {
  if [ -n "$PID" ] && kill -0 "$PID" 2>/dev/null; then kill "$PID"; wait "$PID" 2>/dev/null || true; fi
  rm -rf "$TMP"
}
trap cleanup EXIT
for cfg in "$HERE"/wrangler.*.jsonc; do
  name=$(basename "$cfg" .jsonc); name=${name#wrangler.}
  dir=$TMP/$name
  mkdir -p "$dir"
  cp "$HERE/index.js" "$HERE/values.js" "$dir/"
  cp "$cfg" "$dir/wrangler.jsonc"
  : > "$dir/ctl"
  ( cd "$dir" && WORKERD_ESBUILD=$ESBUILD exec "$WORKERD" serve -s http=127.0.0.1:0 --control-fd 3 wrangler.jsonc 3>ctl >log 2>&1 ) &
  PID=$!
  port=
  for _ in $(seq 1 100); do
    port=$(grep -o '"port":[0-9]*' "$dir/ctl" | cut -d: -f2 || true)
    [ -n "$port" ] && break
    kill -0 "$PID" 2>/dev/null || { cat "$dir/log"; exit 1; }
    sleep 0.1
  done
  [ -n "$port" ] || { echo "workerd did not listen" >&2; cat "$dir/log"; exit 1; }
  base=http://127.0.0.1:$port
  {
    printf '{"write":'; curl -sf "$base/write"
    printf ',\n"read":'; curl -sf "$base/read"
    printf ',\n"sql":'; curl -sf "$base/sql"
    printf ',\n"limits":'; curl -sf "$base/limits"
    printf '}\n'
  } > "$dir/out.json"
  kill "$PID"; wait "$PID" 2>/dev/null || true; PID=
  node -e 'const fs=require("fs");const o=JSON.parse(fs.readFileSync(process.argv[1]));fs.writeFileSync(process.argv[2],JSON.stringify(o,null,1)+"\n")' "$dir/out.json" "$HERE/$name.json"
  # the object named "fixture": workerd's id is HMAC-SHA256(SHA256("<name>-Store"), name), 16 bytes, then the HMAC of those
  id=$(node -e 'const c=require("crypto");const k=c.createHash("sha256").update(process.argv[1]).digest();const f=c.createHmac("sha256",k).update("fixture").digest().subarray(0,16);console.log(Buffer.concat([f,c.createHmac("sha256",k).update(f).digest().subarray(0,16)]).toString("hex"))' "$name-Store")
  src=$dir/.wrangler/state/workerd/$name-Store
  [ -f "$src/$id.sqlite" ] || { echo "no $src/$id.sqlite" >&2; ls -la "$src" >&2; exit 1; }
  [ ! -s "$src/$id.sqlite-wal" ] || { echo "$id.sqlite-wal was not checkpointed" >&2; exit 1; }
  rm -rf "$HERE/state-$name"
  mkdir -p "$HERE/state-$name/workerd/$name-Store"
  cp "$src/$id.sqlite" "$HERE/state-$name/workerd/$name-Store/"
  # the namespace's alarms (metadata.sqlite, _cf_ALARM), the fixture's only
  sqlite3 "$src/metadata.sqlite" ".backup '$HERE/state-$name/workerd/$name-Store/metadata.sqlite'"
  sqlite3 "$HERE/state-$name/workerd/$name-Store/metadata.sqlite" "DELETE FROM _cf_ALARM WHERE actor_id <> '$id'; VACUUM"
  grep -iE 'error|exception|uncaught' "$dir/log" >&2 || true
  echo "recorded $name (object $id)"
done
