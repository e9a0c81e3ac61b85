#!/usr/bin/env bash
# bench.sh: times DateTimeFormat construction, format and
# Date#toLocaleString on workerd and then runs BenchmarkIntlDateTimeFormat
# (the same calls in cellhost) in the same run, and prints cellhost's CPU
# per op over workerd's (BENCH_GO=0 skips the Go side). workerd freezes
# the clock inside a request, so each op is timed from outside: a request
# doing N ops minus one doing none, per op. Prints ns/op (wall) and
# cpu-ns/op (workerd's CPU time from /proc, as the Go benchmark's
# cpu-ns/op: on a shared machine wall time mostly measures the wait).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
WORKERD=${WORKERD:-$HERE/../../../../.cache/anchor/node_modules/.bin/workerd}
[ -x "$WORKERD" ] || WORKERD=$HOME/.cache/cellhost/intl-anchor/node_modules/.bin/workerd
N=${N:-20000}
TMP=$(mktemp -d)
PID=
trap '[ -n "$PID" ] && kill $PID 2>/dev/null; rm -rf "$TMP"' EXIT
cat > "$TMP/w.js" <<'JS'
const d = Date.UTC(2026, 2, 8, 12, 0, 0);
const f = new Intl.DateTimeFormat("de-DE", { dateStyle: "medium", timeStyle: "short", timeZone: "Europe/Berlin" });
const date = new Date(d);
const ops = {
  toLocaleString: () => date.toLocaleString("de-DE", { timeZone: "Europe/Berlin" }),
  "toLocaleString-default": () => date.toLocaleString(),
  construct: () => new Intl.DateTimeFormat("de-DE", { dateStyle: "medium", timeStyle: "short", timeZone: "Europe/Berlin" }),
  format: () => f.format(d),
  "construct-components": () => new Intl.DateTimeFormat("en-US", { weekday: "short", month: "short", day: "numeric", hour: "numeric", minute: "2-digit", timeZoneName: "short", timeZone: "America/New_York" }),
};
export default {
  async fetch(req) {
    const u = new URL(req.url);
    const op = ops[u.searchParams.get("op")];
    const n = Number(u.searchParams.get("n"));
    let x;
    for (let i = 0; i < n; i++) x = op();
    return new Response(String(x !== undefined));
  },
};
JS
. "$HERE/serve-workerd.sh"
serve_workerd "/?op=format&n=1"
t() { curl -s -o /dev/null -w '%{time_total}' "http://127.0.0.1:$PORT/?op=$1&n=$2"; }
cpu() { awk '{print $14 + $15}' /proc/$PID/stat; } # utime+stime in clock ticks
HZ=$(getconf CLK_TCK)
declare -A WCPU
for op in construct format construct-components toLocaleString toLocaleString-default; do
  t "$op" 2000 >/dev/null # warm up
  best=
  bestcpu=
  # the CPU clock ticks at 1/HZ s: the cheap ops run 10 times as often
  n=$N
  case $op in format | toLocaleString-default) n=$((N * 10)) ;; esac
  for _ in 1 2 3; do
    a=$(t "$op" 0); c0=$(cpu); b=$(t "$op" "$n"); c1=$(cpu)
    ns=$(python3 -c "print(int(($b - $a) * 1e9 / $n))")
    cns=$(python3 -c "print(int(($c1 - $c0) * 1e9 / $HZ / $n))")
    if [ -z "$best" ] || [ "$ns" -lt "$best" ]; then best=$ns; fi
    if [ -z "$bestcpu" ] || [ "$cns" -lt "$bestcpu" ]; then bestcpu=$cns; fi
  done
  echo "workerd $op: $best ns/op, $bestcpu cpu-ns/op (best of 3, N=$n)"
  WCPU[$op]=$bestcpu
done
kill $PID 2>/dev/null; PID=
[ "${BENCH_GO:-1}" = 0 ] && exit 0
cd "$HERE/../.."
go test -run XXX -bench 'IntlDateTimeFormat' -benchtime "${N}x" -count 1 . | tee "$TMP/go"
for op in "${!WCPU[@]}"; do
  c=$(awk -v re="^BenchmarkIntlDateTimeFormat/$op-[0-9]+\$" '$1 ~ re { for (i = 1; i < NF; i++) if ($(i+1) == "cpu-ns/op") print $i }' "$TMP/go")
  [ -n "$c" ] && python3 -c "print('%-24s cellhost %8.0f cpu-ns/op, workerd %8d: %.2fx' % ('$op', $c, ${WCPU[$op]}, $c / max(${WCPU[$op]}, 1)))"
done
