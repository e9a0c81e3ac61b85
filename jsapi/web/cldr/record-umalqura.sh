#!/usr/bin/env bash
# record-umalqura.sh: records the islamic-umalqura month table from workerd
# into data/umalqura.json.gz (run by `go generate ./jsapi/web/cldr`, see
# umalqura.go; WORKERD: the workerd binary, default the npm workerd of
# testdata/anchor, ICU 78.2).
#
# ICU's IslamicUmalquraCalendar counts months from a table of its own
# (1300-1600 AH, month lengths as bits) that no registry publishes, and the
# civil calendar outside it. So the table is recorded from ICU itself: a
# worker formats every day from 1882 to 2175 with en-u-ca-islamic-umalqura
# and notes each day 1. The file holds firstMonth (the Islamic months
# before 1 Muharram 1300: (1300-1)*12) and rjdStarts (the Julian day
# number - 2 400 000 of each month's first day, 1/1300 to 1/1601; the
# last ends the table). TestIntlCalendars compares the calendar with
# workerd's from 1868 to 2200.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
WORKERD=${WORKERD:-$HERE/../../../.cache/anchor/node_modules/.bin/workerd}
[ -x "$WORKERD" ] || { echo "record-umalqura.sh: no workerd at $WORKERD (set WORKERD; npm install workerd, see testdata/anchor)" >&2; exit 1; }
TMP=$(mktemp -d)
PID=
trap '[ -n "$PID" ] && kill $PID 2>/dev/null; rm -rf "$TMP"' EXIT
cat > "$TMP/w.js" <<'JS'
export default {
  async fetch() {
    const f = new Intl.DateTimeFormat("en-u-ca-islamic-umalqura", { timeZone: "UTC", year: "numeric", month: "numeric", day: "numeric" });
    const out = [];
    for (let t = Date.UTC(1882, 0, 1); t < Date.UTC(2175, 0, 1); t += 86400000) {
      const p = f.formatToParts(t);
      const g = (k) => Number(p.find((x) => x.type === k).value);
      if (g("day") === 1 && ((g("year") >= 1300 && g("year") <= 1600) || (g("year") === 1601 && g("month") === 1))) {
        out.push([g("year"), g("month"), t / 86400000]);
      }
    }
    return new Response(JSON.stringify(out));
  },
};
JS
. "$HERE/../testdata/intl-probe/serve-workerd.sh"
serve_workerd
python3 - "$TMP/out" "$HERE/data/umalqura.json.gz" <<'PY'
import gzip, json, sys
months = json.load(open(sys.argv[1]))
first = (months[0][0] - 1) * 12 + months[0][1] - 1
for i, (y, m, day) in enumerate(months):
    assert (y - 1) * 12 + m - 1 == first + i, ("month gap", y, m)
    if i:
        assert day - months[i - 1][2] in (29, 30), ("month length", y, m)
assert first == 1299 * 12 and months[-1][:2] == [1601, 1], "not 1/1300..1/1601"
# epoch day + 2440588 is the Julian day number; stored as JDN - 2400000
doc = {"firstMonth": first, "rjdStarts": [day + 40588 for _, _, day in months]}
with gzip.GzipFile(sys.argv[2], "wb", 9, mtime=0) as f:
    f.write(json.dumps(doc, separators=(",", ":")).encode())
print(len(months) - 1, "months, 1/1300 to 12/1600")
PY
