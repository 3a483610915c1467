#!/bin/sh
# ldd_resolve.sh - do programs and libraries built against another PMIx
# implementation load on our libpmix.so.2 with every PMIx symbol resolved?
#
#   ldd_resolve.sh LIBDIR FILE...
#
# For each FILE (a shared library or a Python extension module linked to
# libpmix.so.2), with LD_LIBRARY_PATH=LIBDIR:
#   - `ldd` must map libpmix.so.2 to LIBDIR/libpmix.so.2 (ours, not the
#     system's), and
#   - `ldd -r` (every relocation processed, functions and data) must report
#     no undefined symbol whose name starts with PMIx_ or pmix_.
# Other undefined symbols are not ours to judge: a Python extension module
# leaves every Py* symbol to the interpreter; they are counted, not failed.
# A FILE that does not exist fails (the caller names what the release ships).
# Prints one PASS/FAIL line per FILE; exit 1 if any failed.
set -u
[ $# -ge 2 ] || { echo "usage: $0 LIBDIR FILE..." >&2; exit 2; }
libdir=$(cd "$1" && pwd) || exit 2
shift
[ -e "$libdir/libpmix.so.2" ] || { echo "FAIL: no $libdir/libpmix.so.2"; exit 1; }
ours=$(readlink -f "$libdir/libpmix.so.2")
fail=0
for f in "$@"; do
    if [ ! -e "$f" ]; then
        echo "FAIL: ldd -r: $f does not exist"; fail=1; continue
    fi
    out=$(LD_LIBRARY_PATH=$libdir ldd -r "$f" 2>&1)
    target=$(echo "$out" | awk '$1 == "libpmix.so.2" && $2 == "=>" { print $3; exit }')
    if [ -z "$target" ]; then
        echo "FAIL: ldd -r: $f is not linked to libpmix.so.2"; fail=1; continue
    fi
    if [ "$(readlink -f "$target")" != "$ours" ]; then
        echo "FAIL: ldd -r: $f loads libpmix.so.2 from $target, not $libdir"; fail=1; continue
    fi
    pmix_undef=$(echo "$out" | grep 'undefined symbol' | grep -E 'symbol: (PMIx_|pmix_)' |
                 sed 's/^[[:space:]]*undefined symbol: \([^[:space:]]*\).*/\1/' | sort -u)
    other=$(echo "$out" | grep 'undefined symbol' | grep -cvE 'symbol: (PMIx_|pmix_)')
    imported=$(nm -D --undefined-only "$f" 2>/dev/null | awk '{ print $2 }' | grep -cE '^(PMIx_|pmix_)')
    if [ -n "$pmix_undef" ]; then
        echo "FAIL: ldd -r: $f: $(echo "$pmix_undef" | wc -l) PMIx symbol(s) unresolved against ours:" \
             $pmix_undef
        fail=1
    else
        echo "PASS: ldd -r: $(basename "$f"): all $imported PMIx symbols it imports resolve against ours" \
             "($other other undefined symbol(s) left to the program)"
    fi
done
exit $fail
