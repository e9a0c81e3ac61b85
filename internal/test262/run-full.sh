#!/usr/bin/env bash
# The full test262 run (every test under test/ but staging/, unsampled)
# through cellhost's path, regenerating docs/test262-full.md (tables) and
# internal/test262/testdata/full-results.tsv (every test that did not pass).
#
#   bash internal/test262/run-full.sh
#
# The checkout: $CELLHOST_TEST262 if set, else ~/.cache/cellhost/test262-<commit>,
# extracted from a git clone or mirror of tc39/test262 named by
# $CELLHOST_TEST262_GIT (a git directory holding the pinned commit). test262
# is on no package registry and this repository carries none of its files, so
# CI (which reaches only the Go proxy, npm and Debian) runs neither this nor
# the pinned subset (TestPinned, from the same checkout). About an hour on two
# loaded cores; it runs under nice.
set -euo pipefail
cd "$(dirname "$0")/../.."
commit=be13516fb6441b950ba8a3df97eb34062c186972
dir=${CELLHOST_TEST262:-$HOME/.cache/cellhost/test262-${commit:0:12}}
if [ ! -d "$dir/test" ]; then
	git_dir=${CELLHOST_TEST262_GIT:-}
	if [ -z "$git_dir" ]; then
		echo "run-full.sh: no test262 checkout at $dir; set CELLHOST_TEST262 to a checkout of tc39/test262 at $commit, or CELLHOST_TEST262_GIT to a git directory that has that commit" >&2
		exit 2
	fi
	mkdir -p "$dir"
	git --git-dir="$git_dir" archive "$commit" harness test | tar -x -C "$dir"
	echo "$commit" >"$dir/.test262-commit"
fi
# The run is resumable: every result is appended to $raw as it comes, a
# run stopped by its time limit (CELLHOST_TEST262_LIMIT, e.g. 80m; none by
# default) keeps what it finished, the next run of this script goes on
# from there, and the report counts the tests not reached yet as skipped
# ("not run: ..."), never leaves them out. Start again from nothing with
# CELLHOST_TEST262_FRESH=1.
raw=${CELLHOST_TEST262_RAW:-$HOME/.cache/cellhost/test262-${commit:0:12}.raw.tsv}
mkdir -p "$(dirname "$raw")"
if [ "${CELLHOST_TEST262_FRESH:-}" = 1 ]; then rm -f "$raw"; fi
bin=$(mktemp -d)/test262.test
trap 'rm -rf "$(dirname "$bin")"' EXIT
go test -c -o "$bin" ./internal/test262/
cd internal/test262
rc=0
CELLHOST_TEST262="$dir" CELLHOST_TEST262_DIRS=all CELLHOST_TEST262_RAW="$raw" \
	timeout "${CELLHOST_TEST262_LIMIT:-0}" nice -n "${CELLHOST_TEST262_NICE:-19}" "$bin" -test.run 'TestTest262$' -test.count=1 -test.timeout 0 || rc=$?
if [ "$rc" = 124 ]; then echo "run-full.sh: stopped by CELLHOST_TEST262_LIMIT; what finished is in $raw" >&2; fi
# The report, from the raw file (also after a stop).
CELLHOST_TEST262="$dir" CELLHOST_TEST262_DIRS=all CELLHOST_TEST262_RAW="$raw" CELLHOST_TEST262_NORUN=1 \
	CELLHOST_TEST262_OUT=../../docs/test262-full.md \
	CELLHOST_TEST262_RESULTS=testdata/full-results.tsv \
	"$bin" -test.run 'TestTest262$' -test.count=1 -test.timeout 0 -test.v | grep -E '^(---|ok|FAIL)|already in' || true
