#!/bin/sh
# test/dist/rpm_build.sh - CI stage: `rpmbuild -ta` of the release tarball
# builds the spmix, spmix-slurm and spmix-devel RPMs, and their file lists
# (`rpm -qlp`) are exactly what `make install DESTDIR=` of the same build
# installs (less the libtool archives the spec deletes), each file in the
# package it belongs to:
#   spmix        bin/, the library's runtime files in LIBDIR/spmix, man 1 and 7
#   spmix-slurm  the plugins (*.so) in the Slurm plugin directory, man 8
#   spmix-devel  include/spmix/, libpmix.so, spmix.pc, man 3
# On Debian, rpmbuild runs with --nodeps (the BuildRequires are RPM names)
# and a private _topdir; the spec finds Debian's Slurm plugin directory
# (/usr/lib/x86_64-linux-gnu/slurm-wlm) through configure.
#
# usage: rpm_build.sh BUILD_DIR|TARBALL [RPMBUILD_ARGS...]
#   BUILD_DIR: a configured build tree, whose `make dist` gives the tarball.
#   SPX_RPM_CHECK=1 also runs the spec's %check (the unit tests, which CI has
#   already run in the tree); default: --without check.
# Installs the rpm package when rpmbuild is missing. Exit 0 passed, 1 failed.
set -u
src=${1:?usage: rpm_build.sh BUILD_DIR|TARBALL [RPMBUILD_ARGS...]}
shift
fail() { echo "FAIL: $*"; exit 1; }
if ! command -v rpmbuild >/dev/null 2>&1; then
    echo "rpm_build: installing rpm"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq rpm >/dev/null || fail "apt-get install rpm"
fi
if [ -d "$src" ]; then
    make -s -C "$src" dist >/dev/null || fail "make dist in $src"
    tarball=$(ls -t "$src"/spmix-*.tar.gz | head -n 1)
else
    tarball=$src
fi
[ -f "$tarball" ] || fail "no tarball $tarball"
tarball=$(cd "$(dirname "$tarball")" && pwd)/$(basename "$tarball")
tar -tzf "$tarball" | grep -q '^spmix-[^/]*/spmix\.spec$' || fail "the tarball has no spmix.spec"

top=$(mktemp -d "${TMPDIR:-/tmp}/spmix-rpm.XXXXXX") || exit 1
trap 'rm -rf "$top"' EXIT
check=--without=check
[ "${SPX_RPM_CHECK:-0}" = 1 ] && check=
t0=$(date +%s)
# shellcheck disable=SC2086
# --noclean keeps rpmbuild's build tree, whose make install is the reference
if ! rpmbuild -ta --noclean --nodeps --define "_topdir $top" --define 'debug_package %{nil}' \
        --define "_smp_build_ncpus ${SPX_RPM_JOBS:-2}" $check "$@" "$tarball" >"$top/log" 2>&1; then
    tail -n 60 "$top/log"
    fail "rpmbuild -ta"
fi
echo "rpmbuild -ta: $(($(date +%s) - t0)) s"
[ -z "$check" ] && grep -E '^# (TOTAL|PASS|FAIL|ERROR):' "$top/log" | sed 's/^/    %check (make check-unit) /'
ls "$top"/RPMS/*/*.rpm | sed "s|^$top/RPMS/||; s/^/    /"

# the reference: make install of rpmbuild's own configured build tree
bdir=$(ls -d "$top"/BUILD/spmix-*/ 2>/dev/null | head -n 1)
[ -n "$bdir" ] && [ -f "$bdir/Makefile" ] || fail "rpmbuild's build tree is gone"
ref=$top/ref
make -s -C "$bdir" install DESTDIR="$ref" >"$top/install.log" 2>&1 || { cat "$top/install.log"; fail "make install"; }
# (man pages compared without the compression rpmbuild may add)
unz() { sed -E 's,(/man/man[0-9]/[^/]+)\.(gz|bz2|xz|zst)$,\1,'; }
(cd "$ref" && find . \( -type f -o -type l \) ! -name '*.la' | sed 's|^\.||' | sort) >"$top/want"

# every file of each package (not a directory, the %doc directory's README and
# examples, or rpm's own artifacts such as the .build-id links), and where it belongs
pkgfiles() { # rpm file -> its files
    rpm -qp --qf '[%{FILEMODES:perms}|%{FILEFLAGS:fflags}|%{FILENAMES}\n]' "$1" |
        awk -F'|' '$1 !~ /^d/ && $2 !~ /a/ && $3 !~ "^/usr/share/doc/" {print $3}'
}
: >"$top/got"
nbad=0
for rpmf in "$top"/RPMS/*/*.rpm; do
    name=$(rpm -qp --qf '%{NAME}' "$rpmf")
    case $name in
        spmix) re='^/usr/bin/spmix-[a-z]+$|/spmix/libpmix\.so\.2(\.[0-9.]+)?$|/man/man[17]/[^/]+$' ;;
        spmix-slurm) re='/(slurm|slurm-wlm)/(mpi_spmix|mpi_pmix|spank_spmix)\.so$|/man/man8/[^/]+$' ;;
        spmix-devel) re='/include/spmix/[^/]+\.h$|/spmix/libpmix\.so$|/pkgconfig/spmix\.pc$|/man/man3/PMIx_[^/]+$' ;;
        *) echo "FAIL: unexpected package $name"; nbad=$((nbad + 1)); continue ;;
    esac
    pkgfiles "$rpmf" | unz >"$top/$name.files"
    n=$(wc -l <"$top/$name.files")
    [ "$n" -gt 0 ] || { echo "FAIL: $name has no files"; nbad=$((nbad + 1)); }
    wrong=$(grep -Ev "$re" "$top/$name.files")
    [ -z "$wrong" ] || { echo "FAIL: in $name, files of another package:"; echo "$wrong" | sed 's/^/    /'; nbad=$((nbad + 1)); }
    echo "$name: $n files"
    cat "$top/$name.files" >>"$top/got"
done
for p in spmix spmix-slurm spmix-devel; do
    [ -f "$top/$p.files" ] || { echo "FAIL: package $p was not built"; nbad=$((nbad + 1)); }
done
sort "$top/got" >"$top/got.s"
dup=$(uniq -d "$top/got.s")
[ -z "$dup" ] || { echo "FAIL: files in two packages: $dup"; nbad=$((nbad + 1)); }
if ! diff -u "$top/want" "$top/got.s" >"$top/diff"; then
    echo "FAIL: the RPMs' files differ from make install's (- make install only, + RPM only):"
    grep '^[-+]/' "$top/diff" | sed 's/^/    /'
    nbad=$((nbad + 1))
fi
grep -Eq '/(slurm|slurm-wlm)/mpi_(spmix|pmix)\.so$' "$top/got.s" || { echo "FAIL: no MPI plugin packaged"; nbad=$((nbad + 1)); }
[ "$nbad" = 0 ] || exit 1
echo "PASS: $(wc -l <"$top/want") installed files, each in the right RPM; plugins: $(grep -E '/(mpi|spank)_[a-z]+\.so$' "$top/got.s" | tr '\n' ' ')"
