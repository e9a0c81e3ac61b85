#!/usr/bin/env bash
# A/B of two cellhost builds in one run: the one-connection durable write
# (p50, p99), the one-connection read (?peek=1), and the 64-connection write
# throughput on one object, on examples/counter in the default (log) mode.
#
#   bash bench/ab-latency.sh [duration-seconds] [rounds]     (5, 3)
#
# A is built from BASE (a commit, default main, via git archive), B from the
# working tree. Both servers run at once; every scenario alternates between
# them (one under load at a time, the first one changing every round), so
# that other load on the machine hits both alike. The summary prints the
# medians and the ratios B/A. Every write run checks that the stored count
# grew by at least the 2xx responses (and at most that plus the connections).
# CONNS (64) is the throughput scenario's connections; CELLHOST_ARGS is
# passed to both servers (e.g. "--durability local"). Each scenario also
# prints each server's CPU per request (user + system time from /proc over
# the measured run / 2xx responses), which other load on the machine moves
# much less than latency. On 127.0.0.1 only.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DUR=${1:-5}
ROUNDS=${2:-3}
CONNS=${CONNS:-64}
BASE_REV=${BASE:-main}
die() { echo "ab-latency: FATAL: $*" >&2; exit 1; }
for t in go wrk curl git awk timeout python3; do command -v "$t" >/dev/null || die "$t is missing"; done
[[ $DUR =~ ^[1-9][0-9]*$ ]] && [ "$DUR" -le 120 ] || die "duration 1..120"
[[ $ROUNDS =~ ^[1-9]$ ]] || die "rounds 1..9"

# shellcheck source=ab-lib.sh
source "$ROOT/bench/ab-lib.sh"
# shellcheck source=workerd-lib.sh
source "$ROOT/bench/workerd-lib.sh" # cpu_us, cpu_per

cat > "$work/stat.lua" <<'LUA'
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("WRKSTAT requests=%d duration_us=%d bad=%d p50_us=%.0f p99_us=%.0f\n",
    summary.requests, summary.duration, e.status + e.connect + e.read + e.write + e.timeout,
    latency:percentile(50), latency:percentile(99)))
end
LUA

declare -A URL PID
start() { # start <A|B>
  local port
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  mkdir -p "$work/proj-$1"
  tar -C "$ROOT/examples/counter" --exclude=./.cellhost --exclude=./.wrangler --exclude=./node_modules -cf - . | tar -C "$work/proj-$1" -xf -
  # shellcheck disable=SC2086
  "$work/$1" dev "$work/proj-$1" --port "$port" --state "$work/state-$1" ${CELLHOST_ARGS:-} >"$work/log-$1" 2>&1 &
  PIDS+=($!)
  PID[$1]=$!
  URL[$1]=http://127.0.0.1:$port
  for _ in $(seq 1 300); do
    curl -sf --max-time 5 "${URL[$1]}/?name=_probe&peek=1" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  cat "$work/log-$1" >&2; die "$1 did not start"
}
start A; start B

peek() { curl -sf --max-time 10 "$1&peek=1" | grep -o '"n":[0-9]*' | cut -d: -f2; }
stat_of() { grep '^WRKSTAT ' "$1" | grep -o " $2=[0-9]*" | cut -d= -f2; }
declare -A L
# run <srv> <scenario> <conns> <query>
run() {
  local s=$1 sc=$2 c=$3 url=${URL[$1]}/?name=$4 out=$work/$1-$2.txt before after ok t=2
  [ "$c" -ge 2 ] || t=1
  before=$(peek "$url")
  timeout -k 5 $((DUR + 30)) wrk -t$t -c"$c" -d1s -s "$work/stat.lua" "$url" >/dev/null 2>&1 || die "warm-up failed"
  before=$(peek "$url")
  local cpu0 cpu1
  cpu0=$(cpu_us "${PID[$s]}")
  timeout -k 5 $((DUR + 30)) wrk -t$t -c"$c" -d"${DUR}s" --timeout 10s -s "$work/stat.lua" "$url" >"$out" 2>&1 || die "wrk failed"
  cpu1=$(cpu_us "${PID[$s]}")
  ok=$(( $(stat_of "$out" requests) - $(stat_of "$out" bad) ))
  L[$s,$sc,cpu]+=" $(cpu_per "$cpu0" "$cpu1" "$ok")"
  [ "$(stat_of "$out" bad)" -le $(( ok / 100 )) ] || die "$s $sc: $(stat_of "$out" bad) errors"
  if [[ $4 != *peek* ]]; then
    sleep 0.5; after=$(peek "$url")
    [ $((after - before)) -ge "$ok" ] && [ $((after - before)) -le $((ok + c)) ] ||
      die "$s $sc: stored +$((after - before)) for $ok 2xx"
  fi
  L[$s,$sc,rps]+=" $(awk -v n="$ok" -v d="$(stat_of "$out" duration_us)" 'BEGIN{printf "%.0f", n/(d/1e6)}')"
  L[$s,$sc,p50]+=" $(awk -v u="$(stat_of "$out" p50_us)" 'BEGIN{printf "%.3f", u/1000}')"
  L[$s,$sc,p99]+=" $(awk -v u="$(stat_of "$out" p99_us)" 'BEGIN{printf "%.3f", u/1000}')"
}
median() { tr ' ' '\n' <<<"$1" | grep . | sort -g | awk '{a[NR]=$1} END{print (NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2}'; }

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq 1 "$ROUNDS"); do
  if [ $((r % 2)) = 1 ]; then order="A B"; else order="B A"; fi
  for s in $order; do run "$s" write1 1 lone; done
  for s in $order; do run "$s" read1 1 lone\&peek=1; done
  for s in $order; do run "$s" writeN "$CONNS" many; done
done
echo "load average after:  $(cut -d' ' -f1-3 /proc/loadavg)"
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.2f", (a>0)?b/a:0}'; }
for sc in write1 read1; do
  a50=$(median "${L[A,$sc,p50]}"); b50=$(median "${L[B,$sc,p50]}")
  a99=$(median "${L[A,$sc,p99]}"); b99=$(median "${L[B,$sc,p99]}")
  ac=$(median "${L[A,$sc,cpu]}"); bc=$(median "${L[B,$sc,cpu]}")
  echo "$sc (1 conn): p50 A $a50 ms, B $b50 ms (B/A $(ratio "$a50" "$b50")); p99 A $a99 ms, B $b99 ms (B/A $(ratio "$a99" "$b99")); req/s A $(median "${L[A,$sc,rps]}"), B $(median "${L[B,$sc,rps]}"); CPU/request A $ac us, B $bc us (B/A $(ratio "$ac" "$bc"))"
done
a=$(median "${L[A,writeN,rps]}"); b=$(median "${L[B,writeN,rps]}")
ac=$(median "${L[A,writeN,cpu]}"); bc=$(median "${L[B,writeN,cpu]}")
echo "writeN ($CONNS conns, one object): A $a req/s, B $b req/s (B/A $(ratio "$a" "$b")); p50 A $(median "${L[A,writeN,p50]}") ms, B $(median "${L[B,writeN,p50]}") ms; CPU/request A $ac us, B $bc us (B/A $(ratio "$ac" "$bc"))"
echo "rounds: $ROUNDS x ${DUR}s; per-round values: $(for k in "${!L[@]}"; do echo -n "[$k:${L[$k]}] "; done)"
