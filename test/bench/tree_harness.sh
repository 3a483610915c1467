#!/bin/sh
# tree_harness.sh: make check run of the tree harness (test/bench/tree_harness.c)
# at 1024 simulated nodes - completion and correctness, never timing:
#   1. width 16, depth-first delivery, every node started first: barrier,
#      fence, two group collectives, 2 rounds, then the lost-node case;
#   2. width 4, oldest-first delivery, messages delivered between starts (so
#      they reach nodes that have not started: the harness must report some);
#   3. the harness's own checks must catch a damaged network: a corrupted
#      byte in a fence's result, and a lost UP (a barrier that never ends).
# The harness exits 1 on any failed check (FAIL lines); each run here must
# also print what proves it ran: its PASS lines and a result line per kind.
set -u
top=${SPX_TOP_BUILDDIR:?run through make check, or export SPX_TOP_BUILDDIR}
h="$top/test/bench/tree_harness"
[ -x "$h" ] || { echo "FAIL: $h is not built" >&2; exit 1; }
out=$(mktemp) || exit 1
trap 'rm -f "$out"' EXIT

fail() {
    echo "FAIL: $*" >&2
    cat "$out" >&2
    exit 1
}

# must_pass NAME ARGS...: exit 0, both PASS lines, a result line per kind
must_pass() {
    name=$1
    shift
    timeout -k 5 300 "$h" "$@" >"$out" 2>&1 || fail "$name: tree_harness $* exited non-zero"
    grep -q '^PASS: .* rounds of every collective asked for: complete and correct' "$out" ||
        fail "$name: no completion PASS line"
    grep -q '^PASS: node 1 lost mid-fence: 1023 survivors ended with PMIX_ERR_UNREACH' "$out" ||
        fail "$name: no lost-node PASS line"
    for k in barrier fence group_even group_1pct; do
        grep -q "^result n=1024 .* kind=$k m=[1-9]" "$out" || fail "$name: no result line for $k"
    done
    echo "ok: $name"
}

must_pass "1024 nodes, width 16" -n 1024 -w 16 -r 2
must_pass "1024 nodes, width 4, fifo, interleaved starts" -n 1024 -w 4 -o fifo -i 3 -r 2 -b 16
awk '$1 == "result" { for (i = 2; i <= NF; i++) if ($i ~ /^early_msgs=/) { split($i, a, "=");
        if (a[2] + 0 > 0) ok = 1 } } END { exit !ok }' "$out" ||
    fail "interleaved starts: no message reached a node before its start"
echo "ok: messages reached nodes before their start and were kept"

# must_fail NAME PATTERN ARGS...: exit 1 with a FAIL line matching PATTERN
must_fail() {
    name=$1
    pat=$2
    shift 2
    timeout -k 5 300 "$h" "$@" >"$out" 2>&1
    rc=$?
    [ "$rc" -eq 1 ] || fail "$name: tree_harness $* exited $rc, want 1"
    grep -q "^FAIL: $pat" "$out" || fail "$name: no 'FAIL: $pat' line"
    echo "ok: $name is caught"
}

must_fail "a corrupted fence result" "fence: [0-9]* participants got wrong data" \
    -n 1024 -r 1 -F -S corrupt
must_fail "a lost UP" "barrier: [0-9]* participants did not end once" -n 1024 -r 1 -F -S drop
echo "PASS: tree harness at 1024 nodes"
