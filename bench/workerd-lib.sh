# workerd-lib.sh, sourced by the scripts that run workerd beside cellhost
# (vs-workerd.sh, latency.sh) after they set ROOT and die: the pinned
# workerd and esbuild from npm in .cache/anchor, and how workerd serves a
# wrangler project, as /work/shared/anchor/record.sh runs it.
WORKERD_PKG=workerd@1.20261117.1
ESBUILD_PKG=esbuild@0.28.2
ANCHOR=$ROOT/.cache/anchor
WORKERD=$ANCHOR/node_modules/.bin/workerd
ESBUILD=$ANCHOR/node_modules/.bin/esbuild

# workerd_install: installs WORKERD_PKG, ESBUILD_PKG and ws@8 into ANCHOR
# (npm) unless they are there at those versions; sets WORKERD_VERSION.
workerd_install() {
  local t
  for t in node npm; do command -v "$t" >/dev/null || die "$t is missing"; done
  pkgver() { node -p "require('$ANCHOR/node_modules/$1/package.json').version" 2>/dev/null || true; }
  if [ ! -x "$WORKERD" ] || [ ! -x "$ESBUILD" ] ||
     [ "$(pkgver workerd)" != "${WORKERD_PKG#*@}" ] || [ "$(pkgver esbuild)" != "${ESBUILD_PKG#*@}" ]; then
    echo "installing $WORKERD_PKG $ESBUILD_PKG ws@8 into $ANCHOR (npm)" >&2
    mkdir -p "$ANCHOR"
    ( cd "$ANCHOR" && timeout 600 npm install --no-audit --no-fund --loglevel=error \
        "$WORKERD_PKG" "$ESBUILD_PKG" ws@8 >&2 ) || die "npm install of workerd failed"
  fi
  WORKERD_VERSION=$("$WORKERD" --version 2>&1) || die "workerd does not run: $WORKERD_VERSION"
}

# workerd_start <project-dir> <log> <control-file>: starts workerd serving
# the wrangler.jsonc of project-dir (which bundles src with esbuild and keeps
# each object in a SQLite file under .wrangler/state) on a free loopback
# port, in the background; sets SPID. The port appears in the control file as
# {"event":"listen","socket":"http","port":N} (workerd_port reads it).
workerd_start() {
  : > "$3"
  ( cd "$1" && WORKERD_ESBUILD=$ESBUILD WRANGLER_SEND_METRICS=false exec "$WORKERD" serve \
      -s http=127.0.0.1:0 --control-fd 3 wrangler.jsonc 3>"$3" >"$2" 2>&1 ) &
  SPID=$!
}

# workerd_port <control-file> <pid>: waits up to 30 s for the port workerd
# listens on and prints it (nothing if workerd exited first).
workerd_port() {
  local port
  for _ in $(seq 1 300); do
    port=$(grep -o '"port":[0-9]*' "$1" 2>/dev/null | head -1 | cut -d: -f2 || true)
    [ -n "$port" ] && { echo "$port"; return 0; }
    kill -0 "$2" 2>/dev/null || return 0
    sleep 0.1
  done
}

# cpu_us <pid>: the process's CPU time so far (user + system, all its
# threads, from /proc/<pid>/stat), in microseconds. Divided by the requests
# of a run it gives the CPU per request, which other load on the machine
# moves much less than req/s. Fields counted after the ")" that ends the
# command name (it may contain spaces).
cpu_us() {
  awk -v hz="$(getconf CLK_TCK)" '{ sub(/^.*\) /, ""); split($0, f, " "); printf "%.0f\n", (f[12] + f[13]) * 1e6 / hz }' "/proc/$1/stat" 2>/dev/null || echo 0
}
# cpu_per <us-before> <us-after> <requests>: microseconds of CPU per request
cpu_per() { awk -v a="$1" -v b="$2" -v n="$3" 'BEGIN{ printf "%.0f", (n > 0) ? (b - a) / n : 0 }'; }
