#!/bin/sh
# bench_group.sh: make check smoke run of bench_group (test/bench/bench_group.c)
# on 2 ranks, one node and two simulated nodes, with a few iterations, so that
# the benchmark keeps building and running: it must exit 0 and print every
# measurement with a positive value. The figures themselves are not checked.
set -u
top=${SPX_TOP_BUILDDIR:?run through make check, or export SPX_TOP_BUILDDIR}
run="$top/tools/spmix-run"
bench="$top/test/bench/bench_group"
for f in "$run" "$bench"; do
    [ -x "$f" ] || { echo "FAIL: $f is not built" >&2; exit 1; }
done
out=$(mktemp) || exit 1
trap 'rm -f "$out"' EXIT
for nodes in 1 2; do
    if ! timeout -k 5 60 "$run" -n 2 --nodes "$nodes" --timeout 50 "$bench" 3 32 >"$out"; then
        echo "FAIL: bench_group on 2 ranks, $nodes node(s) exited non-zero" >&2
        cat "$out" >&2
        exit 1
    fi
    for m in construct_median destruct_median fence_median construct_fence_ratio \
             invite_1_median; do
        awk -v m="$m" '$1 == m && $2 + 0 > 0 { ok = 1 } END { exit !ok }' "$out" || {
            echo "FAIL: bench_group on $nodes node(s): no positive '$m' line" >&2
            cat "$out" >&2
            exit 1
        }
    done
    grep -q '^# bench_group: ranks 2 ' "$out" || { echo "FAIL: no header line" >&2; exit 1; }
    echo "ok: bench_group on 2 ranks, $nodes node(s)"
done
echo "PASS: bench_group smoke run"
