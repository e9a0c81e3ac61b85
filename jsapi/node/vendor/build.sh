#!/usr/bin/env bash
# build.sh: rebuild readable-stream.js, the vendored implementation of
# node:stream (Node.js's own streams, published by the Node.js project as
# the npm package readable-stream), as one CommonJS function that takes
# cellhost's require: its dependencies buffer, events, process,
# string_decoder and abort-controller are cellhost's node:* modules and
# globals, not the npm copies. Target ES2017: esbuild lowers the async
# generators and for-await goja lacks.
#
#   bash jsapi/node/vendor/build.sh     (needs npm and network access to npm)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
VERSION=4.8.0
ESBUILD_VERSION=0.28.2
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
cd "$TMP"
npm init -y >/dev/null
MINIMATCH_VERSION=10.0.3
npm install --no-audit --no-fund "readable-stream@$VERSION" "minimatch@$MINIMATCH_VERSION" "esbuild@$ESBUILD_VERSION" >/dev/null
cat > entry.js <<'JS'
module.exports = require("readable-stream");
JS
# abort-controller is the global AbortController (workerd has it).
mkdir -p shim && cat > shim/abort-controller.js <<'JS'
module.exports = { AbortController: globalThis.AbortController, AbortSignal: globalThis.AbortSignal };
JS
./node_modules/.bin/esbuild entry.js --bundle --format=cjs --platform=browser --target=es2017 \
  --external:buffer --external:events --external:process --external:string_decoder \
  --alias:abort-controller=./shim/abort-controller.js --main-fields=browser,main --legal-comments=inline \
  --log-level=warning --outfile=out.js
{
  echo "// readable-stream $VERSION (https://github.com/nodejs/readable-stream, MIT, the Node.js"
  echo "// project's streams as a package), bundled by build.sh. Do not edit."
  echo "(function (require, module, exports) {"
  cat out.js
  echo "})"
} > "$HERE/readable-stream.js"
echo "wrote $HERE/readable-stream.js ($(wc -c < "$HERE/readable-stream.js") bytes)"

# minimatch: the glob matcher Node's own fs.glob uses, for node:fs's glob.
cat > mm.js <<'JS'
module.exports = require("minimatch");
JS
./node_modules/.bin/esbuild mm.js --bundle --format=cjs --platform=browser --target=es2017 \
  --main-fields=main --legal-comments=inline --log-level=warning --outfile=mm-out.js
{
  echo "// minimatch $MINIMATCH_VERSION (https://github.com/isaacs/minimatch, ISC, the matcher of"
  echo "// Node's fs.glob), bundled by build.sh. Do not edit."
  echo "(function (require, module, exports) {"
  cat mm-out.js
  echo "})"
} > "$HERE/minimatch.js"
echo "wrote $HERE/minimatch.js ($(wc -c < "$HERE/minimatch.js") bytes)"
