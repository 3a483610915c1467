#!/bin/sh
# spmix-run itself: tagged output, exit status, -x, --timeout, bad arguments,
# a missing program, and removal of its temporary directory.
. "$(dirname "$0")/common.sh"

job() {   # job ARGS...: run spmix-run directly
    timeout -k 5 30 "$SPX_RUN" "$@" >"$SPX_OUT" 2>"$SPX_ERR"
    SPX_RC=$?
}

mkdir "$SPX_TMP/t" || spx_fail "mkdir"
TMPDIR="$SPX_TMP/t" job -n 3 --tag-output sh -c 'echo "hello from $PMIX_RANK"; echo "err $PMIX_RANK" >&2'
spx_expect_rc 0
for r in 0 1 2; do
    spx_expect_out "^\[$r\] hello from $r$"
    spx_expect_err "^\[$r\] err $r$"
done
[ "$(wc -l <"$SPX_OUT")" -eq 3 ] || spx_fail "expected 3 lines of output"
[ -z "$(ls -A "$SPX_TMP/t")" ] || spx_fail "spmix-run left files in TMPDIR: $(ls -A "$SPX_TMP/t")"

job -n 2 sh -c 'exit 5'
spx_expect_rc 5
job -n 2 sh -c '[ "$PMIX_RANK" = 1 ] && kill -9 $$; exit 0'
spx_expect_rc 137
job -n 2 -x SPX_IT_FOO=bar sh -c 'test "$SPX_IT_FOO" = bar'
spx_expect_rc 0

t0=$(spx_now)
job -n 2 --timeout 1 sleep 30
SPX_ELAPSED=$(awk -v a="$t0" -v b="$(spx_now)" 'BEGIN { printf "%.2f", b - a }')
spx_expect_rc 124
spx_expect_err "timeout"
spx_expect_faster 8

job
spx_expect_rc 2
job -n 0 true
spx_expect_rc 2
job -n 1 "$SPX_TMP/no-such-program"
spx_expect_rc 127
spx_expect_err "cannot execute"
spx_pass "spmix-run basics"
