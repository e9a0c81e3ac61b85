# serve-workerd.sh: sourced by the scripts that run JS on workerd (record.sh,
# record-calendars.sh, bench.sh, ../../cldr/record-umalqura.sh). Before
# sourcing: WORKERD (the binary), TMP (a directory holding the worker as
# w.js) and PID= with an EXIT trap that kills $PID. serve_workerd starts
# workerd on a random loopback port (PORT) with w.js as its one module and
# waits until GET $1 (a path, default /) answers, its body in $TMP/out.
serve_workerd() {
  PORT=$((20000 + RANDOM % 20000))
  cat > "$TMP/c.capnp" <<C
using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [(name = "main", worker = (modules = [(name = "w.js", esModule = embed "w.js")], compatibilityDate = "2026-01-01"))],
  sockets = [(name = "http", address = "127.0.0.1:$PORT", http = (), service = "main")]
);
C
  "$WORKERD" serve "$TMP/c.capnp" >"$TMP/log" 2>&1 &
  PID=$!
  for _ in $(seq 1 100); do curl -sf -o "$TMP/out" "http://127.0.0.1:$PORT${1:-/}" && break; sleep 0.2; done
  [ -s "$TMP/out" ] || { cat "$TMP/log"; exit 1; }
}
