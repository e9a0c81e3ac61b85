#!/usr/bin/env bash
# Failover time of a cellhost fleet: kill -9 of an object's owner while
# writes to that object stream through the other nodes, KILLS times.
#
#   bash bench/fleet-failover.sh [kills] [lease-ttl]        (20, 2s)
#   BUCKET=s3://... bash bench/fleet-failover.sh            (default: a file:// bucket)
#
# Builds cellhost, starts 3 `cellhost serve` nodes of examples/counter on one
# bucket (127.0.0.1 only), and per round: makes a fresh object owned by node
# 1, 2 or 3 (the first request's node takes it), streams increments through
# the other two, kills the owner with SIGKILL, notes the time from the kill
# to the next acknowledged increment, checks that no acknowledged increment
# was lost (the count goes on from the last one), and restarts the killed
# node on a fresh state directory. Prints every round and the distribution
# (min, median, p90, max) against the lease TTL; the issue's bound is TTL+2s.
set -euo pipefail
cd "$(dirname "$0")/.."
KILLS=${1:-20}
TTL=${2:-2s}
work=$(mktemp -d)
trap 'kill -9 $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT
BUCKET=${BUCKET:-file://$work/bucket}
go build -o "$work/cellhost" ./cmd/cellhost

now_ms() { date +%s%3N; }
declare -a PID BASE
start() { # start <i>: a node on a fresh state directory
  local i=$1 t; t=$(now_ms)
  local log="$work/node$i-$t.log"; : >"$log"
  "$work/cellhost" serve examples/counter --bucket "$BUCKET" --listen 127.0.0.1:0 \
    --lease-ttl "$TTL" --state "$work/state$i-$t" >"$log" 2>&1 &
  PID[$i]=$!
  for _ in $(seq 300); do
    BASE[$i]=$(sed -n 's/^cellhost serve: node [^ ]* on \(http:[^ ]*\) .*/\1/p' "$log")
    [ -n "${BASE[$i]}" ] && return 0
    sleep 0.1
  done
  echo "node $i did not start:" >&2; cat "$log" >&2; exit 1
}
inc() { # inc <base> <name> → prints n on 200, nothing otherwise
  curl -s -m 5 -o - -w '\n%{http_code}' "$1/do/Counter/$2" 2>/dev/null |
    awk 'NR==1{b=$0} NR==2 && $0=="200"{match(b,/"n":[0-9]+/); print substr(b,RSTART+4,RLENGTH-4)}'
}
for i in 0 1 2; do start $i; done

times=()
for round in $(seq "$KILLS"); do
  o=$(( round % 3 )); name="f$round-$RANDOM"
  last=$(inc "${BASE[$o]}" "$name"); [ "$last" = 1 ] || { echo "round $round: first write failed" >&2; exit 1; }
  a=$(( (o + 1) % 3 )); b=$(( (o + 2) % 3 ))
  for _ in $(seq 20); do n=$(inc "${BASE[$a]}" "$name"); [ -n "$n" ] && last=$n; done
  kill -9 "${PID[$o]}"; wait "${PID[$o]}" 2>/dev/null || true
  killed=$(now_ms); k=0
  while :; do
    via=${BASE[$a]}; [ $((k % 2)) = 1 ] && via=${BASE[$b]}; k=$((k + 1))
    n=$(inc "$via" "$name")
    if [ -n "$n" ]; then
      if [ "$n" -le "$last" ]; then echo "round $round: n=$n after n=$last: an acknowledged write was lost" >&2; exit 1; fi
      break
    fi
    [ $(( $(now_ms) - killed )) -gt 60000 ] && { echo "round $round: no write within 60 s" >&2; exit 1; }
    sleep 0.02
  done
  ms=$(( $(now_ms) - killed )); times+=("$ms")
  echo "round $round: kill -9 -> next acknowledged write ${ms} ms (n=$n, last before the kill $last)"
  start "$o"
done
printf '%s\n' "${times[@]}" | sort -n | awk -v ttl="$TTL" '
  {v[NR]=$1} END {
    printf "kills: %d  lease TTL: %s  kill -> next ack (ms): min %d  median %d  p90 %d  max %d\n",
      NR, ttl, v[1], v[int((NR+1)/2)], v[int(NR*0.9+0.999)], v[NR] }'
