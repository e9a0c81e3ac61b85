#!/usr/bin/env bash
# The npm install route, end to end, for this machine's platform (CI runs
# it from .ci/run): builds the host binary and the npm packages
# (release/build.sh --host-only), installs the two tarballs into a fresh
# project with npm and no registry (--offline), then runs
# `npx cellhost --version` and `npx cellhost dev` on a one-class module and
# sends it a request. Every failure exits non-zero saying which step.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
work=$(mktemp -d)
dev_pid=""
cleanup() {
  if [ -n "$dev_pid" ]; then kill "$dev_pid" 2>/dev/null || true; wait "$dev_pid" 2>/dev/null || true; fi
  if [ -n "$dev_pid" ] && pgrep -f "$work/project/node_modules" >/dev/null 2>&1; then
    echo "release/npm-smoke.sh: the binary outlived the npx wrapper's SIGTERM" >&2
    pkill -f "$work/project/node_modules" || true
    rm -rf "$work"
    exit 1
  fi
  rm -rf "$work"
}
trap cleanup EXIT
die() { echo "release/npm-smoke.sh: $*" >&2; exit 1; }

bash release/build.sh --host-only --version v0.0.0-smoke --out "$work/dist" >/dev/null 2>"$work/build.log" ||
  { cat "$work/build.log" >&2; die "release/build.sh failed"; }
platform=$(node -p 'process.platform + "-" + process.arch')
main_tgz="$work/dist/npm/cellhost-0.0.0-smoke.tgz"
plat_tgz="$work/dist/npm/cellhost-$platform-0.0.0-smoke.tgz"
[ -f "$main_tgz" ] || die "npm pack did not write $main_tgz"
[ -f "$plat_tgz" ] || die "npm pack did not write $plat_tgz"
(cd "$work/dist" && sha256sum -c --quiet SHA256SUMS) || die "SHA256SUMS does not match the binaries"

# A fresh project installs both tarballs; the platform package satisfies
# cellhost's optional dependency, the others (other platforms) are skipped.
proj="$work/project"
mkdir -p "$proj"
cd "$proj"
echo '{"name":"smoke","private":true}' > package.json
npm install --offline --no-audit --no-fund --loglevel=error "$main_tgz" "$plat_tgz" >"$work/npm.log" 2>&1 ||
  { cat "$work/npm.log" >&2; die "npm install from the tarballs failed"; }

v=$(npx --no-install cellhost --version) || die "npx cellhost --version failed"
case "$v" in
  "cellhost v0.0.0-smoke "*) ;;
  *) die "npx cellhost --version printed '$v', want the stamped version v0.0.0-smoke" ;;
esac
echo "release/npm-smoke.sh: $v" >&2

cat > index.js <<'JS'
import { DurableObject } from "cloudflare:workers";
export class Hello extends DurableObject {
  async fetch(request) {
    const n = ((await this.ctx.storage.get("n")) ?? 0) + 1;
    await this.ctx.storage.put("n", n);
    return new Response(`hello ${n}`);
  }
}
export default { fetch: (req, env) => env.Hello.getByName("smoke").fetch(req) };
JS
port=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
npx --no-install cellhost dev index.js --port "$port" --no-watch --no-inspector >"$work/dev.log" 2>&1 &
dev_pid=$!
body=""
for _ in $(seq 1 600); do
  if body=$(curl -fsS "http://127.0.0.1:$port/do/Hello/smoke" 2>/dev/null); then break; fi
  kill -0 "$dev_pid" 2>/dev/null || { cat "$work/dev.log" >&2; die "npx cellhost dev exited"; }
  sleep 0.1
done
[ "$body" = "hello 1" ] || { cat "$work/dev.log" >&2; die "the request answered '$body', want 'hello 1'"; }
echo "release/npm-smoke.sh: npx cellhost dev answered '$body'" >&2
# SIGTERM to the package's node wrapper (what a supervisor running
# `cellhost` from node_modules/.bin signals) reaches the binary: both exit,
# and npx with them (checked by cleanup). (npx itself runs the bin through
# sh, which does not pass signals on: supervisors run the binary.)
wrapper=$(pgrep -f "node $work/project/node_modules/.bin/cellhost dev" || true)
[ -n "$wrapper" ] || die "no node wrapper process found"
kill -TERM $wrapper
for _ in $(seq 1 100); do
  pgrep -f "$work/project/node_modules" >/dev/null 2>&1 || break
  sleep 0.1
done
wait "$dev_pid" 2>/dev/null || true
