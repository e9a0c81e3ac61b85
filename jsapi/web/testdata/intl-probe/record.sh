#!/usr/bin/env bash
# record.sh: runs probe.js on workerd and writes expected.json.gz.
# WORKERD: the workerd binary (default: ~/.cache/cellhost/intl-anchor, where
#   `npm install workerd@1.20261117.1` put it; ICU 78 / CLDR 48).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
WORKERD=${WORKERD:-$HOME/.cache/cellhost/intl-anchor/node_modules/.bin/workerd}
TMP=$(mktemp -d)
PID=
trap '[ -n "$PID" ] && kill $PID 2>/dev/null; rm -rf "$TMP"' EXIT
{ cat "$HERE/probe.js"; echo 'export default { async fetch() { return new Response(JSON.stringify(probe())); } };'; } > "$TMP/w.js"
. "$HERE/serve-workerd.sh"
serve_workerd
python3 -c "
import json,sys
d=json.load(open('$TMP/out'))
import gzip
with gzip.open('$HERE/expected.json.gz','wt',encoding='utf-8',compresslevel=9) as f:
    f.write('[\n' + ',\n'.join(json.dumps(x, ensure_ascii=False) for x in d) + '\n]\n')
print(len(d), 'values')
"
"$WORKERD" --version
