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

log() { echo "versitygw.sh: $*" >&2; }
die() { log "$*"; exit 1; }

# installed reports whether $bin is a versitygw built from the pinned version.
installed() {
  [ -x "$bin" ] && go version -m "$bin" 2>/dev/null |
    grep -Eq "^[[:space:]]+mod[[:space:]]+github.com/versity/versitygw[[:space:]]+$VERSITYGW_VERSION[[:space:]]"
}

install() {
  installed && return 0
  mkdir -p "$cache_dir/bin"
  # One install at a time per machine; a concurrent run waits, then reuses.
  exec 9>"$cache_dir/bin/.install.lock"
  flock 9
  if installed; then
    exec 9>&-
    return 0
  fi
  log "installing versitygw $VERSITYGW_VERSION into $cache_dir/bin (several minutes on a cold machine)"
  local start tmp
  start=$(date +%s)
  tmp=$(mktemp -d "$cache_dir/bin/.install.XXXXXX")
  if ! (cd "$tmp" && GOWORK=off GOBIN="$tmp" go install "$VERSITYGW_PKG@$VERSITYGW_VERSION" >&2); then
    rm -rf "$tmp"
    die "go install $VERSITYGW_PKG@$VERSITYGW_VERSION failed: the S3 store tests cannot run"
  fi
  mv -f "$tmp/versitygw" "$bin" # atomic: a reader sees the old or the whole new binary
  rm -rf "$tmp"
  exec 9>&-
  installed || die "$bin is not versitygw $VERSITYGW_VERSION after install"
  log "installed versitygw $VERSITYGW_VERSION in $(( $(date +%s) - start ))s"
}

random_hex() { od -An -N"$1" -tx1 /dev/urandom | tr -d ' \n'; }

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

start() {
  install
  command -v curl >/dev/null || die "curl is needed to create the test bucket"
  local dir access secret port pid="" ok="" attempt
  dir=$(mktemp -d "${TMPDIR:-/tmp}/cellhost-versitygw.XXXXXX")
  mkdir "$dir/root"
  access="cellhost$(random_hex 6)"
  secret="$(random_hex 20)"
  # On failure, stop what was started.
  trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$dir"' ERR

  for attempt in 1 2 3 4 5; do
    port=$(( 20000 + $(od -An -N2 -tu2 /dev/urandom | tr -d ' ') % 40000 ))
    port_in_use "$port" && continue
    # Never --nometa (conditional writes stop working) nor --sidecar (stale
    # ETags): the posix backend with its default xattr metadata.
    ROOT_ACCESS_KEY="$access" ROOT_SECRET_KEY="$secret" \
      "$bin" --port "127.0.0.1:$port" --region "$REGION" --quiet --keep-alive --health /health \
      posix "$dir/root" </dev/null >"$dir/versitygw.log" 2>&1 &
    pid=$!
    for _ in $(seq 1 150); do # 15 s
      if curl -fsS -o /dev/null "http://127.0.0.1:$port/health" 2>/dev/null; then
        ok=1
        break
      fi
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    [ -n "$ok" ] && break
    log "versitygw on port $port did not become healthy (attempt $attempt):"
    tail -n 20 "$dir/versitygw.log" >&2 || true
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    pid=""
  done
  [ -n "$ok" ] || { rm -rf "$dir"; die "could not start versitygw"; }

  local status
  status=$(curl -sS -o "$dir/create-bucket.out" -w '%{http_code}' -X PUT \
    --aws-sigv4 "aws:amz:$REGION:s3" --user "$access:$secret" \
    -H "x-amz-content-sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" \
    "http://127.0.0.1:$port/$BUCKET") || status="curl failed"
  if [ "$status" != 200 ]; then
    log "create bucket $BUCKET: HTTP $status"
    cat "$dir/create-bucket.out" >&2 || true
    kill "$pid" 2>/dev/null || true
    rm -rf "$dir"
    exit 1
  fi
  trap - ERR
  log "versitygw $VERSITYGW_VERSION pid $pid on 127.0.0.1:$port, bucket $BUCKET, root $dir/root"

  cat <<EOF
export CELLHOST_TEST_S3='s3://$BUCKET/ci?endpoint=http://127.0.0.1:$port&region=$REGION&path_style=true'
export AWS_ACCESS_KEY_ID='$access'
export AWS_SECRET_ACCESS_KEY='$secret'
unset AWS_SESSION_TOKEN
export CELLHOST_VERSITYGW_PID='$pid'
export CELLHOST_VERSITYGW_DIR='$dir'
EOF
}

stop() {
  local pid="${CELLHOST_VERSITYGW_PID:-}" dir="${CELLHOST_VERSITYGW_DIR:-}"
  if [ -n "$pid" ] && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q "versitygw-$VERSITYGW_VERSION"; then
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then kill -9 "$pid" 2>/dev/null || true; fi
  fi
  case "$dir" in
    */cellhost-versitygw.*) rm -rf "$dir" ;;
  esac
}

case "${1:-}" in
  install) install; echo "$bin" ;;
  start) start ;;
  stop) stop ;;
  *) die "usage: $0 install|start|stop" ;;
esac
