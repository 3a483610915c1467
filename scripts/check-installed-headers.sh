#!/bin/sh
# check-installed-headers.sh - builds test/integration/it_helpers.c, which uses
# every PMIx v4 inline helper of pmix_common.h (pmix_argv_*, pmix_setenv,
# pmix_strncpy, pmix_check_true, pmix_app_free, ...) and the macros built on
# them, against the INSTALLED headers and library as a user would find them
# (pkg-config --cflags --libs spmix), and runs each build:
#   1. the compiler's default C dialect, -Wall -Wextra -Werror;
#   2. strict ISO C99: -std=c99 -pedantic -Wall -Wextra -Werror;
#   3. as C++ (-pedantic -Wall -Wextra -Werror), when a C++ compiler exists.
# Usage: sh scripts/check-installed-headers.sh PREFIX   (the `make install` prefix)
# CC and CXX choose the compilers (default cc, c++).  Exit status 0 = all
# builds compiled without a warning and passed every check.
set -eu
prefix=${1:?usage: check-installed-headers.sh PREFIX}
top=$(cd "$(dirname "$0")/.." && pwd)
src=$top/test/integration/it_helpers.c
pcdir=$prefix/lib/pkgconfig
[ -f "$pcdir/spmix.pc" ] || { echo "no $pcdir/spmix.pc: run make install first"; exit 1; }
cflags=$(PKG_CONFIG_PATH=$pcdir pkg-config --cflags spmix)
libs=$(PKG_CONFIG_PATH=$pcdir pkg-config --libs spmix)
case "$cflags" in
*"$prefix"*) ;;
*) echo "pkg-config --cflags spmix gives '$cflags', not the headers under $prefix"; exit 1 ;;
esac
[ -f "$prefix/include/spmix/pmix_common.h" ] || { echo "no installed pmix_common.h under $prefix"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# build NAME COMPILER FLAGS...: compile $src with the installed flags, run it
build() {
    name=$1
    shift
    # shellcheck disable=SC2086 # the pkg-config output is a word list
    if ! "$@" -Wall -Wextra -Werror $cflags "$src" $libs -o "$tmp/$name" 2>"$tmp/$name.err"; then
        echo "FAIL: $name: does not compile against $prefix/include/spmix:"
        cat "$tmp/$name.err"
        exit 1
    fi
    if ! "$tmp/$name" >"$tmp/$name.out" 2>&1; then
        echo "FAIL: $name:"
        cat "$tmp/$name.out"
        exit 1
    fi
    # the installed spmix.h must have been found (it enables the spmix checks)
    grep -q 'headers: spmix' "$tmp/$name.out" || { echo "FAIL: $name: spmix.h not found"; exit 1; }
    echo "ok: $name: $(tail -n 1 "$tmp/$name.out")"
}

cc=${CC:-cc}
build c-default "$cc"
build c99-pedantic "$cc" -std=c99 -pedantic
cxx=${CXX:-c++}
if command -v "$cxx" >/dev/null 2>&1; then
    build cxx-pedantic "$cxx" -x c++ -pedantic
else
    echo "skip: C++ ($cxx not found)"
fi
