#!/bin/sh
# ABI: the same probe built against OpenPMIx's headers and against ours, both
# running on our library, must print exactly the same layouts and results.
. "$(dirname "$0")/common.sh"

if [ ! -x "$SPX_IT_DIR/it_abi_openpmix" ]; then
    echo "SKIP: OpenPMIx headers were not found at configure time"
    exit 77
fi
[ -n "${SPX_LIBDIR:-}" ] || spx_fail "SPX_LIBDIR is not set (the directory holding our libpmix.so.2)"
bin="$SPX_IT_DIR/it_abi_openpmix"
[ -x "$SPX_IT_DIR/.libs/it_abi_openpmix" ] && bin="$SPX_IT_DIR/.libs/it_abi_openpmix"   # libtool wrapper
lib=$(LD_LIBRARY_PATH="$SPX_LIBDIR" ldd "$bin" | awk '/libpmix\.so/ { print $3 }')
case "$lib" in
"$SPX_LIBDIR"/*) ;;
*) spx_fail "it_abi_openpmix would load '$lib', not our library from $SPX_LIBDIR" ;;
esac
LD_LIBRARY_PATH="$SPX_LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export LD_LIBRARY_PATH

spx_run 3 it_abi
spx_expect_rc 0
spx_expect_out "^rank 2 abi.bo: type 27 size 7 'abi-str'$"
cp "$SPX_OUT" "$SPX_TMP/ours"
spx_run 3 it_abi_openpmix
spx_expect_rc 0
diff -u "$SPX_TMP/ours" "$SPX_OUT" >"$SPX_TMP/diff" ||
    { cat "$SPX_TMP/diff" >&2; spx_fail "OpenPMIx-header build prints something else"; }
spx_pass "a client built with OpenPMIx's headers sees the same ABI and data"
