#!/usr/bin/env bash
# SQL-heavy writes side by side: cellhost against workerd in one run, on the
# same project bytes (examples/sqlheavy). Every request does an INSERT into
# the object's events table, a SELECT count(*) over that growing table and a
# KV put of the count; ?peek=1 answers the count (and fails if the KV copy
# differs from the table), so the runs are verified as vs-workerd.sh verifies
# its counters: each table must have grown by the 2xx responses, and keep its
# rows across a restart.
#
#   bash bench/sql.sh [duration-seconds] [connections]     (10, 64)
#
# It is vs-workerd.sh with EXAMPLE=sqlheavy CLASS=Events: the same
# environment (ROUNDS, REV, THREADS, WARM, FSYNC_PROBE, KEEP, CELLHOST_ARGS),
# the same workerd setup, the same rows (one object, 1000 objects, cellhost's
# direct path) and the ratios.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
EXAMPLE=sqlheavy CLASS=Events exec bash "$HERE/vs-workerd.sh" "$@"
