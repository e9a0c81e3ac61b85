#!/usr/bin/env bash
# inline.sh <case-dir> <out-dir>: a self-contained copy of a case that imports
# ../_shared/peer-prelude.js, with the prelude inlined where it is imported,
# for the anchor scripts (../shared/anchor/record.sh and check.sh copy one
# directory, so ../_shared is not beside the copy they serve on workerd):
#   testjs/cases/_shared/inline.sh testjs/cases/peer-rpc-serialize /tmp/prs
#   ../shared/anchor/check.sh /tmp/prs
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: inline.sh <case-dir> <out-dir>" >&2; exit 64; }
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$2"
cp -r "$1"/. "$2"/
awk -v prelude="$here/peer-prelude.js" '
  /from .\.\.\/_shared\/peer-prelude\.js.;/ {
    while ((getline line < prelude) > 0) if (line !~ /^export \{/) print line
    next
  }
  { print }' "$1/index.js" > "$2/index.js"
