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
. "$HERE/serve-workerd.sh"
serve_workerd
python3 -c "
import json, gzip
d = json.load(open('$TMP/out'))
with gzip.open('$HERE/calendars.json.gz', 'wt', encoding='utf-8', compresslevel=9) as f:
    f.write('[\n' + ',\n'.join(json.dumps(x, ensure_ascii=False) for x in d) + '\n]\n')
print(len(d), 'values')
"
