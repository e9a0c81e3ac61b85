#!/usr/bin/env bash
# WebAssembly on cellhost (wazero, compiler mode) against workerd (V8) in one
# run, on the same project bytes (bench/wasm):
#
#   bash bench/wasm.sh [rounds]        (default 7)
#
# Scenarios (GET, one at a time, through the worker's fetch; each returns a
# checksum and both servers must return the same):
#   jsloop   /jsloop?n=1000000   a JS loop calling a JS function (JS alone)
#   js2wasm  /js2wasm?n=1000000  a JS loop calling a wasm export add(i32, i32)
#   wasm2js  /wasm2js?n=1000000  a wasm loop calling a JS import
#   mix      /mix?n=50000000     a pure wasm loop (splitmix64, i64 arithmetic)
#   jpeg     /jpeg?n=512         mozjpeg (emscripten) encodes a 512x512 image
# Each scenario runs ROUNDS times per server, alternating which server goes
# first, after one warm-up request. Two times per request, each minus /noop's:
# wall (the client's clock: workerd freezes Date.now() while JS runs;
# median) and the server process's CPU (user + system from /proc, summed
# over the rounds: on a busy machine wall time mostly measures waiting for
# a core). The summary prints both, ns per call for the call scenarios (CPU),
# and cellhost / workerd.
#
# Environment: BASE=<commit> also runs cellhost built from that commit (via
# git archive) as a third server, "base", in the same rounds: before/after
# ratios from one run (BASE_BIN=<path>: a cellhost binary built from BASE
# beforehand, used instead of building it). KEEP=1 keeps the temp dir. workerd comes from npm into
# .cache/anchor (workerd-lib.sh); bench/wasm's npm dependency is installed
# into the copy. On 127.0.0.1 only.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ROUNDS=${1:-7}
die() { echo "wasm bench: FATAL: $*" >&2; exit 1; }
for t in go curl python3 npm; do command -v "$t" >/dev/null || die "$t is missing"; done
[[ $ROUNDS =~ ^[1-9][0-9]?$ ]] || die "rounds 1..99"

# shellcheck source=workerd-lib.sh
source "$ROOT/bench/workerd-lib.sh"
workerd_install

work=$(mktemp -d "${TMPDIR:-/tmp}/wasmbench.XXXXXX")
PIDS=()
cleanup() {
  local p
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
  if [ "${KEEP:-0}" = 1 ]; then echo "wasm bench: kept $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

( cd "$ROOT" && timeout 600 go build -o "$work/cellhost" ./cmd/cellhost ) || die "build of the working tree failed"
if [ -n "${BASE:-}" ]; then
  rev=$(git -C "$ROOT" rev-parse --short "$BASE^{commit}") || die "BASE=$BASE is not a commit"
  mkdir -p "$work/src-base"
  if [ -n "${BASE_BIN:-}" ]; then
    cp "$BASE_BIN" "$work/cellhost-base"
  else
    git -C "$ROOT" archive "$rev" | tar -C "$work/src-base" -xf -
    ( cd "$work/src-base" && timeout 1800 go build -o "$work/cellhost-base" ./cmd/cellhost ) || die "build of $rev failed"
  fi
  echo "wasm bench: base is $rev" >&2
fi
mkdir -p "$work/proj"
tar -C "$ROOT/bench/wasm" --exclude=./node_modules --exclude=./.wrangler --exclude=./.cellhost -cf - . | tar -C "$work/proj" -xf -
( cd "$work/proj" && timeout 600 npm ci --no-audit --no-fund --loglevel=error >&2 ) || die "npm ci of bench/wasm failed"
cp -r "$work/proj" "$work/proj-workerd"

declare -A URL
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$work/cellhost" dev "$work/proj" --port "$port" --state "$work/state" >>"$work/log-cellhost" 2>&1 &
CHPID=$!
PIDS+=("$CHPID"); URL[cellhost]=http://127.0.0.1:$port
SERVERS=(cellhost workerd)
BASEPID=0
if [ -n "${BASE:-}" ]; then
  cp -r "$work/proj" "$work/proj-base"
  bport=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  "$work/cellhost-base" dev "$work/proj-base" --port "$bport" --state "$work/state-base" >>"$work/log-base" 2>&1 &
  BASEPID=$!
  PIDS+=("$BASEPID"); URL[base]=http://127.0.0.1:$bport
  SERVERS+=(base)
fi
workerd_start "$work/proj-workerd" "$work/log-workerd" "$work/ctl-workerd"
PIDS+=("$SPID"); URL[workerd]=http://127.0.0.1:$(workerd_port "$work/ctl-workerd" "$SPID")
for s in "${SERVERS[@]}"; do
  for _ in $(seq 1 300); do curl -sf --max-time 5 "${URL[$s]}/noop" >/dev/null 2>&1 && break; sleep 0.1; done
  curl -sf --max-time 5 "${URL[$s]}/noop" >/dev/null || { cat "$work/log-$s" >&2; die "$s did not start"; }
done

python3 - "$ROUNDS" "${URL[cellhost]}" "${URL[workerd]}" "$CHPID" "$SPID" "${URL[base]:-}" "$BASEPID" <<'PY'
import os, sys, time, urllib.request, statistics
rounds, urls = int(sys.argv[1]), {"cellhost": sys.argv[2], "workerd": sys.argv[3]}
pids = {"cellhost": int(sys.argv[4]), "workerd": int(sys.argv[5])}
if sys.argv[6]:
    urls["base"], pids["base"] = sys.argv[6], int(sys.argv[7])
tick = os.sysconf("SC_CLK_TCK")
scen = [("noop", "/noop", 0), ("jsloop", "/jsloop?n=300000", 300000), ("js2wasm", "/js2wasm?n=300000", 300000),
        ("wasm2js", "/wasm2js?n=300000", 300000), ("mix", "/mix?n=20000000", 0), ("jpeg", "/jpeg?n=512", 0)]
def cpu(pid):  # utime + stime of the process and its threads, seconds
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / tick
server = None
def get(u):
    c0 = cpu(pids[server]); t = time.perf_counter()
    with urllib.request.urlopen(u, timeout=300) as r:
        body = r.read().decode()
        if r.status != 200: raise SystemExit(f"{u}: status {r.status}")
    dt = time.perf_counter() - t
    cputime[(cur, server)] = cputime.get((cur, server), 0) + cpu(pids[server]) - c0
    return dt, body
cputime = {}
res = {}
for name, path, _ in scen:
    sums = {}
    cur = "warm"
    for s, base in urls.items():
        server = s
        _, sums[s] = get(base + path)  # warm-up (and the checksum)
    cur = name
    if len(set(sums.values())) != 1:
        raise SystemExit(f"{name}: the servers disagree: {sums}")
    for r in range(rounds):
        order = list(urls) if r % 2 == 0 else list(urls)[::-1]
        for s in order:
            server = s
            dt, body = get(urls[s] + path)
            if body != sums[s]: raise SystemExit(f"{name} on {s}: {body} != {sums[s]}")
            res.setdefault((name, s), []).append(dt)
med = {k: statistics.median(v) * 1000 for k, v in res.items()}
cms = {k: v * 1000 / rounds for k, v in cputime.items()}
print(f"{'scenario':9} {'wall: cellhost':>14} {'workerd':>9} {'ratio':>7} {'cpu: cellhost':>14} {'workerd':>9} {'ratio':>7}   cpu per call (cellhost / workerd)")
for name, path, calls in scen:
    c, w = med[(name, "cellhost")], med[(name, "workerd")]
    cc, cw = cms.get((name, "cellhost"), 0), cms.get((name, "workerd"), 0)
    if name != "noop":
        c -= med[("noop", "cellhost")]; w -= med[("noop", "workerd")]
        cc -= cms.get(("noop", "cellhost"), 0); cw -= cms.get(("noop", "workerd"), 0)
    ratio = lambda a, b: f"{a / b:7.1f}" if b > 0 else "      -"
    per = f"{cc * 1e6 / calls:8.0f} ns / {cw * 1e6 / calls:5.0f} ns" if calls else ""
    print(f"{name:9} {c:11.1f} ms {w:6.1f} ms {ratio(c, w)} {cc:11.1f} ms {cw:6.1f} ms {ratio(cc, cw)}   {per}")
if "base" in urls:
    print("base (the BASE commit) against the working tree, same rounds:")
    print(f"{'scenario':9} {'cpu: base':>10} {'cellhost':>9} {'workerd':>8} {'base/wd':>8} {'now/wd':>7} {'base/now':>8}   cpu per call (base / cellhost / workerd)")
    for name, path, calls in scen:
        if name == "noop": continue
        b, c, w = (cms.get((name, s), 0) - cms.get(("noop", s), 0) for s in ("base", "cellhost", "workerd"))
        ratio = lambda a, d: f"{a / d:8.1f}" if d > 0 else "       -"
        per = f"{b * 1e6 / calls:6.0f} / {c * 1e6 / calls:6.0f} / {w * 1e6 / calls:5.0f} ns" if calls else ""
        print(f"{name:9} {b:7.1f} ms {c:6.1f} ms {w:5.1f} ms {ratio(b, w)} {ratio(c, w)[1:]} {ratio(b, c)}   {per}")
print(f"(wall: medians of {rounds} rounds; cpu: mean per request, {1000 // tick} ms ticks; noop subtracted from the others)")
PY
