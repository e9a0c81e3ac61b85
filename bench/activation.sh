#!/usr/bin/env bash
# Activation and density of two cellhost builds in one run, on
# examples/counter in the default (log) mode:
#   * first request to a new object (activation + one durable write),
#     sequential, one connection: p50 / p99 over FIRST (200) new names;
#   * resident idle objects: RSS growth of the server process after
#     IDLE (2000) more objects were each written once (16 at a time),
#     in KB per object, and how many of those requests failed.
#
#   bash bench/activation.sh           FIRST=200 IDLE=2000 BASE=main
#
# A is built from BASE (a commit, via git archive), B from the working tree;
# the scenarios alternate which one goes first. On 127.0.0.1 only. Prints
# the load average, both servers' numbers and the ratios B/A.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
FIRST=${FIRST:-200}
IDLE=${IDLE:-2000}
BASE_REV=${BASE:-main}
die() { echo "activation: FATAL: $*" >&2; exit 1; }
for t in go node curl git awk timeout python3; do command -v "$t" >/dev/null || die "$t is missing"; done
[[ $FIRST =~ ^[1-9][0-9]*$ && $IDLE =~ ^[1-9][0-9]*$ ]] || die "FIRST and IDLE must be positive integers"
[ "$IDLE" -le 50000 ] || die "IDLE at most 50000"

# shellcheck source=ab-lib.sh
source "$ROOT/bench/ab-lib.sh"

# req.mjs <base> <prefix> <n> <parallel>: writes once to <prefix>0..n-1 and
# prints "<p50 ms> <p99 ms> <failures> <sum of counts>"
cat > "$work/req.mjs" <<'JS'
const [base, prefix, nStr, parStr] = process.argv.slice(2);
const n = Number(nStr), par = Number(parStr);
let next = 0, bad = 0, sum = 0;
const lat = [];
async function worker() {
  for (;;) {
    const k = next++;
    if (k >= n) return;
    const t0 = process.hrtime.bigint();
    try {
      const r = await fetch(`${base}/?name=${prefix}${k}`, { signal: AbortSignal.timeout(30000) });
      const j = await r.json();
      if (r.status === 200 && j.n === 1) sum += j.n; else bad++;
    } catch { bad++; }
    lat.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
}
await Promise.all(Array.from({ length: par }, worker));
lat.sort((a, b) => a - b);
const q = (p) => lat[Math.min(lat.length - 1, Math.floor(p * lat.length))].toFixed(2);
console.log(`${q(0.5)} ${q(0.99)} ${bad} ${sum}`);
JS

declare -A URL PID
start() {
  local port
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  mkdir -p "$work/proj-$1"
  tar -C "$ROOT/examples/counter" --exclude=./.cellhost --exclude=./.wrangler --exclude=./node_modules -cf - . | tar -C "$work/proj-$1" -xf -
  # shellcheck disable=SC2086
  "$work/$1" dev "$work/proj-$1" --port "$port" --state "$work/state-$1" ${CELLHOST_ARGS:-} >"$work/log-$1" 2>&1 &
  PID[$1]=$!; PIDS+=($!)
  URL[$1]=http://127.0.0.1:$port
  for _ in $(seq 1 300); do
    curl -sf --max-time 5 "${URL[$1]}/?name=_probe&peek=1" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  cat "$work/log-$1" >&2; die "$1 did not start"
}
rss_kb() { awk '/^VmRSS/{print $2}' "/proc/$1/status"; }
start A; start B
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
declare -A R
for s in A B; do timeout 300 node "$work/req.mjs" "${URL[$s]}" warm 20 1 >/dev/null; done
for s in A B; do R[$s,first]=$(timeout 600 node "$work/req.mjs" "${URL[$s]}" first "$FIRST" 1); done
for s in B A; do
  before=$(rss_kb "${PID[$s]}")
  out=$(timeout 900 node "$work/req.mjs" "${URL[$s]}" idle "$IDLE" 16)
  sleep 2
  after=$(rss_kb "${PID[$s]}")
  R[$s,idle]="$(( (after - before) / IDLE )) ${out#* * }"
  R[$s,rss]=$after
done
echo "load average after:  $(cut -d' ' -f1-3 /proc/loadavg)"
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.2f", (a>0)?b/a:0}'; }
read -r a50 a99 abad _ <<<"${R[A,first]}"; read -r b50 b99 bbad _ <<<"${R[B,first]}"
echo "first request to a new object ($FIRST sequential): p50 A $a50 ms, B $b50 ms (B/A $(ratio "$a50" "$b50")); p99 A $a99 ms, B $b99 ms; failures A $abad, B $bbad"
read -r akb abad _ <<<"${R[A,idle]}"; read -r bkb bbad _ <<<"${R[B,idle]}"
echo "idle resident objects (+$IDLE): A $akb KB each (RSS ${R[A,rss]} KB), B $bkb KB each (RSS ${R[B,rss]} KB), B/A $(ratio "$akb" "$bkb"); failures A $abad, B $bbad"
[ "$abad" = 0 ] && [ "$bbad" = 0 ] || exit 1
