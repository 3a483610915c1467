#!/bin/sh
# abi_cross.sh - compare the ABI facts of our public headers with OpenPMIx's.
# abi_dump.c is built twice (test/unit/abi_dump_spmix against include/,
# test/unit/abi_dump_openpmix against $OPENPMIX_INCLUDE); both print struct
# sizes and offsets and the values of every constant and key OpenPMIx 4.2
# defines.  Any difference fails.  Skipped (77) without OpenPMIx headers.
dir="${SPX_TOP_BUILDDIR:-.}/test/unit"
ours="$dir/abi_dump_spmix"
theirs="$dir/abi_dump_openpmix"
if [ ! -x "$theirs" ]; then
    echo "SKIP: no OpenPMIx headers at configure time (--with-openpmix-include)"
    exit 77
fi
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
"$ours" > "$tmp/ours" || { echo "FAIL: $ours did not run"; exit 1; }
"$theirs" > "$tmp/theirs" || { echo "FAIL: $theirs did not run"; exit 1; }
lines=$(wc -l < "$tmp/theirs")
if [ "$lines" -lt 1000 ]; then
    echo "FAIL: only $lines lines from $theirs"
    exit 1
fi
if ! diff -u "$tmp/theirs" "$tmp/ours"; then
    echo "FAIL: ABI differs from OpenPMIx (- OpenPMIx, + spmix)"
    exit 1
fi
echo "PASS: $lines ABI facts identical"
exit 0
