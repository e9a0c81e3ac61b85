#!/usr/bin/env bash
# Unpacks the npm package create-cloudflare (C3), whose templates/ directory
# carries the template TestPublicProjects runs as c3-do-with-assets-ts
# (templates/hello-world-durable-object-with-assets/ts; 2.67.4 has the files
# of workers-sdk @ f8308360), into ~/.cache/cellhost/create-cloudflare-<version>
# (or $CELLHOST_CACHE), and prints the package directory (CELLHOST_C3_PACKAGE).
set -euo pipefail
version=2.67.4
dest="${CELLHOST_CACHE:-$HOME/.cache/cellhost}/create-cloudflare-$version"
tpl=templates/hello-world-durable-object-with-assets/ts
if [ -f "$dest/package/$tpl/wrangler.jsonc" ]; then
	echo "$dest/package"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "create-cloudflare@$version" >/dev/null)
mkdir -p "$dest"
tar -xzf "$tmp/create-cloudflare-$version.tgz" -C "$dest" "package/$tpl" package/package.json
echo "$dest/package"
