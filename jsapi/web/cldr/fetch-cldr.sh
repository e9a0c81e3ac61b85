#!/usr/bin/env bash
# fetch-cldr.sh: installs the cldr-json packages (CLDR 48.0.0, the CLDR of
# workerd's ICU 78; cldr-bcp47 has no 48.0.0, its time zone ids are 48.2.0's) from npm into ~/.cache/cellhost/cldr48, where
# `go generate ./jsapi/web/cldr` reads them. Only needed to regenerate the
# committed data in jsapi/web/cldr/data.
set -euo pipefail
DIR=${CLDR_CACHE:-$HOME/.cache/cellhost/cldr48}
mkdir -p "$DIR"
cd "$DIR"
[ -f package.json ] || echo '{"private":true}' > package.json
npm install --no-audit --no-fund cldr-core@48.0.0 cldr-dates-full@48.0.0 cldr-numbers-full@48.0.0 \
  cldr-localenames-full@48.0.0 cldr-units-full@48.0.0 cldr-misc-full@48.0.0 cldr-bcp47@48.2.0
echo "CLDR_JSON=$DIR/node_modules"
