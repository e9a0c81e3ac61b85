#!/usr/bin/env bash
# A local S3-compatible server (versitygw, posix backend) for the s3store
# tests; see ../shared/design/test-infrastructure.md.
#
#   bash .ci/versitygw.sh install   # build versitygw into the cache (once per machine)
#   env=$(bash .ci/versitygw.sh start) && eval "$env"
#   go test ./plugins/s3store       # reads CELLHOST_TEST_S3, AWS_ACCESS_KEY_ID, ...
#   bash .ci/versitygw.sh stop      # uses CELLHOST_VERSITYGW_PID and _DIR from start
#
# install puts the binary in ${CELLHOST_CACHE:-$HOME/.cache/cellhost}/bin,
# outside the clone, so later runs on the same machine reuse it (the first
# build takes minutes). start installs if needed, runs versitygw on a free
# loopback port over a temporary directory, waits for /health, creates the
# bucket and prints the shell lines that export the connection:
#
#   export CELLHOST_TEST_S3='s3://cellhost-test/ci?endpoint=http://127.0.0.1:PORT&region=us-east-1&path_style=true'
#   export AWS_ACCESS_KEY_ID=... AWS_SECRET_ACCESS_KEY=...
#
# Every failure exits non-zero with a message on stderr.
set -euo pipefail

VERSITYGW_VERSION=v1.8.0
VERSITYGW_PKG=github.com/versity/versitygw/cmd/versitygw
BUCKET=cellhost-test
REGION=us-east-1

cache_dir="${CELLHOST_CACHE:-${HOME:?HOME is unset}/.cache/cellhost}"
bin="$cache_dir/bin/versitygw-$VERSITYGW_VERSION"

NAME=versitygw PID_VAR=CELLHOST_VERSITYGW_PID DIR_VAR=CELLHOST_VERSITYGW_DIR
. "$(dirname "$0")/s3lib.sh"

# installed reports whether $bin is a versitygw built from the pinned version.
installed() {
  [ -x "$bin" ] && go version -m "$bin" 2>/dev/null |
    grep -Eq "^[[:space:]]+mod[[:space:]]+github.com/versity/versitygw[[:space:]]+$VERSITYGW_VERSION[[:space:]]"
}

install() { go_install_pinned "$VERSITYGW_PKG@$VERSITYGW_VERSION" versitygw .install.lock installed; }

health_url() { echo "http://127.0.0.1:$1/health"; }

# launch <dir> <port> <access> <secret>. Never --nometa (conditional writes
# stop working) nor --sidecar (stale ETags): the posix backend with its
# default xattr metadata.
launch() {
  mkdir -p "$1/root"
  ROOT_ACCESS_KEY="$3" ROOT_SECRET_KEY="$4" \
    "$bin" --port "127.0.0.1:$2" --region "$REGION" --quiet --keep-alive --health /health \
    posix "$1/root" </dev/null >"$1/server.log" 2>&1 &
}

start() { install; start_server 150; } # healthy within 15 s
stop() { stop_server; }

case "${1:-}" in
  install) install; echo "$bin" ;;
  start) start ;;
  stop) stop ;;
  *) die "usage: $0 install|start|stop" ;;
esac
