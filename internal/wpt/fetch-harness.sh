#!/usr/bin/env bash
# Installs WPT's testharness.js for internal/wpt from the npm package
# wpt-runner (its testharness/ directory is WPT's resources/, BSD-3-Clause),
# into ~/.cache/cellhost/wpt-runner-<version> (or $CELLHOST_CACHE).
set -euo pipefail
version=7.0.0
dest="${CELLHOST_CACHE:-$HOME/.cache/cellhost}/wpt-runner-$version"
if [ -f "$dest/package/testharness/testharness.js" ]; then
	echo "$dest/package/testharness/testharness.js"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "wpt-runner@$version" >/dev/null)
mkdir -p "$dest"
tar -xzf "$tmp/wpt-runner-$version.tgz" -C "$dest" package/testharness package/LICENSE.txt package/package.json
echo "$dest/package/testharness/testharness.js"
