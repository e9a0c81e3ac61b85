#!/usr/bin/env bash
# A local MinIO server for the S3 store tests, the way .ci/versitygw.sh runs
# versitygw (same output, same CELLHOST_TEST_S3 contract):
#
#   bash .ci/minio.sh install          # go install of MinIO's server from the Go module proxy (long: see below)
#   env=$(bash .ci/minio.sh start) && eval "$env"
#   go test ./plugins/s3store ./cmd/cellhost -run 'S3|Outage|Ops'
#   bash .ci/minio.sh stop
#
# MinIO's server (module github.com/minio/minio at the pseudo-version below,
# the proxy's @latest) builds from the Go module proxy here: measured 24
# minutes (nice 15, load average ~27 on the shared 2-core machine). With
# it, plugins/s3store, ownership and the S3 variants of the fleet, outage
# and readiness tests pass, the storage probe (If-None-Match, If-Match)
# included. .ci/run keeps versitygw (a shorter build); this script is the
# second S3 engine for a fuller run.
set -euo pipefail

MINIO_VERSION=v0.0.0-20260212201848-7aac2a2c5b7c
MINIO_PKG=github.com/minio/minio
BUCKET=cellhost-test
REGION=us-east-1
cache_dir="${CELLHOST_CACHE:-${HOME:?HOME is unset}/.cache/cellhost}"
bin="$cache_dir/bin/minio-$MINIO_VERSION"

NAME=minio PID_VAR=CELLHOST_MINIO_PID DIR_VAR=CELLHOST_MINIO_DIR
. "$(dirname "$0")/s3lib.sh"

installed() { [ -x "$bin" ]; }
install() { go_install_pinned "$MINIO_PKG@$MINIO_VERSION" minio .install-minio.lock installed; }

health_url() { echo "http://127.0.0.1:$1/minio/health/live"; }

# launch <dir> <port> <access> <secret>
launch() {
  MINIO_ROOT_USER="$3" MINIO_ROOT_PASSWORD="$4" MINIO_REGION="$REGION" MINIO_BROWSER=off \
    MINIO_UPDATE=off "$bin" server --quiet --address "127.0.0.1:$2" "$1/data" </dev/null >"$1/server.log" 2>&1 &
}

start() { install; start_server 300; } # healthy within 30 s
stop() { stop_server; }

case "${1:-}" in
  install) install; echo "$bin" ;;
  start) start ;;
  stop) stop ;;
  *) die "usage: $0 install|start|stop" ;;
esac
