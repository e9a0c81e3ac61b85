#!/usr/bin/env bash
# Per statement kind, in one run: cellhost's SQL path (storage
# BenchmarkCell_SQL*/cell), plain modernc.org/sqlite (…/sqlite) and native
# SQLite (bench/sql-native.c: the system's C library, built with cc and
# -lsqlite3: apt-get install gcc libsqlite3-dev), alternating, ROUNDS
# times (3); prints the medians in µs/op and the ratios to native.
#
#   bash bench/sql-kinds.sh [benchtime-seconds]        (1)
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SECS=${1:-1}
ROUNDS=${ROUNDS:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cc -O2 -o "$work/sql-native" "$ROOT/bench/sql-native.c" -lsqlite3 ||
  { echo "sql-kinds: cannot build bench/sql-native.c (apt-get install gcc libsqlite3-dev)" >&2; exit 1; }
( cd "$ROOT" && go test -c -o "$work/storage.test" ./storage ) || { echo "sql-kinds: go test -c ./storage failed" >&2; exit 1; }
echo "sql-kinds: $ROUNDS rounds, ${SECS}s per benchmark, $(nproc) CPUs, load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq 1 "$ROUNDS"); do
  ( cd "$ROOT/storage" && "$work/storage.test" -test.run XXX -test.bench 'BenchmarkCell_SQL(Insert|Select|Count|Update|Scan)$' \
      -test.benchtime "${SECS}s" ) | awk '/^BenchmarkCell_SQL/ {
        split($1, a, "/"); k = tolower(substr(a[1], 18)); sub(/-[0-9]+$/, "", a[2]); print a[2], k, $3 }' >> "$work/go.txt"
  rm -rf "$work/db" && mkdir "$work/db"
  "$work/sql-native" "$work/db" "$((SECS * 5))" | tee -a "$work/native.log" |
    awk 'NF == 2 { print "native", $1, $2 }' >> "$work/go.txt"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg); $(head -1 "$work/native.log")"
awk '
  { v[$1 "," $2] = v[$1 "," $2] " " $3 }
  function median(s,   n, a, i, j, t) {
    n = split(s, a, " ")
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  END {
    printf "%-7s %12s %12s %12s %10s %10s\n", "kind", "cell µs/op", "modernc", "native", "cell/nat", "modernc/nat"
    split("insert select count update scan", ks, " ")
    for (i = 1; i <= 5; i++) {
      k = ks[i]; c = median(v["cell," k]) / 1000; m = median(v["sqlite," k]) / 1000; n = median(v["native," k]) / 1000
      printf "%-7s %12.1f %12.1f %12.1f %9.2fx %9.2fx\n", k, c, m, n, c / n, m / n
    }
  }' "$work/go.txt"
