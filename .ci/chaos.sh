#!/usr/bin/env bash
# The long chaos run (issue 31): TestChaos with CELLHOST_CHAOS=long, three
# `cellhost serve` nodes, 50 objects, 16 clients and 4 minutes of faults on
# a file bucket, then on an S3 bucket served by a versitygw process of the
# test's own (built once per machine by .ci/versitygw.sh install). Writes
# docs/chaos/report.md (commit it with the code it measured).
#
#   bash .ci/chaos.sh                       # both buckets, about 12 minutes
#   CELLHOST_CHAOS_FAULTS=10m bash .ci/chaos.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export AWS_EC2_METADATA_DISABLED=true
CELLHOST_VERSITYGW_BIN=$(bash .ci/versitygw.sh install)
export CELLHOST_VERSITYGW_BIN CELLHOST_CHAOS=long
export CELLHOST_CHAOS_REPORT="$PWD/docs/chaos/report.md"
go test ./cmd/cellhost -run '^TestChaos$' -count=1 -v -timeout 60m
