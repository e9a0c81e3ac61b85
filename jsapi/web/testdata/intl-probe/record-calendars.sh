#!/usr/bin/env bash
# record-calendars.sh: runs calendars.js on workerd and writes calendars.json.gz
# (WORKERD as in record.sh).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
WORKERD=${WORKERD:-$HOME/.cache/cellhost/intl-anchor/node_modules/.bin/workerd}
TMP=$(mktemp -d)
PID=
trap '[ -n "$PID" ] && kill $PID 2>/dev/null; rm -rf "$TMP"' EXIT
{ cat "$HERE/calendars.js"; echo 'export default { async fetch() { return new Response(JSON.stringify(calendars())); } };'; } > "$TMP/w.js"
PORT=$((20000 + RANDOM % 20000))
cat > "$TMP/c.capnp" <<C
using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [(name = "main", worker = (modules = [(name = "w.js", esModule = embed "w.js")], compatibilityDate = "2026-01-01"))],
  sockets = [(name = "http", address = "127.0.0.1:$PORT", http = (), service = "main")]
);
C
"$WORKERD" serve "$TMP/c.capnp" >"$TMP/log" 2>&1 &
PID=$!
for _ in $(seq 1 100); do curl -sf -o "$TMP/out" "http://127.0.0.1:$PORT/" && break; sleep 0.2; done
[ -s "$TMP/out" ] || { cat "$TMP/log"; exit 1; }
python3 -c "
import json, gzip
d = json.load(open('$TMP/out'))
with gzip.open('$HERE/calendars.json.gz', 'wt', encoding='utf-8', compresslevel=9) as f:
    f.write('[\n' + ',\n'.join(json.dumps(x, ensure_ascii=False) for x in d) + '\n]\n')
print(len(d), 'values')
"
