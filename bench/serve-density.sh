#!/usr/bin/env bash
# Density under `cellhost serve` (one node, a file:// bucket: every write
# is committed to the bucket as in production), for docs/operations.md's
# sizing: RSS growth per object after IDLE (2000) new objects of
# examples/counter were each written once (16 at a time), right after the
# writes and IDLE_WAIT (15) s later (idle instances dropped after 10 s);
# open descriptors. Every reply must carry the count 1 and a sample is read
# back after the wait (n=2): the script exits 1 when a check fails.
#
#   bash bench/serve-density.sh                  IDLE=2000 IDLE_WAIT=15
#   CELLHOST=/path/to/cellhost bash bench/serve-density.sh
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
IDLE=${IDLE:-2000}
IDLE_WAIT=${IDLE_WAIT:-15}
die() { echo "serve-density: FATAL: $*" >&2; exit 1; }
[[ $IDLE =~ ^[1-9][0-9]*$ && $IDLE_WAIT =~ ^[0-9]+$ ]] || die "IDLE and IDLE_WAIT must be integers"
work=$(mktemp -d "${TMPDIR:-/tmp}/serve-density.XXXXXX")
PID=
cleanup() { [ -n "$PID" ] && kill "$PID" 2>/dev/null && wait "$PID" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
BIN=${CELLHOST:-}
if [ -z "$BIN" ]; then
  BIN=$work/cellhost
  (cd "$ROOT" && go build -o "$BIN" ./cmd/cellhost) || die "go build failed"
fi
cp -r "$ROOT/examples/counter" "$work/project"
port=$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])')
AWS_EC2_METADATA_DISABLED=true "$BIN" serve "$work/project" --bucket "file://$work/bucket" --state "$work/state" \
  --listen "127.0.0.1:$port" --internal-listen 127.0.0.1:0 >"$work/log" 2>&1 &
PID=$!
for _ in $(seq 1 600); do curl -sf "http://127.0.0.1:$port/do/Counter/warm" >/dev/null 2>&1 && break; sleep 0.1; done
curl -sf "http://127.0.0.1:$port/do/Counter/warm" >/dev/null || { cat "$work/log" >&2; die "serve did not answer"; }
rss() { awk '/^VmRSS/{print $2}' "/proc/$PID/status"; }
fds() { ls "/proc/$PID/fd" | wc -l; }
sleep "$IDLE_WAIT"
base=$(rss); basefd=$(fds)
start=$(date +%s.%N)
seq 1 "$IDLE" | xargs -P 16 -I{} curl -s "http://127.0.0.1:$port/do/Counter/obj-{}" >"$work/replies"
secs=$(echo "$(date +%s.%N) - $start" | bc)
bad=$(grep -vc '"n":1,' "$work/replies" || true)
[ "$(wc -l <"$work/replies")" -ge "$IDLE" ] || [ "$(grep -o '"n":1,' "$work/replies" | wc -l)" -eq "$IDLE" ] || die "missing replies"
[ "$(grep -o '"n":1,' "$work/replies" | wc -l)" -eq "$IDLE" ] || die "$bad replies without n=1"
after=$(rss); afterfd=$(fds)
sleep "$IDLE_WAIT"
idle=$(rss); idlefd=$(fds)
for i in 1 $((IDLE / 2)) "$IDLE"; do
  curl -s "http://127.0.0.1:$port/do/Counter/obj-$i" | grep -q '"n":2,' || die "obj-$i did not read back n=2"
done
echo "serve-density: $IDLE objects written in ${secs}s; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "serve-density: RSS base $((base / 1024)) MB, after writes $((after / 1024)) MB ($(( (after - base) / IDLE )) KB/object), after ${IDLE_WAIT}s idle $((idle / 1024)) MB ($(( (idle - base) / IDLE )) KB/object)"
echo "serve-density: descriptors base $basefd, after writes $afterfd, idle $idlefd"
