#!/bin/sh
# test/dist/dist_complete.sh - the release tarball carries every file of the
# git checkout (sources, tests, test data, scripts, docs, man pages) except
# the repository's own bookkeeping (.gitignore, .ci/), and no file a build
# left in a directory shipped whole: builds `make distdir` into a temporary
# directory and compares it with `git ls-files`. A file
# added to the repository without a place in a Makefile's sources,
# EXTRA_DIST or dist_*_SCRIPTS fails here, before `make distcheck` would.
# Needs SPX_TOP_BUILDDIR and SPX_TOP_SRCDIR (make check exports them).
# Exit 0 passed, 1 failed, 77 skipped (the source tree is not a git checkout,
# as in a build from the tarball itself).
set -u
b=${SPX_TOP_BUILDDIR:?SPX_TOP_BUILDDIR is not set}
s=${SPX_TOP_SRCDIR:?SPX_TOP_SRCDIR is not set}
command -v git >/dev/null 2>&1 || { echo "SKIP: git not installed"; exit 77; }
git -C "$s" rev-parse --show-toplevel >/dev/null 2>&1 || { echo "SKIP: $s is not a git checkout"; exit 77; }
[ "$(cd "$(git -C "$s" rev-parse --show-toplevel)" && pwd -P)" = "$(cd "$s" && pwd -P)" ] ||
    { echo "SKIP: $s is not the top of its git checkout"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/spmix-dist.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
dd=$tmp/spmix-dist
make -s -C "$b" distdir distdir="$dd" top_distdir="$dd" >"$tmp/log" 2>&1 ||
    { cat "$tmp/log"; echo "FAIL: make distdir"; exit 1; }
missing=$(git -C "$s" ls-files | grep -Ev '^(\.gitignore|\.ci/)' | while read -r f; do
    [ ! -e "$s/$f" ] || [ -e "$dd/$f" ] || echo "$f"   # (deleted but not yet committed: not counted)
done)
n=$(git -C "$s" ls-files | grep -Evc '^(\.gitignore|\.ci/)')
if [ -n "$missing" ]; then
    echo "FAIL: tracked files missing from the release tarball (add them to EXTRA_DIST or a _SOURCES/_SCRIPTS list):"
    echo "$missing" | sed 's/^/    /'
    exit 1
fi
# Directories shipped whole (EXTRA_DIST: scripts, doc, test/demo, test/slurm)
# carry only their tracked files, not what a build left there (automake copies
# such a directory from the build tree too, where test/slurm holds a check
# program, its objects and .deps).
extra=$(cd "$dd" && find scripts doc test/demo test/slurm \( -type f -o -type l \) 2>/dev/null | sort |
    while read -r f; do git -C "$s" ls-files --error-unmatch "$f" >/dev/null 2>&1 || echo "$f"; done)
if [ -n "$extra" ]; then
    echo "FAIL: untracked files (build products) in the release tarball:"
    echo "$extra" | sed 's/^/    /'
    exit 1
fi
echo "PASS: all $n tracked files are in the tarball, and no build product in its whole directories"
