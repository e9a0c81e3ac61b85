#!/usr/bin/env bash
# Activation and density, cellhost against workerd in one run, on the same
# examples/counter bytes (both with Durable Object storage on disk):
#   * first request to a new object (activation + one durable write),
#     sequential, one connection: p50 / p99 over FIRST (200) new names;
#   * resident idle objects: RSS growth of the server process per object
#     after IDLE (2000) more objects were each written once (16 at a time),
#     right after the writes and again IDLE_WAIT (15) s later, when both
#     runtimes have dropped the idle instances (workerd after 10 s, as
#     cellhost); open descriptors; failed requests.
#
#   bash bench/density.sh                 FIRST=200 IDLE=2000 IDLE_WAIT=15
#   REV=<commit> bash bench/density.sh    cellhost from a commit (git archive)
#   ANCHOR=/tmp/anchor bash bench/density.sh   workerd from another install
#
# workerd runs as bench/vs-workerd.sh runs it (`workerd serve` of
# wrangler.jsonc with WORKERD_ESBUILD, its port from the control fd); it is
# installed into .cache/anchor with npm when missing. cellhost runs as
# `cellhost dev <copy> --port <port> --state <dir> $CELLHOST_ARGS`. On
# 127.0.0.1 only. Every reply must carry the count 1 (a new object), and a
# sample of the objects is read back after the idle wait: the script exits
# 1 when any check fails. Prints the load average and the ratios
# cellhost / workerd.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
FIRST=${FIRST:-200}
IDLE=${IDLE:-2000}
IDLE_WAIT=${IDLE_WAIT:-15}
ANCHOR=${ANCHOR:-$ROOT/.cache/anchor}
WORKERD_PKG=workerd@1.20261117.1
ESBUILD_PKG=esbuild@0.28.2
die() { echo "density: FATAL: $*" >&2; exit 1; }
for t in go node npm curl awk timeout python3 tar; do command -v "$t" >/dev/null || die "$t is missing"; done
[[ $FIRST =~ ^[1-9][0-9]*$ && $IDLE =~ ^[1-9][0-9]*$ && $IDLE_WAIT =~ ^[0-9]+$ ]] || die "FIRST, IDLE and IDLE_WAIT must be integers"
[ "$IDLE" -le 50000 ] || die "IDLE at most 50000"

WORKERD=$ANCHOR/node_modules/.bin/workerd
ESBUILD=$ANCHOR/node_modules/.bin/esbuild
if [ ! -x "$WORKERD" ] || [ ! -x "$ESBUILD" ]; then
  echo "density: installing $WORKERD_PKG $ESBUILD_PKG into $ANCHOR (npm)" >&2
  mkdir -p "$ANCHOR"
  ( cd "$ANCHOR" && timeout 600 npm install --no-audit --no-fund --loglevel=error "$WORKERD_PKG" "$ESBUILD_PKG" ws@8 >&2 ) ||
    die "npm install of workerd failed"
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/density.XXXXXX")
PIDS=()
cleanup() {
  local p
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

PROJECT=$ROOT/examples/counter
if [ -n "${REV:-}" ]; then
  rev=$(git -C "$ROOT" rev-parse --short "$REV^{commit}") || die "REV=$REV is not a commit"
  mkdir -p "$work/src"
  git -C "$ROOT" archive "$rev" | tar -C "$work/src" -xf -
  ( cd "$work/src" && timeout 600 go build -o "$work/cellhost" ./cmd/cellhost ) || die "build of $rev failed"
  PROJECT=$work/src/examples/counter
else
  rev="$(cd "$ROOT" && git describe --always --dirty) (working tree)"
  ( cd "$ROOT" && timeout 600 go build -o "$work/cellhost" ./cmd/cellhost ) || die "build of the working tree failed"
fi
echo "cellhost $rev; workerd $("$WORKERD" --version 2>&1)"

# req.mjs <base> <prefix> <from> <n> <parallel> [peek]: one request to each
# of <prefix><from>..<from+n-1>; prints "<p50 ms> <p99 ms> <failures>",
# where a failure is an error or a reply whose count is not 1.
cat > "$work/req.mjs" <<'JS'
const [base, prefix, fromStr, nStr, parStr, peek] = process.argv.slice(2);
const from = Number(fromStr), n = Number(nStr), par = Number(parStr);
let next = 0, bad = 0;
const lat = [];
async function worker() {
  for (;;) {
    const k = next++;
    if (k >= n) return;
    const t0 = process.hrtime.bigint();
    try {
      const r = await fetch(`${base}/?name=${prefix}${from + k}${peek ? "&peek=1" : ""}`, { signal: AbortSignal.timeout(30000) });
      const j = await r.json();
      if (!(r.status === 200 && j.n === 1)) bad++;
    } catch { bad++; }
    lat.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
}
await Promise.all(Array.from({ length: par }, worker));
lat.sort((a, b) => a - b);
const q = (p) => lat[Math.min(lat.length - 1, Math.floor(p * lat.length))].toFixed(2);
console.log(`${q(0.5)} ${q(0.99)} ${bad}`);
JS

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
declare -A URL PID
start() { # start cellhost|workerd
  local kind=$1 port ctl
  mkdir -p "$work/proj-$kind"
  tar -C "$PROJECT" --exclude=./.cellhost --exclude=./.wrangler --exclude=./node_modules -cf - . | tar -C "$work/proj-$kind" -xf -
  if [ "$kind" = cellhost ]; then
    port=$(free_port)
    # shellcheck disable=SC2086
    "$work/cellhost" dev "$work/proj-$kind" --port "$port" --state "$work/state" ${CELLHOST_ARGS:-} >"$work/log-$kind" 2>&1 &
    PID[$kind]=$!
  else
    ctl=$work/workerd.ctl
    : >"$ctl"
    ( cd "$work/proj-$kind" && WORKERD_ESBUILD=$ESBUILD WRANGLER_SEND_METRICS=false exec "$WORKERD" serve \
        -s http=127.0.0.1:0 --control-fd 3 wrangler.jsonc 3>"$ctl" >"$work/log-$kind" 2>&1 ) &
    PID[$kind]=$!
    for _ in $(seq 1 300); do
      port=$(grep -o '"port":[0-9]*' "$ctl" 2>/dev/null | head -1 | cut -d: -f2 || true)
      [ -n "$port" ] && break
      sleep 0.1
    done
  fi
  PIDS+=("${PID[$kind]}")
  URL[$kind]=http://127.0.0.1:$port
  for _ in $(seq 1 300); do
    curl -sf --max-time 5 "${URL[$kind]}/?name=_probe&peek=1" >/dev/null 2>&1 && return 0
    kill -0 "${PID[$kind]}" 2>/dev/null || break
    sleep 0.1
  done
  cat "$work/log-$kind" >&2; die "$kind did not start"
}
rss_kb() { awk '/^VmRSS/{print $2}' "/proc/$1/status"; }
# cpu_us <pid>: user + system time of the process so far, microseconds
cpu_us() { awk -v hz="$(getconf CLK_TCK)" '{ sub(/^.*\) /, ""); split($0, f, " "); printf "%.0f\n", (f[12] + f[13]) * 1e6 / hz }' "/proc/$1/stat" 2>/dev/null || echo 0; }
fds() { ls "/proc/$1/fd" | wc -l; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.2f", (b>0)?a/b:0}'; }

start cellhost; start workerd
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
declare -A R
for s in cellhost workerd; do timeout 300 node "$work/req.mjs" "${URL[$s]}" warm 0 20 1 >/dev/null; done
# activation, alternating which server goes first in two halves
half=$(( (FIRST + 1) / 2 ))
# CPU per activation: the server's user + system time over both halves
# (/proc) divided by FIRST
for s in cellhost workerd; do c0=$(cpu_us "${PID[$s]}"); R[$s,a1]=$(timeout 900 node "$work/req.mjs" "${URL[$s]}" first 0 "$half" 1); R[$s,cpu]=$(( $(cpu_us "${PID[$s]}") - c0 )); done
for s in workerd cellhost; do c0=$(cpu_us "${PID[$s]}"); R[$s,a2]=$(timeout 900 node "$work/req.mjs" "${URL[$s]}" first "$half" $((FIRST - half)) 1); R[$s,cpu]=$(( R[$s,cpu] + $(cpu_us "${PID[$s]}") - c0 )); done
# density, one server at a time
for s in workerd cellhost; do
  p=${PID[$s]}
  before=$(rss_kb "$p")
  out=$(timeout 1800 node "$work/req.mjs" "${URL[$s]}" idle 0 "$IDLE" 16)
  sleep 1
  R[$s,rss1]=$(rss_kb "$p"); R[$s,fds1]=$(fds "$p")
  sleep "$IDLE_WAIT"
  R[$s,rss2]=$(rss_kb "$p"); R[$s,fds2]=$(fds "$p")
  R[$s,kb1]=$(( (R[$s,rss1] - before) / IDLE )); R[$s,kb2]=$(( (R[$s,rss2] - before) / IDLE ))
  R[$s,bad]=${out##* }
  # read a sample back (every 50th object)
  sample=0
  for ((k = 0; k < IDLE; k += 50)); do
    r=$(timeout 60 node "$work/req.mjs" "${URL[$s]}" idle "$k" 1 1 peek) || r="0 0 1"
    sample=$(( sample + ${r##* } ))
  done
  R[$s,sample]=$sample
done
echo "load average after:  $(cut -d' ' -f1-3 /proc/loadavg)"

# medians of the two halves are not medians of the whole: report both halves' p50, and the p99 of each
read -r c50a c99a cba <<<"${R[cellhost,a1]}"; read -r c50b c99b cbb <<<"${R[cellhost,a2]}"
read -r w50a w99a wba <<<"${R[workerd,a1]}"; read -r w50b w99b wbb <<<"${R[workerd,a2]}"
c50=$(awk -v a="$c50a" -v b="$c50b" 'BEGIN{printf "%.2f", (a+b)/2}'); w50=$(awk -v a="$w50a" -v b="$w50b" 'BEGIN{printf "%.2f", (a+b)/2}')
c99=$(awk -v a="$c99a" -v b="$c99b" 'BEGIN{printf "%.2f", (a>b)?a:b}'); w99=$(awk -v a="$w99a" -v b="$w99b" 'BEGIN{printf "%.2f", (a>b)?a:b}')
echo "first request to a new object ($FIRST sequential): p50 cellhost $c50 ms, workerd $w50 ms ($(ratio "$c50" "$w50")x; halves $c50a/$c50b vs $w50a/$w50b); p99 cellhost $c99 ms, workerd $w99 ms ($(ratio "$c99" "$w99")x); failures cellhost $((cba + cbb)), workerd $((wba + wbb)); CPU per activation cellhost $((R[cellhost,cpu] / FIRST)) us, workerd $((R[workerd,cpu] / FIRST)) us ($(ratio "${R[cellhost,cpu]}" "${R[workerd,cpu]}")x)"
for when in 1 2; do
  label="right after the writes"; [ "$when" = 2 ] && label="after ${IDLE_WAIT} s idle"
  ck=${R[cellhost,kb$when]}; wk=${R[workerd,kb$when]}
  per() { awk -v k="$1" 'BEGIN{ if (k > 0) printf "%d", 1048576 / k; else printf "-" }'; }
  echo "resident idle objects (+$IDLE), $label: cellhost $ck KB each (RSS ${R[cellhost,rss$when]} KB, $(per "$ck") per GB, ${R[cellhost,fds$when]} fds), workerd $wk KB each (RSS ${R[workerd,rss$when]} KB, $(per "$wk") per GB, ${R[workerd,fds$when]} fds), ratio $(ratio "$ck" "$wk")x"
done
echo "failures: cellhost ${R[cellhost,bad]} writes, ${R[cellhost,sample]} sample reads; workerd ${R[workerd,bad]} writes, ${R[workerd,sample]} sample reads"
bad=$(( cba + cbb + wba + wbb + R[cellhost,bad] + R[workerd,bad] + R[cellhost,sample] + R[workerd,sample] ))
[ "$bad" = 0 ] || exit 1
