# Shared by .ci/versitygw.sh and .ci/minio.sh (sourced, not run): the
# install, start and stop steps of a local S3 server for the S3 store tests.
# The caller sets NAME (for messages and file names), BUCKET, REGION, bin,
# cache_dir, PID_VAR and DIR_VAR (the exported variable names of start's
# output), and defines launch <dir> <port> <access> <secret> (starts the
# server in the background, logging to <dir>/server.log) and health_url
# <port>.

log() { echo "$NAME.sh: $*" >&2; }
die() { log "$*"; exit 1; }
random_hex() { od -An -N"$1" -tx1 /dev/urandom | tr -d ' \n'; }
port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# go_install_pinned <pkg@version> <built-name> <lock-name> <installed-fn>:
# one install at a time per machine (a concurrent run waits, then reuses);
# the binary lands in $bin atomically (a reader sees the old or the whole
# new binary).
go_install_pinned() {
  local pkg=$1 built=$2 lock=$3 ok=$4
  "$ok" && return 0
  mkdir -p "$cache_dir/bin"
  exec 9>"$cache_dir/bin/$lock"
  flock 9
  if "$ok"; then
    exec 9>&-
    return 0
  fi
  log "installing $pkg into $cache_dir/bin (several minutes on a cold machine)"
  local start tmp
  start=$(date +%s)
  tmp=$(mktemp -d "$cache_dir/bin/.install.XXXXXX")
  if ! (cd "$tmp" && GOWORK=off GOBIN="$tmp" go install "$pkg" >&2); then
    rm -rf "$tmp"
    die "go install $pkg failed: the S3 store tests cannot run"
  fi
  mv -f "$tmp/$built" "$bin"
  rm -rf "$tmp"
  exec 9>&-
  "$ok" || die "$bin is not $pkg after install"
  log "installed $pkg in $(( $(date +%s) - start ))s"
}

# start_server <health-tries>: a free loopback port (five tries), the server
# healthy within <health-tries> x 0.1 s, the bucket created; prints the
# shell lines that export the connection.
start_server() {
  local tries=$1
  command -v curl >/dev/null || die "curl is needed to create the test bucket"
  local dir access secret port pid="" ok="" attempt
  dir=$(mktemp -d "${TMPDIR:-/tmp}/cellhost-$NAME.XXXXXX")
  access="cellhost$(random_hex 6)"
  secret="$(random_hex 20)"
  # On failure, stop what was started.
  trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$dir"' ERR

  for attempt in 1 2 3 4 5; do
    port=$(( 20000 + $(od -An -N2 -tu2 /dev/urandom | tr -d ' ') % 40000 ))
    port_in_use "$port" && continue
    launch "$dir" "$port" "$access" "$secret"
    pid=$!
    for _ in $(seq 1 "$tries"); do
      if curl -fsS -o /dev/null "$(health_url "$port")" 2>/dev/null; then
        ok=1
        break
      fi
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    [ -n "$ok" ] && break
    log "$NAME on port $port did not become healthy (attempt $attempt):"
    tail -n 20 "$dir/server.log" >&2 || true
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    pid=""
  done
  [ -n "$ok" ] || { rm -rf "$dir"; die "could not start $NAME"; }

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
  log "$NAME pid $pid on 127.0.0.1:$port, bucket $BUCKET, data in $dir"

  cat <<OUT
export CELLHOST_TEST_S3='s3://$BUCKET/ci?endpoint=http://127.0.0.1:$port&region=$REGION&path_style=true'
export AWS_ACCESS_KEY_ID='$access'
export AWS_SECRET_ACCESS_KEY='$secret'
unset AWS_SESSION_TOKEN
export $PID_VAR='$pid'
export $DIR_VAR='$dir'
OUT
}

# stop_server: stops the server start_server started (its pid and
# directory from the exported variables), only if that pid still runs $bin.
stop_server() {
  local pid="${!PID_VAR:-}" dir="${!DIR_VAR:-}"
  if [ -n "$pid" ] && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF "$bin"; then
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then kill -9 "$pid" 2>/dev/null || true; fi
  fi
  case "$dir" in
    */cellhost-$NAME.*) rm -rf "$dir" ;;
  esac
}
