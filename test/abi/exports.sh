#!/bin/sh
# exports.sh - the dynamic symbols of our libpmix.so.2 against the checked-in
# lists: pmix_v4.exports (the 141 PMIx_* functions OpenPMIx 4.2.2's
# libpmix.so.2 exports) and pmix_v5.exports (the 285 of OpenPMIx 5.0.7: the
# PMIX_EXPORT functions of its public headers, less PMIx_Fabric_construct,
# which 5.0.7 declares but does not define) and pmix_later.exports (the 15
# functions of later releases that Debian forky's python3-pmix, built on
# OpenPMIx 7, imports besides those).  Every listed name must be
# exported as a function, pmix_framework_names as data, and nothing else may
# leave the library but PMIx_* names.
lib="${SPX_LIBDIR:?SPX_LIBDIR is not set}/libpmix.so.2"
dir="${SPX_TOP_SRCDIR:-$(dirname "$0")/../..}/test/abi"
[ -e "$lib" ] || { echo "FAIL: no $lib"; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
nm -D --defined-only "$lib" > "$tmp/nm" || { echo "FAIL: nm -D $lib"; exit 1; }
awk '$2 == "T" { print $3 }' "$tmp/nm" | sort -u > "$tmp/functions"
fail=0
for list in pmix_v4 pmix_v5 pmix_later; do
    sort -u "$dir/$list.exports" > "$tmp/want"
    n=$(wc -l < "$tmp/want")
    missing=$(comm -23 "$tmp/want" "$tmp/functions")
    if [ -n "$missing" ]; then
        echo "FAIL: $list: $(echo "$missing" | wc -l) of $n functions not exported:"
        echo "$missing"
        fail=1
    else
        echo "ok: all $n functions of $list.exports exported"
    fi
done
awk '$3 == "pmix_framework_names" && ($2 == "D" || $2 == "B" || $2 == "R") { f = 1 } END { exit !f }' \
    "$tmp/nm" || { echo "FAIL: the data symbol pmix_framework_names is not exported"; fail=1; }
other=$(awk '{ print $3 }' "$tmp/nm" | grep -v '^PMIx_' | grep -vx 'pmix_framework_names')
[ -z "$other" ] || { echo "FAIL: exported besides PMIx_* and pmix_framework_names:"; echo "$other"; fail=1; }
echo "libpmix.so.2 exports $(wc -l < "$tmp/functions") PMIx_* functions"
exit $fail
