#!/usr/bin/env bash
# Memory and throughput of `cellhost dev` on a real library (the Agents SDK
# case, testjs/libs/agents: agents 0.32 and its dependencies) under the
# collector settings issue 27 compared, in one run, interleaved:
#
#   bash bench/devmem.sh [duration-seconds]
#
# For each setting: start `cellhost dev` on a fresh state, note RSS once it
# serves, run wrk (Debian package) for the duration on one agent
# (GET /agents/counter/a/inc: SQL write, state broadcast), note req/s and RSS
# after the load and the live heap of the last collection (GODEBUG=gctrace).
# Settings:
#   old        CELLHOST_BUILD_GC=off: GOGC 1000 throughout, half the RAM as
#              the soft limit (before issue 27)
#   new        the default: GOGC 100 while building, release, then GOGC 1000
#              under a soft limit of 4x the live heap (at least 384 MiB)
#   new+g100   the same with GOGC=100 after the build
# CELLHOST_BUILD_GC=<n> sets the build's GOGC (25 was tried: see main.go).
# Needs npm (installs the case's dependencies into a temp dir) and wrk.
set -euo pipefail
cd "$(dirname "$0")/.."
DUR=${1:-10}
command -v wrk >/dev/null || { echo "bench: wrk is missing: apt-get install -y wrk" >&2; exit 1; }
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT
go build -o "$work/cellhost" ./cmd/cellhost
cp -r testjs/libs/agents "$work/app"
(cd "$work/app" && npm ci --no-audit --no-fund --prefer-offline >/dev/null)
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
rss() { awk '/VmRSS/{print int($2/1024)}' "/proc/$1/status"; }

run() { # run <label> <env...>
  local label=$1; shift
  local port; port=$(free_port)
  local log="$work/log-$port"
  env "$@" GODEBUG=gctrace=1 "$work/cellhost" dev "$work/app" --port "$port" --state "$work/state-$port" --no-watch >"$log" 2>&1 &
  local pid=$!
  local t0; t0=$(date +%s%N)
  for _ in $(seq 1 600); do grep -q "serving" "$log" && break; sleep 0.1; done
  local start_ms=$(( ($(date +%s%N) - t0) / 1000000 ))
  local r0; r0=$(rss $pid)
  local rps; rps=$(wrk -t2 -c16 -d"${DUR}s" "http://127.0.0.1:$port/agents/counter/a/inc" | awk '/Requests\/sec/{print int($2)}')
  local r1; r1=$(rss $pid)
  local live; live=$(grep '^gc ' "$log" | tail -1 | sed -E 's/.*->([0-9]+) MB.*/\1/')
  printf "%-9s start %5d ms  RSS after start %4d MB  after load %4d MB  live heap %3s MB  %6d req/s\n" "$label" "$start_ms" "$r0" "$r1" "$live" "$rps"
  kill "$pid"; wait "$pid" 2>/dev/null || true
}
for round in 1 2; do
  run old CELLHOST_BUILD_GC=off
  run new
  run new+g100 GOGC=100
done
