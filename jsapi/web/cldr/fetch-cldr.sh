#!/usr/bin/env bash
# fetch-cldr.sh: installs the cldr-json packages (CLDR 48.1.0: workerd's ICU
# 78.2 data matches 48.1 closest, see README.md and
# ../testdata/intl-probe/icu-res.py, which reads ICU's data out of the workerd
# binary; cldr-units-full has no 48.1.0: 48.0.0; cldr-bcp47 only 48.2.0)
# from npm into ~/.cache/cellhost/cldr48, where
# `go generate ./jsapi/web/cldr` reads them. Only needed to regenerate the
# committed data in jsapi/web/cldr/data.
set -euo pipefail
DIR=${CLDR_CACHE:-$HOME/.cache/cellhost/cldr48}
mkdir -p "$DIR"
cd "$DIR"
[ -f package.json ] || echo '{"private":true}' > package.json
npm install --no-audit --no-fund --legacy-peer-deps cldr-core@48.1.0 cldr-dates-full@48.1.0 cldr-numbers-full@48.1.0 \
  cldr-localenames-full@48.1.0 cldr-units-full@48.0.0 cldr-misc-full@48.1.0 cldr-bcp47@48.2.0
# the other calendars: npm has CLDR 48 only for hebrew and islamic (48.2.0);
# the others are the newest published (gen/main.go takes the names CLDR
# aliases to the Gregorian calendar and the date-time glue from CLDR 48)
npm install --no-audit --no-fund --legacy-peer-deps cldr-cal-hebrew-full@48.2.0 cldr-cal-islamic-full@48.2.0 \
  cldr-cal-persian-full@46.1.0 cldr-cal-buddhist-full@39.0.0 cldr-cal-japanese-full@39.0.0 \
  cldr-cal-roc-full@28.0.0 cldr-cal-indian-full@28.0.0
echo "CLDR_JSON=$DIR/node_modules"
