#!/usr/bin/env bash
# A/B of two cellhost builds in one run on the 1000-object row of
# vs-workerd.sh: GET /?name=o<random 0..999> through the worker's fetch to
# one of 1000 counters (examples/counter, log mode), CONNS (64)
# connections. Besides req/s it prints the server's CPU per request (user
# + system time of the process, from /proc, over the measured run): unlike
# req/s it barely moves when other work loads the machine.
#
#   bash bench/ab-objects.sh [duration-seconds] [rounds]     (8, 3)
#
# A is built from BASE (default main, via git archive), B from the working
# tree (bench/ab-lib.sh). Both servers run at once; each round measures
# both, one at a time, the first one changing every round. Every run
# checks that the sum of the 1000 stored counts grew by at least the 2xx
# responses (and at most that plus the connections). On 127.0.0.1 only.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DUR=${1:-8}
ROUNDS=${2:-3}
CONNS=${CONNS:-64}
OBJECTS=1000
BASE_REV=${BASE:-main}
die() { echo "ab-objects: FATAL: $*" >&2; exit 1; }
for t in go wrk curl git awk timeout python3 node; do command -v "$t" >/dev/null || die "$t is missing"; done
[[ $DUR =~ ^[1-9][0-9]*$ ]] && [ "$DUR" -le 120 ] || die "duration 1..120"
[[ $ROUNDS =~ ^[1-9]$ ]] || die "rounds 1..9"

# shellcheck source=ab-lib.sh
source "$ROOT/bench/ab-lib.sh"

cat > "$work/many.lua" <<LUA
local counter = 0
setup = function(thread) thread:set("tid", counter); counter = counter + 1 end
init = function(args) math.randomseed(os.time() * 1000 + (tid or 0) * 7919) end
request = function() return wrk.format("GET", "/?name=o" .. math.random(0, $((OBJECTS - 1)))) end
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("WRKSTAT requests=%d duration_us=%d bad=%d p50_us=%.0f p99_us=%.0f\n",
    summary.requests, summary.duration, e.status + e.connect + e.read + e.write + e.timeout,
    latency:percentile(50), latency:percentile(99)))
end
LUA
# sum.mjs <base> <n> [touch]: "<sum of the counters of o0..o<n-1>> <failures>";
# with touch, increments each once instead
cat > "$work/sum.mjs" <<'JS'
const [base, nStr, mode] = process.argv.slice(2);
const q = mode === "touch" ? "" : "&peek=1";
let next = 0, sum = 0, bad = 0;
async function worker() {
  for (;;) {
    const k = next++;
    if (k >= Number(nStr)) return;
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

declare -A URL SPID
start() { # start <A|B>
  local port
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  mkdir -p "$work/proj-$1"
  tar -C "$ROOT/examples/counter" --exclude=./.cellhost --exclude=./.wrangler --exclude=./node_modules -cf - . | tar -C "$work/proj-$1" -xf -
  "$work/$1" dev "$work/proj-$1" --port "$port" --state "$work/state-$1" >"$work/log-$1" 2>&1 &
  SPID[$1]=$!
  PIDS+=($!)
  URL[$1]=http://127.0.0.1:$port
  for _ in $(seq 1 300); do
    curl -sf --max-time 5 "${URL[$1]}/?name=_probe&peek=1" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  cat "$work/log-$1" >&2; die "$1 did not start"
}
start A; start B
sum() { # sum <A|B> [touch]
  local out
  out=$(timeout 120 node "$work/sum.mjs" "${URL[$1]}" "$OBJECTS" ${2:-}) || die "$1: reading the counters failed"
  [ "${out#* }" = 0 ] || die "$1: ${out#* } of $OBJECTS counter requests failed"
  echo "${out% *}"
}
settled() { # settled <A|B>: the sum once it stops moving
  local a b
  a=$(sum "$1")
  for _ in $(seq 1 20); do sleep 0.25; b=$(sum "$1"); [ "$a" = "$b" ] && { echo "$b"; return; }; a=$b; done
  die "$1: the stored counts do not settle"
}
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
stat_of() { grep '^WRKSTAT ' "$1" | grep -o " $2=[0-9]*" | cut -d= -f2; }
for s in A B; do sum "$s" touch >/dev/null; done # every object exists before the runs

declare -A L
run() { # run <A|B>
  local s=$1 out=$work/$1.txt before after ok t0 t1 cpu
  timeout -k 5 60 wrk -t2 -c"$CONNS" -d2s -s "$work/many.lua" "${URL[$s]}/" >/dev/null 2>&1 || die "$s: warm-up failed"
  before=$(settled "$s")
  t0=$(cpu_ticks "${SPID[$s]}")
  timeout -k 5 $((DUR + 30)) wrk -t2 -c"$CONNS" -d"${DUR}s" --timeout 10s -s "$work/many.lua" "${URL[$s]}/" >"$out" 2>&1 || die "$s: wrk failed"
  t1=$(cpu_ticks "${SPID[$s]}")
  after=$(settled "$s")
  ok=$(( $(stat_of "$out" requests) - $(stat_of "$out" bad) ))
  [ "$(stat_of "$out" bad)" -le $(( ok / 100 )) ] || die "$s: $(stat_of "$out" bad) errors"
  [ $((after - before)) -ge "$ok" ] && [ $((after - before)) -le $((ok + CONNS)) ] ||
    die "$s: stored +$((after - before)) for $ok 2xx"
  cpu=$(awk -v t=$((t1 - t0)) -v hz="$(getconf CLK_TCK)" -v n="$ok" 'BEGIN{printf "%.0f", t / hz * 1e6 / n}')
  L[$s,rps]+=" $(awk -v n="$ok" -v d="$(stat_of "$out" duration_us)" 'BEGIN{printf "%.0f", n/(d/1e6)}')"
  L[$s,cpu]+=" $cpu"
  L[$s,p50]+=" $(awk -v u="$(stat_of "$out" p50_us)" 'BEGIN{printf "%.2f", u/1000}')"
  echo "  $s: $(echo "${L[$s,rps]}" | awk '{print $NF}') req/s, $cpu cpu-us/request, stored +$((after - before)) for $ok 2xx: ok"
}
median() { tr ' ' '\n' <<<"$1" | grep . | sort -g | awk '{a[NR]=$1} END{print (NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.2f", (a>0)?b/a:0}'; }

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq 1 "$ROUNDS"); do
  if [ $((r % 2)) = 1 ]; then order="A B"; else order="B A"; fi
  for s in $order; do run "$s"; done
done
echo "load average after:  $(cut -d' ' -f1-3 /proc/loadavg)"
a=$(median "${L[A,rps]}"); b=$(median "${L[B,rps]}")
ac=$(median "${L[A,cpu]}"); bc=$(median "${L[B,cpu]}")
echo "$OBJECTS objects, $CONNS conns: A $a req/s, B $b req/s (B/A $(ratio "$a" "$b")); CPU per request A $ac us, B $bc us (B/A $(ratio "$ac" "$bc")); p50 A $(median "${L[A,p50]}") ms, B $(median "${L[B,p50]}") ms"
echo "rounds: $ROUNDS x ${DUR}s; per round: A req/s${L[A,rps]}, cpu-us${L[A,cpu]}; B req/s${L[B,rps]}, cpu-us${L[B,cpu]}"
