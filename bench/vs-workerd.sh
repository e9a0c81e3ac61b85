#!/usr/bin/env bash
# Side-by-side load test: cellhost against workerd (Cloudflare's runtime),
# in one run, on the same project bytes (examples/counter), both with
# Durable Object storage on disk.
#
#   bash bench/vs-workerd.sh [duration-seconds] [connections]     (10, 64)
#
# Environment: THREADS (wrk threads, 2), WARM (warm-up seconds, 2),
# ROUNDS (1): measured runs per server and scenario, alternating which server
# goes first; the summary uses the median of the rounds,
# REV=<commit> to build cellhost (and take the example) from a commit
# via git archive instead of the working tree, FSYNC_PROBE=0 to skip the
# strace fsync count, KEEP=1 to keep the temp dir,
# EXAMPLE=<name> (counter) and CLASS=<its object class> (Counter) to serve
# another example whose objects answer ?peek=1 with {"n": <stored count>}
# and count one per write (bench/sql.sh runs examples/sqlheavy this way).
#
# What it does, every step bounded in time and on 127.0.0.1 only:
#   * installs workerd@1.20261117.1 (+ esbuild, ws) from npm into
#     .cache/anchor if missing, and wrk from Debian if missing;
#   * builds cellhost from this checkout (working tree as it is, or REV);
#   * copies examples/counter (without state dirs) to a temp dir; both
#     servers serve copies of those bytes (checksums printed):
#       cellhost: cellhost dev <copy> --port <free random port> --state <dir> $CELLHOST_ARGS
#                 (e.g. CELLHOST_ARGS="--durability local" for the fsync-only baseline)
#       workerd:  workerd serve -s http=127.0.0.1:0 --control-fd 3 wrangler.jsonc
#                 in <copy> with WORKERD_ESBUILD set, as
#                 /work/shared/anchor/record.sh does. workerd's wrangler mode
#                 bundles the .ts with esbuild and keeps each object in a SQLite
#                 file under <copy>/.wrangler/state/workerd/ (localDisk storage);
#                 the script checks those files exist;
#   * starts both servers, then, alternating between them (one under load at
#     a time, so that other load on the machine hits both alike), each after a
#     WARM-second warm-up, a DUR-second wrk run of:
#       one object    GET /?name=bench                  (worker fetch -> DO)
#       1000 objects  GET /?name=o<random 0..999>        (wrk lua script)
#       cellhost only GET /do/Counter/direct            (straight to the DO)
#     every request increments a durable counter;
#   * after each run: the stored count's increase (read with ?peek=1) must be
#     at least the number of 2xx responses wrk got, and at most that plus the
#     requests still in flight when wrk stopped (connections + socket errors);
#     otherwise the run is INVALID (a server that drops writes cannot win);
#   * restarts each server on its state and checks every count survived;
#   * with strace, counts fsync/fdatasync/syncfs per write (1 and N clients);
#   * prints req/s (2xx only), the server's CPU per 2xx request (user + system
#     time of its process from /proc over the measured run: other load on the
#     machine moves it much less than req/s), p50/p99, and ratios
#     cellhost/workerd (for CPU: workerd's CPU per request / cellhost's, so
#     above 1x cellhost spends less).
# Exit status: 0 when every run verified, 1 otherwise.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DUR=${1:-10}
CONNS=${2:-64}
THREADS=${THREADS:-2}
WARM=${WARM:-2}
ROUNDS=${ROUNDS:-1}
OBJECTS=1000
EXAMPLE=${EXAMPLE:-counter}
CLASS=${CLASS:-Counter}
PROJECT=$ROOT/examples/$EXAMPLE
DIRECT=/do/$CLASS/direct

die() { echo "vs-workerd: FATAL: $*" >&2; exit 1; }
note() { echo "vs-workerd: $*" >&2; }
isint() { [[ $1 =~ ^[1-9][0-9]*$ ]]; }
[ -f "$PROJECT/wrangler.jsonc" ] || die "no examples/$EXAMPLE/wrangler.jsonc"
isint "$DUR" && [ "$DUR" -le 600 ] || die "duration must be 1..600 seconds, got '$DUR'"
isint "$CONNS" && [ "$CONNS" -le 4096 ] || die "connections must be 1..4096, got '$CONNS'"
isint "$THREADS" || die "THREADS must be a positive integer"
isint "$WARM" || die "WARM must be a positive integer"
isint "$ROUNDS" && [ "$ROUNDS" -le 9 ] || die "ROUNDS must be 1..9"
[ "$THREADS" -le "$CONNS" ] || THREADS=$CONNS

# ---------------------------------------------------------------- tools
for t in go node npm curl timeout awk; do
  command -v "$t" >/dev/null || die "$t is missing"
done
if ! command -v wrk >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    note "installing wrk (apt-get install -y wrk)"
    timeout 300 apt-get install -y -qq wrk >/dev/null 2>&1 ||
      { timeout 300 apt-get update -qq >/dev/null 2>&1 && timeout 300 apt-get install -y -qq wrk >/dev/null 2>&1; } ||
      die "could not install wrk: apt-get install -y wrk"
  else
    die "wrk is missing: apt-get install -y wrk"
  fi
fi
# shellcheck source=workerd-lib.sh
source "$ROOT/bench/workerd-lib.sh"
workerd_install
HAVE_STRACE=0
if [ "${FSYNC_PROBE:-1}" != 0 ] && command -v strace >/dev/null; then HAVE_STRACE=1; fi

# ---------------------------------------------------------------- temp dir, cleanup
work=$(mktemp -d "${TMPDIR:-/tmp}/vs-workerd.XXXXXX")
PIDS=()   # every process we started and that may still run
cleanup() {
  local p
  for p in "${PIDS[@]}"; do
    [ -n "$p" ] && kill -0 "$p" 2>/dev/null && kill "$p" 2>/dev/null || true
  done
  for p in "${PIDS[@]}"; do
    [ -n "$p" ] || continue
    for _ in $(seq 1 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$p" 2>/dev/null || true
    wait "$p" 2>/dev/null || true
  done
  PIDS=()
  if [ "${KEEP:-0}" = 1 ]; then note "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

forget() { local p=$1 i; for i in "${!PIDS[@]}"; do [ "${PIDS[$i]}" = "$p" ] && unset 'PIDS[i]'; done; PIDS=("${PIDS[@]}"); }
stop_pid() { # stop_pid <pid>: TERM, up to 5 s, then KILL
  local p=$1
  kill "$p" 2>/dev/null || true
  for _ in $(seq 1 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
  kill -9 "$p" 2>/dev/null || true
  wait "$p" 2>/dev/null || true
  forget "$p"
}

# ---------------------------------------------------------------- project copies, build
copy_project() { # copy_project <dest>: the project without state or installs
  mkdir -p "$1"
  tar -C "$PROJECT" --exclude=./.cellhost --exclude=./.wrangler --exclude=./node_modules -cf - . | tar -C "$1" -xf -
}
tree_sum() { # tree_sum <dir>: one checksum of the project files
  ( cd "$1" && find . -type f -not -path './.cellhost/*' -not -path './.wrangler/*' -not -path './node_modules/*' \
      | LC_ALL=C sort | xargs sha256sum ) | sha256sum | cut -c1-16
}

if [ -n "${REV:-}" ]; then
  CH_REV="$(git -C "$ROOT" rev-parse --short "$REV^{commit}" 2>/dev/null)" || die "REV=$REV is not a commit"
  note "building cellhost at $CH_REV (git archive)"
  mkdir -p "$work/src"
  git -C "$ROOT" archive "$CH_REV" | tar -C "$work/src" -xf - || die "git archive $CH_REV failed"
  ( cd "$work/src" && timeout 600 go build -o "$work/cellhost" ./cmd/cellhost ) || die "go build ./cmd/cellhost at $CH_REV failed"
else
  CH_REV="$(cd "$ROOT" && git describe --always --dirty 2>/dev/null || echo unknown) (working tree)"
  note "building cellhost from the working tree"
  ( cd "$ROOT" && timeout 600 go build -o "$work/cellhost" ./cmd/cellhost ) ||
    die "go build ./cmd/cellhost failed in the working tree (REV=HEAD builds the last commit instead)"
fi
[ -n "${REV:-}" ] && PROJECT=$work/src/examples/$EXAMPLE
copy_project "$work/proj-cellhost"
copy_project "$work/proj-workerd"
SUM_SRC=$(tree_sum "$PROJECT")
SUM_CH=$(tree_sum "$work/proj-cellhost")
SUM_WD=$(tree_sum "$work/proj-workerd")
[ "$SUM_SRC" = "$SUM_CH" ] && [ "$SUM_SRC" = "$SUM_WD" ] || die "project copies differ from $PROJECT"

# ---------------------------------------------------------------- helper scripts
cat > "$work/one.lua" <<'LUA'
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("WRKSTAT requests=%d duration_us=%d status=%d connect=%d read=%d write=%d timeout=%d p50_us=%.0f p99_us=%.0f\n",
    summary.requests, summary.duration, e.status, e.connect, e.read, e.write, e.timeout,
    latency:percentile(50), latency:percentile(99)))
end
LUA
# many.lua: each request increments o<0..OBJECTS-1>, random (measured runs) or
# round-robin per thread (warm-up, so that every object is opened before).
cat > "$work/many.lua" <<LUA
local objects = $OBJECTS
local counter = 0
setup = function(thread) thread:set("tid", counter); counter = counter + 1 end
local rr = os.getenv("BENCH_ROUNDROBIN") == "1"
local nthreads = tonumber(os.getenv("BENCH_THREADS") or "1")
local i = 0
init = function(args)
  math.randomseed(os.time() * 1000 + (tid or 0) * 7919)
  i = math.floor((tid or 0) * objects / nthreads)
end
request = function()
  local k
  if rr then k = i % objects; i = i + 1 else k = math.random(0, objects - 1) end
  return wrk.format("GET", "/?name=o" .. k)
end
LUA
cat "$work/one.lua" >> "$work/many.lua"
# sum.mjs <base> <n> [touch]: sum of the stored counters of o0..o<n-1>
# ("<sum> <failures>"); with touch, increments each of them once instead.
cat > "$work/sum.mjs" <<'JS'
const [base, nStr, mode] = process.argv.slice(2);
const q = mode === "touch" ? "" : "&peek=1";
const n = Number(nStr);
let next = 0, sum = 0, bad = 0;
async function worker() {
  for (;;) {
    const k = next++;
    if (k >= n) return;
    try {
      const r = await fetch(`${base}/?name=o${k}${q}`, { signal: AbortSignal.timeout(10000) });
      const j = await r.json();
      if (r.status === 200 && Number.isInteger(j.n)) sum += j.n; else bad++;
    } catch { bad++; }
  }
}
await Promise.all(Array.from({ length: 16 }, worker));
console.log(`${sum} ${bad}`);
JS

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null ||
    echo $(( 20000 + RANDOM % 30000 ))
}

# ---------------------------------------------------------------- servers
# start_server <kind> <tag>: starts cellhost or workerd on its (possibly
# already used) state; sets BASE, SPID, SLOG. Fails loudly if it does not
# answer a request through the worker within 30 s.
start_server() {
  local kind=$1 tag=$2 port= ctl
  SLOG=$work/$kind-$tag.log
  : > "$SLOG"
  if [ "$kind" = cellhost ]; then
    local attempt
    for attempt in 1 2 3; do
      port=$(free_port)
      # shellcheck disable=SC2086 # CELLHOST_ARGS is split on purpose
      "$work/cellhost" dev "$work/proj-cellhost" --port "$port" --state "$work/state-cellhost" ${CELLHOST_ARGS:-} >"$SLOG" 2>&1 &
      SPID=$!; PIDS+=("$SPID")
      sleep 0.2
      kill -0 "$SPID" 2>/dev/null && break
      wait "$SPID" 2>/dev/null || true; forget "$SPID"
      grep -qi 'address already in use' "$SLOG" || break
      note "port $port was taken, retrying"
    done
  else
    ctl=$work/$kind-$tag.ctl
    workerd_start "$work/proj-workerd" "$SLOG" "$ctl"
    PIDS+=("$SPID")
    port=$(workerd_port "$ctl" "$SPID")
  fi
  BASE=http://127.0.0.1:$port
  local code=
  for _ in $(seq 1 300); do
    if ! kill -0 "$SPID" 2>/dev/null; then
      echo "vs-workerd: FATAL: $kind exited before serving (log $SLOG):" >&2; sed 's/^/    /' "$SLOG" >&2; exit 1
    fi
    if [ -n "$port" ]; then
      code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 "$BASE/?name=_probe&peek=1" || true)
      [ "$code" = 200 ] && return 0
    fi
    sleep 0.1
  done
  echo "vs-workerd: FATAL: $kind did not answer 200 on ${BASE:-?}/?name=_probe&peek=1 within 30 s (last: ${code:-none}); log:" >&2
  sed 's/^/    /' "$SLOG" >&2; exit 1
}

# ---------------------------------------------------------------- measuring
peek() { # peek <path-without-query>?name=...: the stored count, via ?peek=1 / &peek=1
  local url=$BASE$1 out
  case $url in *\?*) url="$url&peek=1" ;; *) url="$url?peek=1" ;; esac
  out=$(curl -sf --max-time 10 "$url") || die "peek $url failed (server log: $SLOG)"
  echo "$out" | grep -o '"n":[0-9]*' | head -1 | cut -d: -f2 | grep . || die "peek $url: no count in '$out'"
}
sum_many() {
  local out
  out=$(timeout 60 node "$work/sum.mjs" "$BASE" "$OBJECTS") || die "reading the $OBJECTS counters failed"
  [ "${out#* }" = 0 ] || die "reading the $OBJECTS counters: ${out#* } reads failed"
  echo "${out% *}"
}
count() { # count <kind>: the stored value(s) the scenario increments, once settled
  local a b
  a=$(count_now "$1")
  for _ in $(seq 1 40); do   # requests wrk abandoned at its end may still be running
    sleep 0.25; b=$(count_now "$1"); [ "$a" = "$b" ] && { echo "$b"; return; }; a=$b
  done
  die "stored counts do not settle ($1): $a"
}
count_now() {
  case $1 in
    one) peek "/?name=bench" ;;
    direct) peek "$DIRECT" ;;
    many) sum_many ;;
  esac
}
wrk_run() { # wrk_run <out> <seconds> <connections> <path> <lua> [env...]
  local out=$1 secs=$2 c=$3 path=$4 lua=$5 t=$THREADS; shift 5
  [ "$t" -le "$c" ] || t=$c
  env BENCH_THREADS="$t" "$@" timeout -k 5 $((secs + 30)) wrk -t"$t" -c"$c" -d"${secs}s" --timeout 10s --latency -s "$lua" "$BASE$path" >"$out" 2>&1 ||
    { cat "$out" >&2; die "wrk failed or timed out against $BASE$path"; }
  grep -q '^WRKSTAT ' "$out" || { cat "$out" >&2; die "wrk printed no statistics"; }
}
stat_of() { grep '^WRKSTAT ' "$1" | grep -o " $2=[0-9]*" | head -1 | cut -d= -f2; }

declare -A RPS P50 P99 CPU RPSL P50L P99L CPUL VALID NOTE LAST
# measure <server> <scenario> <label>
measure() {
  local srv=$1 sc=$2 label=$3 path lua envs=() out before after delta ok req dur st errs extra
  case $sc in
    one) path="/?name=bench"; lua=$work/one.lua ;;
    direct) path=$DIRECT; lua=$work/one.lua ;;
    many) path="/"; lua=$work/many.lua ;;
  esac
  # warm-up: for "many", first one write to every object (so that no object
  # is created during the measured run), then round-robin over them all
  if [ "$sc" = many ]; then
    envs=(BENCH_ROUNDROBIN=1)
    local t; t=$(timeout 120 node "$work/sum.mjs" "$BASE" "$OBJECTS" touch) || die "$srv: warm-up writes to $OBJECTS objects failed"
    [ "${t#* }" = 0 ] || die "$srv: ${t#* } of $OBJECTS warm-up writes failed"
  fi
  wrk_run "$work/$srv-$sc-warm.txt" "$WARM" "$CONNS" "$path" "$lua" "${envs[@]}"
  before=$(count "$sc")
  out=$work/$srv-$sc.txt
  local c0 c1 cpu
  c0=$(cpu_us "$SPID")
  wrk_run "$out" "$DUR" "$CONNS" "$path" "$lua"
  c1=$(cpu_us "$SPID")
  after=$(count "$sc")
  LAST[$srv,$sc]=$after
  req=$(stat_of "$out" requests); dur=$(stat_of "$out" duration_us); st=$(stat_of "$out" status)
  errs=$(( $(stat_of "$out" connect) + $(stat_of "$out" read) + $(stat_of "$out" write) + $(stat_of "$out" timeout) ))
  ok=$(( req - st ))
  delta=$(( after - before ))
  extra=$(( CONNS + errs ))
  local rps p50 p99 bad=""
  rps=$(awk -v n="$ok" -v d="$dur" 'BEGIN{printf "%.0f", n/(d/1e6)}')
  p50=$(awk -v u="$(stat_of "$out" p50_us)" 'BEGIN{printf "%.2f", u/1000}')
  p99=$(awk -v u="$(stat_of "$out" p99_us)" 'BEGIN{printf "%.2f", u/1000}')
  cpu=$(cpu_per "$c0" "$c1" "$ok")
  CPUL[$srv,$sc]="${CPUL[$srv,$sc]:-} $cpu"
  RPSL[$srv,$sc]="${RPSL[$srv,$sc]:-} $rps"; P50L[$srv,$sc]="${P50L[$srv,$sc]:-} $p50"; P99L[$srv,$sc]="${P99L[$srv,$sc]:-} $p99"
  if [ "$delta" -lt "$ok" ]; then
    bad="LOST WRITES: stored +$delta < $ok 2xx"
  elif [ "$delta" -gt $(( ok + extra )) ]; then
    bad="stored +$delta > $ok 2xx + $extra in flight"
  elif [ $(( (st + errs) * 100 )) -gt "$req" ] || [ "$ok" -eq 0 ]; then
    bad="too many failures: $st non-2xx, $errs socket errors of $req"
  fi
  [ -n "${VALID[$srv,$sc]:-}" ] || VALID[$srv,$sc]=1
  [ -z "$bad" ] || { VALID[$srv,$sc]=0; NOTE[$srv,$sc]=${NOTE[$srv,$sc]:-$bad}; }
  printf '  %-12s %7s req/s  %5s cpu-us/req  p50 %7s ms  p99 %7s ms  | %d 2xx, %d non-2xx, %d sock err; stored +%d: %s\n' \
    "$label" "$rps" "$cpu" "$p50" "$p99" "$ok" "$st" "$errs" "$delta" "${bad:+INVALID: $bad}$( [ -z "$bad" ] && echo ok)"
}

# fsync_probe <server>: strace -f -c attached to the running server while
# wrk writes with 1 connection, then with CONNS, each to its own object.
fsync_probe() {
  local srv=$1 c name trace spid before after n
  for c in 1 "$CONNS"; do
    name=fsync$c
    trace=$work/$srv-strace-$c.txt
    before=$(peek "/?name=$name")
    strace -f -c -e trace=fsync,fdatasync,syncfs,sync_file_range -o "$trace" -p "$SPID" 2>"$trace.err" &
    spid=$!; PIDS+=("$spid")
    sleep 1
    kill -0 "$spid" 2>/dev/null || { wait "$spid" 2>/dev/null || true; forget "$spid"; note "strace could not attach: $(cat "$trace.err")"; return 0; }
    wrk_run "$work/$srv-strace-wrk-$c.txt" 2 "$c" "/?name=$name" "$work/one.lua"
    after=$(peek "/?name=$name")   # peek once; settle below
    sleep 0.5; after=$(peek "/?name=$name")
    kill -INT "$spid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$spid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$spid" 2>/dev/null || true; wait "$spid" 2>/dev/null || true; forget "$spid"
    n=$(awk '$NF ~ /^(fsync|fdatasync|syncfs|sync_file_range)$/ {
           if (NF == 6) s += $4; else if (NF == 5) s += $4 } END {print s+0}' "$trace")
    printf '  %-9s fsync probe, %3d connection(s): %6d writes, %6d fsync-family calls, %.2f per write (%s)\n' \
      "$srv" "$c" $(( after - before )) "$n" "$(awk -v n="$n" -v w=$(( after - before )) 'BEGIN{print (w ? n/w : 0)}')" \
      "$(awk '$NF ~ /^(fsync|fdatasync|syncfs|sync_file_range)$/ {printf "%s%s %s", sep, $NF, $4; sep=", "}' "$trace")"
  done
}

storage_report() { # storage_report <server>
  local dir files
  if [ "$1" = cellhost ]; then dir=$work/state-cellhost; else dir=$work/proj-workerd/.wrangler/state; fi
  [ -d "$dir" ] || die "$1: no storage directory $dir after the runs: storage is not on disk"
  files=$(find "$dir" -type f -name '*.sqlite' 2>/dev/null | wc -l)
  [ "$files" -ge "$OBJECTS" ] || die "$1: only $files SQLite files under $dir after writing $OBJECTS objects: storage is not on disk"
  printf '  %-9s on disk: %d .sqlite files (+%d -wal), %s under %s\n' "$1" "$files" \
    "$(find "$dir" -type f -name '*-wal' 2>/dev/null | wc -l)" "$(du -sh "$dir" 2>/dev/null | cut -f1)" "${dir#$work/}"
}

declare -A SB SP SL
up() { start_server "$1" "$2"; SB[$1]=$BASE; SP[$1]=$SPID; SL[$1]=$SLOG; }  # up <server> <tag>
use() { BASE=${SB[$1]}; SPID=${SP[$1]}; SLOG=${SL[$1]}; }                    # use <server>
down() { stop_pid "${SP[$1]}"; }                                            # down <server>

# after_restart <server>: every count must equal its value before the restart
after_restart() {
  local srv=$1 sc v scs="one many" lost=""
  [ "$srv" = cellhost ] && scs="one direct many"
  use "$srv"
  for sc in $scs; do
    v=$(count_now "$sc")
    [ "$v" = "${LAST[$srv,$sc]}" ] || { lost="$lost $sc: ${LAST[$srv,$sc]} before restart, $v after;"; VALID[$srv,$sc]=0; NOTE[$srv,$sc]="count changed across restart"; }
  done
  if [ -z "$lost" ]; then
    echo "  $srv restart: every stored count survived (bench ${LAST[$srv,one]}, sum of $OBJECTS objects ${LAST[$srv,many]})"
  else
    echo "  $srv restart: COUNTS CHANGED:$lost"
  fi
}

# ---------------------------------------------------------------- run
echo "vs-workerd: $DUR s per run (+$WARM s warm-up), $ROUNDS round(s), $CONNS connections, $THREADS wrk threads, 127.0.0.1, $(nproc) CPUs"
echo "  project: examples/$EXAMPLE, files sha256 $SUM_SRC (both copies identical)"
echo "  cellhost: built from $CH_REV, state in <tmp>/state-cellhost"
echo "  workerd:  $WORKERD_VERSION (npm $WORKERD_PKG), wrangler.jsonc mode, state in <copy>/.wrangler/state"
FSTYPE=$(df --output=fstype "$work" 2>/dev/null | tail -1 || stat -f -c %T "$work")
echo "  storage filesystem: $FSTYPE ($work)$( [ "$FSTYPE" = tmpfs ] && echo ' WARNING: tmpfs, fsync costs nothing')"
loadavg() { cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?'; }
echo "  load average before: $(loadavg) (other work on this machine skews both servers; compare within a run)"
# Both servers stay up; scenarios alternate between them so that other load
# on the machine hits both alike. Only one is under load at a time.
up cellhost run
up workerd run
echo "== one object: GET /?name=bench (worker fetch -> $CLASS)"
both() { # both <scenario>: ROUNDS alternating runs, the first server swapping each round
  local r order srv
  for r in $(seq 1 "$ROUNDS"); do
    order="cellhost workerd"; [ $(( r % 2 )) = 0 ] && order="workerd cellhost"
    for srv in $order; do use "$srv"; measure "$srv" "$1" "$srv$( [ "$ROUNDS" -gt 1 ] && echo " #$r")"; done
  done
}
both one
echo "== $OBJECTS objects: GET /?name=o<random 0..$((OBJECTS-1))>"
both many
echo "== cellhost only: GET $DIRECT (no worker fetch)"
for r in $(seq 1 "$ROUNDS"); do use cellhost; measure cellhost direct "cellhost$( [ "$ROUNDS" -gt 1 ] && echo " #$r")"; done
median() { # median <printf format>: of the numbers on stdin
  tr ' ' '\n' | grep . | sort -g | awk -v f="$1" '{v[NR]=$1} END{printf f, (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'
}
for k in "${!RPSL[@]}"; do
  RPS[$k]=$(echo "${RPSL[$k]}" | median %.0f); CPU[$k]=$(echo "${CPUL[$k]}" | median %.0f); P50[$k]=$(echo "${P50L[$k]}" | median %.2f); P99[$k]=$(echo "${P99L[$k]}" | median %.2f)
done
echo "== durability: files on disk, counts across a restart, fsyncs per write"
storage_report cellhost
storage_report workerd
down cellhost; down workerd
up cellhost restart
up workerd restart
after_restart cellhost
after_restart workerd
if [ "$HAVE_STRACE" = 1 ]; then
  use cellhost; fsync_probe cellhost
  use workerd;  fsync_probe workerd
fi
down cellhost; down workerd
echo "  load average after: $(loadavg)"

echo "== cellhost / workerd (req/s counts 2xx only$( [ "$ROUNDS" -gt 1 ] && echo ", medians of $ROUNDS rounds"); latency ratio < 1 means cellhost is faster)"
status=0
ratio_line() { # ratio_line <label> <scenario>
  local sc=$2 r l50 l99
  if [ "${VALID[cellhost,$sc]}" != 1 ] || [ "${VALID[workerd,$sc]}" != 1 ]; then
    echo "$1: cellhost ${RPS[cellhost,$sc]} req/s, workerd ${RPS[workerd,$sc]} req/s, ratio INVALID (cellhost: ${NOTE[cellhost,$sc]:-ok}; workerd: ${NOTE[workerd,$sc]:-ok})"
    status=1; return
  fi
  r=$(awk -v a="${RPS[cellhost,$sc]}" -v b="${RPS[workerd,$sc]}" 'BEGIN{printf "%.2f", (b>0 ? a/b : 0)}')
  l50=$(awk -v a="${P50[cellhost,$sc]}" -v b="${P50[workerd,$sc]}" 'BEGIN{printf "%.2f", (b>0 ? a/b : 0)}')
  l99=$(awk -v a="${P99[cellhost,$sc]}" -v b="${P99[workerd,$sc]}" 'BEGIN{printf "%.2f", (b>0 ? a/b : 0)}')
  local cr
  cr=$(awk -v a="${CPU[cellhost,$sc]}" -v b="${CPU[workerd,$sc]}" 'BEGIN{printf "%.2f", (a>0 ? b/a : 0)}')
  echo "$1: cellhost ${RPS[cellhost,$sc]} req/s, workerd ${RPS[workerd,$sc]} req/s, ratio ${r}x; CPU per request cellhost ${CPU[cellhost,$sc]} us, workerd ${CPU[workerd,$sc]} us (workerd / cellhost ${cr}x); p50 ${P50[cellhost,$sc]} vs ${P50[workerd,$sc]} ms (${l50}x), p99 ${P99[cellhost,$sc]} vs ${P99[workerd,$sc]} ms (${l99}x)"
}
ratio_line "one object" one
ratio_line "$OBJECTS objects" many
if [ "${VALID[cellhost,direct]}" = 1 ]; then
  echo "(cellhost $DIRECT, skipping the worker's fetch: ${RPS[cellhost,direct]} req/s, ${CPU[cellhost,direct]} cpu-us/req, p50 ${P50[cellhost,direct]} ms, p99 ${P99[cellhost,direct]} ms)"
else
  echo "(cellhost $DIRECT: INVALID: ${NOTE[cellhost,direct]})"; status=1
fi
[ $status = 0 ] || echo "vs-workerd: some runs are INVALID (see above)" >&2
exit $status
