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
CELLHOST_TEST262="$dir" CELLHOST_TEST262_DIRS=all \
	CELLHOST_TEST262_OUT=docs/test262-full.md \
	CELLHOST_TEST262_RESULTS=internal/test262/testdata/full-results.tsv \
	nice -n 19 go test ./internal/test262/ -run 'TestTest262$' -count=1 -timeout 0 -v
