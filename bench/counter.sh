#!/usr/bin/env bash
# Load test of the counter example on cellhost with wrk (Debian package).
#
#   bash bench/counter.sh [duration-seconds] [connections]
#   CELLHOST_ARGS="--durability local" bash bench/counter.sh   # fsync-only baseline
#
# Builds cellhost, serves examples/counter from a fresh state directory on a
# free loopback port, and runs three bounded wrk runs:
#   1. one object:      GET /do/Counter/bench          (every request writes)
#   2. 1000 objects:    GET /do/Counter/o<random 0..999>
#   3. baseline:        GET /  of examples/hello (no storage), same server kind
# printing requests/s and latency percentiles for each. Loopback only.
set -euo pipefail
cd "$(dirname "$0")/.."
DUR=${1:-10}
CONNS=${2:-64}
THREADS=2
command -v wrk >/dev/null || { echo "bench: wrk is missing: apt-get install -y wrk" >&2; exit 1; }

work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT
go build -o "$work/cellhost" ./cmd/cellhost

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

serve() { # serve <project-dir> → sets PORT, PID
  PORT=$(free_port)
  # shellcheck disable=SC2086 # CELLHOST_ARGS is split on purpose
  "$work/cellhost" dev "$1" --port "$PORT" --state "$work/state-$PORT" ${CELLHOST_ARGS:-} >"$work/log-$PORT" 2>&1 &
  PID=$!
  for _ in $(seq 1 100); do
    curl -sf -o /dev/null "http://127.0.0.1:$PORT/" && return 0
    sleep 0.1
  done
  echo "bench: server on port $PORT did not start:" >&2; cat "$work/log-$PORT" >&2; exit 1
}

cat > "$work/many.lua" <<'LUA'
math.randomseed(os.time())
request = function()
  return wrk.format("GET", "/do/Counter/o" .. math.random(0, 999))
end
LUA

run() { # run <label> <url> [script]
  echo "== $1"
  if [ -n "${3:-}" ]; then
    wrk -t"$THREADS" -c"$CONNS" -d"${DUR}s" --latency -s "$3" "$2" | grep -E "Requests/sec|50%|90%|99%|Non-2xx|Socket errors"
  else
    wrk -t"$THREADS" -c"$CONNS" -d"${DUR}s" --latency "$2" | grep -E "Requests/sec|50%|90%|99%|Non-2xx|Socket errors"
  fi
}

serve examples/hello
run "baseline: stateless worker fetch (examples/hello), ${CONNS} connections" "http://127.0.0.1:$PORT/"
kill "$PID"; wait "$PID" 2>/dev/null || true

serve examples/counter
run "counter: one object, ${CONNS} connections" "http://127.0.0.1:$PORT/do/Counter/bench"
run "counter: 1000 objects, ${CONNS} connections" "http://127.0.0.1:$PORT/" "$work/many.lua"
echo "== check: the single object's count (requests that reached it)"
curl -s "http://127.0.0.1:$PORT/do/Counter/bench?peek=1"; echo
kill "$PID"; wait "$PID" 2>/dev/null || true
