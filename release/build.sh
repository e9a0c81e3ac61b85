#!/usr/bin/env bash
# Cross-builds cellhost release binaries and the npm packages that carry them.
#
#   bash release/build.sh [--host-only | --all] [--version vX.Y.Z] [--out DIR]
#
# Builds static binaries (CGO_ENABLED=0: modernc's SQLite is pure Go) with
# the version and commit stamped through -ldflags, writes SHA256SUMS beside
# them, then lays out the
# npm packages (release/npm: the `cellhost` package, whose bin/cellhost.js
# runs the binary of the one optional dependency npm installed for this
# platform, and one @cellhost/<os>-<cpu> package per platform, as esbuild and
# workerd ship theirs) and packs each with `npm pack`.
#
# Platforms: linux on amd64 and arm64 by default. --all adds darwin and
# windows on amd64 and arm64 (they compile, checked by go test ./release/,
# but are not run here; what differs per OS: docs/operations.md).
# --host-only builds this machine's platform only
# (CI: release/npm-smoke.sh).
# The version defaults to the tag on HEAD, else 0.0.0-dev.<commit>.
set -euo pipefail
cd "$(dirname "$0")/.."
host_only=false
all=false
out=dist
version=""
while [ $# -gt 0 ]; do
  case "$1" in
    --host-only) host_only=true ;;
    --all) all=true ;;
    --version) version="$2"; shift ;;
    --out) out="$2"; shift ;;
    *) echo "release/build.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
commit=$(git rev-parse HEAD 2>/dev/null || echo unknown)
if [ -z "$version" ]; then
  version=$(git describe --tags --exact-match 2>/dev/null || echo "v0.0.0-dev.${commit:0:12}")
fi
npm_version=${version#v}
mkdir -p "$out"
out=$(cd "$out" && pwd)

release_targets="linux/amd64 linux/arm64"
if $all; then
  release_targets="$release_targets darwin/amd64 darwin/arm64 windows/amd64 windows/arm64"
fi
if $host_only; then
  targets="$(go env GOOS)/$(go env GOARCH)"
else
  targets=$release_targets
fi

# npm's names for Go's platforms (process.platform, process.arch).
npm_os() { case "$1" in windows) echo win32 ;; *) echo "$1" ;; esac; }
npm_cpu() { case "$1" in amd64) echo x64 ;; *) echo "$1" ;; esac; }

ldflags="-s -w -X main.version=$version -X main.commit=$commit"
rm -f "$out/SHA256SUMS"
for t in $targets; do
  os=${t%/*} arch=${t#*/}
  exe=""; [ "$os" = windows ] && exe=.exe
  bin="$out/cellhost-$version-$os-$arch$exe"
  echo "release/build.sh: building $os/$arch" >&2
  CGO_ENABLED=0 GOOS=$os GOARCH=$arch go build -trimpath -buildvcs=false -ldflags "$ldflags" -o "$bin" ./cmd/cellhost
done
(cd "$out" && sha256sum cellhost-"$version"-* > SHA256SUMS)

# npm packages.
npm_dir="$out/npm"
rm -rf "$npm_dir"
mkdir -p "$npm_dir"
optional=""
for t in $targets; do
  os=${t%/*} arch=${t#*/}
  exe=""; [ "$os" = windows ] && exe=.exe
  name="@cellhost/$(npm_os "$os")-$(npm_cpu "$arch")"
  dir="$npm_dir/$(npm_os "$os")-$(npm_cpu "$arch")"
  mkdir -p "$dir/bin"
  cp "$out/cellhost-$version-$os-$arch$exe" "$dir/bin/cellhost$exe"
  cat > "$dir/package.json" <<JSON
{
  "name": "$name",
  "version": "$npm_version",
  "description": "The cellhost binary for $(npm_os "$os") $(npm_cpu "$arch") (installed by the cellhost package)",
  "repository": "github:cellhost/cellhost",
  "os": ["$(npm_os "$os")"],
  "cpu": ["$(npm_cpu "$arch")"],
  "files": ["bin/"],
  "preferUnplugged": true
}
JSON
  optional="$optional${optional:+,
}    \"$name\": \"$npm_version\""
done
# The release's platforms are always declared, so that a package built
# with --host-only names every platform the release installs on.
if $host_only; then
  optional=""
  for t in $release_targets; do
    os=${t%/*} arch=${t#*/}
    optional="$optional${optional:+,
}    \"@cellhost/$(npm_os "$os")-$(npm_cpu "$arch")\": \"$npm_version\""
  done
fi
main="$npm_dir/cellhost"
mkdir -p "$main/bin"
cp release/npm/cellhost/bin/cellhost.js "$main/bin/cellhost.js"
cp release/npm/cellhost/README.md "$main/README.md"
cat > "$main/package.json" <<JSON
{
  "name": "cellhost",
  "version": "$npm_version",
  "description": "Run Cloudflare-style Durable Objects on your own machines: cellhost dev, cellhost serve",
  "repository": "github:cellhost/cellhost",
  "bin": { "cellhost": "bin/cellhost.js" },
  "files": ["bin/", "README.md"],
  "engines": { "node": ">=18" },
  "optionalDependencies": {
$optional
  }
}
JSON
for d in "$npm_dir"/*/; do
  (cd "$npm_dir" && npm pack --silent "$d" >/dev/null)
done
ls "$npm_dir"/*.tgz >&2
echo "release/build.sh: $version ($commit) in $out" >&2
