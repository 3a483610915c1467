#!/bin/sh
# Runs one integration job under valgrind (memcheck): spmix-run itself and each
# of its 2 client processes. Any memory error or definite/indirect leak fails.
# Usage: test/valgrind.sh BUILD_DIR   (a configured and built tree with make check done)
set -eu
build=$(cd "$1" && pwd)
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$build"
vg="valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect \
--show-leak-kinds=definite,indirect --error-exitcode=97 --suppressions=$top/test/valgrind.supp"
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT
# shellcheck disable=SC2086
rc=0
SPMIX_DEBUG=1 timeout 300 ./libtool --mode=execute $vg --log-file="$log/run.%p" \
    tools/spmix-run -n 2 --timeout 240 -- \
    ./libtool --mode=execute $vg --log-file="$log/client.%p" test/integration/it_putget || rc=$?
errors=$(cat "$log"/* 2>/dev/null | grep -c -E "ERROR SUMMARY: [1-9]|definitely lost: [1-9]|indirectly lost: [1-9]|Invalid|uninitialised" || true)
if [ "$rc" -ne 0 ] || [ "$errors" -ne 0 ]; then
    echo "valgrind: FAILED (exit $rc)"
    cat "$log"/*
    exit 1
fi
echo "valgrind: spmix-run and 2 clients (it_putget) ran clean: no memory error, no leak"
