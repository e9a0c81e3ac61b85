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

log() { echo "minio.sh: $*" >&2; }
die() { log "$*"; exit 1; }
random_hex() { od -An -N"$1" -tx1 /dev/urandom | tr -d ' \n'; }
port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

install() {
  [ -x "$bin" ] && return 0
  mkdir -p "$cache_dir/bin"
  exec 9>"$cache_dir/bin/.install-minio.lock"
  flock 9
  [ -x "$bin" ] && return 0
  log "installing MinIO $MINIO_VERSION into $cache_dir/bin (a long build)"
  local tmp
  tmp=$(mktemp -d "$cache_dir/bin/.install.XXXXXX")
  (cd "$tmp" && GOWORK=off GOBIN="$tmp" go install "$MINIO_PKG@$MINIO_VERSION" >&2) ||
    { rm -rf "$tmp"; die "go install $MINIO_PKG@$MINIO_VERSION failed"; }
  mv -f "$tmp/minio" "$bin"
  rm -rf "$tmp"
}

start() {
  install
  local dir access secret port pid="" ok=""
  dir=$(mktemp -d "${TMPDIR:-/tmp}/cellhost-minio.XXXXXX")
  access="cellhost$(random_hex 6)"
  secret="$(random_hex 20)"
  trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$dir"' ERR
  for _ in 1 2 3 4 5; do
    port=$(( 20000 + $(od -An -N2 -tu2 /dev/urandom | tr -d ' ') % 40000 ))
    port_in_use "$port" && continue
    MINIO_ROOT_USER="$access" MINIO_ROOT_PASSWORD="$secret" MINIO_REGION="$REGION" MINIO_BROWSER=off \
      MINIO_UPDATE=off "$bin" server --quiet --address "127.0.0.1:$port" "$dir/data" </dev/null >"$dir/minio.log" 2>&1 &
    pid=$!
    for _ in $(seq 1 300); do # 30 s
      if curl -fsS -o /dev/null "http://127.0.0.1:$port/minio/health/live" 2>/dev/null; then ok=1; break; fi
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    [ -n "$ok" ] && break
    tail -n 20 "$dir/minio.log" >&2 || true
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    pid=""
  done
  [ -n "$ok" ] || { rm -rf "$dir"; die "could not start MinIO"; }
  local status
  status=$(curl -sS -o "$dir/create-bucket.out" -w '%{http_code}' -X PUT \
    --aws-sigv4 "aws:amz:$REGION:s3" --user "$access:$secret" \
    -H "x-amz-content-sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" \
    "http://127.0.0.1:$port/$BUCKET") || status="curl failed"
  [ "$status" = 200 ] || { cat "$dir/create-bucket.out" >&2; kill "$pid"; rm -rf "$dir"; die "create bucket: HTTP $status"; }
  trap - ERR
  log "MinIO pid $pid on 127.0.0.1:$port, bucket $BUCKET"
  cat <<OUT
export CELLHOST_TEST_S3='s3://$BUCKET/ci?endpoint=http://127.0.0.1:$port&region=$REGION&path_style=true'
export AWS_ACCESS_KEY_ID='$access'
export AWS_SECRET_ACCESS_KEY='$secret'
unset AWS_SESSION_TOKEN
export CELLHOST_MINIO_PID='$pid'
export CELLHOST_MINIO_DIR='$dir'
OUT
}

stop() {
  local pid="${CELLHOST_MINIO_PID:-}" dir="${CELLHOST_MINIO_DIR:-}"
  if [ -n "$pid" ] && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q "minio-$MINIO_VERSION"; then
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$pid" 2>/dev/null && kill -9 "$pid" 2>/dev/null || true
  fi
  case "$dir" in */cellhost-minio.*) rm -rf "$dir" ;; esac
}

case "${1:-}" in
  install) install; echo "$bin" ;;
  start) start ;;
  stop) stop ;;
  *) die "usage: $0 install|start|stop" ;;
esac
