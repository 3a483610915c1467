#!/bin/sh
# test/dist/install_uninstall.sh - `make install` of this build tree into a
# staging DESTDIR puts the library, spmix-run, the man pages and (when built) the Slurm plugin
# there (the plugin as mpi_*.so alone, no libtool archive), and `make
# uninstall` then removes every file it installed: nothing is left behind
# (what `make distcheck` requires of the installed tree).
# Needs SPX_TOP_BUILDDIR (make check exports it). Exit 0 passed, 1 failed.
set -u
b=${SPX_TOP_BUILDDIR:?SPX_TOP_BUILDDIR is not set}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/spmix-inst.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
d=$tmp/dest
fail() { echo "FAIL: $*"; exit 1; }

make -s -C "$b" install DESTDIR="$d" >"$tmp/log" 2>&1 || { cat "$tmp/log"; fail "make install"; }
find "$d" \( -type f -o -type l \) | sed "s|^$d||" | sort >"$tmp/installed"
sed 's/^/    /' "$tmp/installed"
grep -q '/lib/spmix/libpmix\.so\.2$' "$tmp/installed" || fail "libpmix.so.2 was not installed"
grep -q '/bin/spmix-run$' "$tmp/installed" || fail "spmix-run was not installed"
grep -q '/man/man3/PMIx_Fence\.3$' "$tmp/installed" || fail "the API man pages were not installed"
grep -q '/man/man7/spmix\.7$' "$tmp/installed" || fail "spmix(7) was not installed"
if ls "$b"/plugin/.libs/mpi_*.so >/dev/null 2>&1; then
    grep -Eq '/mpi_(spmix|pmix)\.so$' "$tmp/installed" || fail "the Slurm plugin was not installed"
    ! grep -Eq '/mpi_(spmix|pmix)\.la$' "$tmp/installed" || fail "the plugin's libtool archive was installed"
    echo "PASS: the Slurm plugin is installed as a .so alone"
fi
make -s -C "$b" uninstall DESTDIR="$d" >"$tmp/log" 2>&1 || { cat "$tmp/log"; fail "make uninstall"; }
left=$(find "$d" \( -type f -o -type l \) | sed "s|^$d||")
[ -z "$left" ] || fail "left after make uninstall: $left"
echo "PASS: make uninstall removed all $(wc -l <"$tmp/installed") installed files"
