# ab-lib.sh, sourced by the A/B scripts (ab-latency.sh, activation.sh) after
# they set ROOT, BASE_REV and die: a work directory removed on exit with the
# processes in PIDS, and the two binaries to compare, $work/A (BASE_REV) and
# $work/B (the working tree).
work=$(mktemp -d)
PIDS=()
cleanup() {
  local p
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

# A_BIN / B_BIN: prebuilt binaries instead (e.g. built beforehand with
# go build on a loaded machine, where the builds can outlast
# their 10 minutes); the labels then say so.
rev=$(git -C "$ROOT" rev-parse --short "$BASE_REV^{commit}") || die "BASE=$BASE_REV is not a commit"
if [ -n "${A_BIN:-}" ]; then
  cp "$A_BIN" "$work/A" || die "A_BIN=$A_BIN"
  rev="$A_BIN (prebuilt)"
else
  mkdir -p "$work/src"
  git -C "$ROOT" archive "$rev" | tar -C "$work/src" -xf -
  ( cd "$work/src" && timeout 600 go build -o "$work/A" ./cmd/cellhost ) || die "build of $rev failed"
fi
if [ -n "${B_BIN:-}" ]; then
  cp "$B_BIN" "$work/B" || die "B_BIN=$B_BIN"
else
  ( cd "$ROOT" && timeout 600 go build -o "$work/B" ./cmd/cellhost ) || die "build of the working tree failed"
fi
echo "A = $rev ($BASE_REV), B = ${B_BIN:-$(cd "$ROOT" && git describe --always --dirty) (working tree)}"
