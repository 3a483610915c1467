#!/bin/sh
# spmix-run --nodes M: tagged output from every node, --stats, exit statuses,
# abort across nodes, --timeout, bad arguments, the launcher's death (the
# daemons end their ranks), 64 nodes, and no files left in TMPDIR.
. "$(dirname "$0")/common.sh"

job() {   # job ARGS...: run spmix-run directly
    timeout -k 5 60 "$SPX_RUN" "$@" >"$SPX_OUT" 2>"$SPX_ERR"
    SPX_RC=$?
}

mkdir "$SPX_TMP/t" || spx_fail "mkdir"
TMPDIR="$SPX_TMP/t" job --nodes 3 -n 6 --tag-output sh -c 'echo "hello from $PMIX_RANK"'
spx_expect_rc 0
for r in 0 1 2 3 4 5; do
    spx_expect_out "^\[$r\] hello from $r$"
done
[ "$(wc -l <"$SPX_OUT")" -eq 6 ] || spx_fail "expected 6 lines of output"
[ -z "$(ls -A "$SPX_TMP/t")" ] || spx_fail "spmix-run left files in TMPDIR: $(ls -A "$SPX_TMP/t")"

job --nodes 3 -n 6 --stats "$(spx_prog it_fence)"
spx_expect_rc 0
for k in 0 1 2; do
    spx_expect_err "^spmix-run: spmix stats node $k: colls [1-9][0-9]* msgs [1-9][0-9]* bytes [1-9][0-9]*$"
done
spx_expect_err "^spmix-run: stats total: nodes 3 colls [1-9]"
grep -q "node [0-9]* lost" "$SPX_ERR" && spx_fail "a normal end reported lost nodes"

job --nodes 3 -n 3 sh -c 'exit 5'
spx_expect_rc 5
job --nodes 4 -n 8 --map cyclic "$(spx_prog it_abort)" abort
spx_expect_rc 7
spx_expect_err "spmix-run: node 1: rank 1 called PMIx_Abort with status 7"

t0=$(spx_now)
job --nodes 3 -n 3 --timeout 1 sleep 30
SPX_ELAPSED=$(awk -v a="$t0" -v b="$(spx_now)" 'BEGIN { printf "%.2f", b - a }')
spx_expect_rc 124
spx_expect_err "timeout of 1 s reached"
spx_expect_faster 8

for bad in "--nodes 0 -n 1 true" "--nodes 3 -n 2 true" "--nodes 4097 -n 4096 true" \
           "--nodes 2 -n 2 --map diagonal true" "--nodes 2 -n 2 --width 1 true"; do
    # shellcheck disable=SC2086
    job $bad
    [ "$SPX_RC" -eq 2 ] || spx_fail "spmix-run $bad: exit status $SPX_RC, expected 2"
done

# the launcher dies: its daemons end their ranks and go
mark="$$.$(date +%N)"
"$SPX_RUN" --nodes 3 -n 3 sleep "1$mark" >/dev/null 2>&1 &
lpid=$!
i=0
while [ "$(pgrep -c -f "^sleep 1$mark")" -lt 3 ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
[ "$(pgrep -c -f "^sleep 1$mark")" -eq 3 ] || spx_fail "the 3 ranks did not start"
kill -9 "$lpid"
i=0
while pgrep -f "^sleep 1$mark" >/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
pgrep -f "^sleep 1$mark" >/dev/null && spx_fail "ranks survived their launcher by 10 s"

job --nodes 64 -n 64 --timeout 50 "$(spx_prog it_fence)"
spx_expect_rc 0
spx_expect_out "^it_fence: 64 ranks: OK$"
spx_pass "spmix-run --nodes"
