#!/bin/sh
# The end of a tool's connection is no warning: spmix-push pushing into a job
# and ending it (--eof) leaves no "warning"/"reset" line on the tool's or the
# server's stderr, however the server's end and the tool's last request cross;
# a tool whose request is still unread in its server's socket when the
# server goes (it was stopped, then killed: the kernel resets the
# connection) sees its request fail and finalizes without a warning.
. "$(dirname "$0")/common.sh"
prog=$(spx_prog it_tool) || exit 1
push="$SPX_TOP_BUILDDIR/tools/spmix-push"
[ -x "$push" ] || spx_fail "not built: $push"
rdv="$SPX_TMP/rdv"
mkdir -p "$rdv" || spx_fail "mkdir"
unset SPMIX_DEBUG

# no_noise FILE WHAT: FILE has no warning of a closed connection
no_noise() {
    ! grep -Ei "warning|reset by peer" "$1" ||
        spx_fail "$2 printed a warning: $(grep -Ei 'warning|reset by peer' "$1" | head -3)"
}

# 1. spmix-push into a job and ending it: 1 node, then 2 simulated nodes
for nodes in 1 1 1 2 2; do
    TMPDIR="$rdv" timeout -k 5 "$SPX_TIMEOUT" "$SPX_RUN" -n 2 --nodes $nodes --stdin tool \
        sh -c 'cat >/dev/null' >"$SPX_OUT" 2>"$SPX_ERR" &
    job=$!
    i=0
    while [ -z "$(spx_rdv_job "$rdv")" ]; do
        i=$((i + 1))
        [ $i -lt 400 ] || { kill "$job"; spx_fail "the job did not start in 20 s"; }
        sleep 0.05
    done
    echo data | TMPDIR="$rdv" timeout 20 "$push" --ranks all 2>"$SPX_TMP/push1.err" ||
        { kill "$job"; spx_fail "spmix-push failed: $(cat "$SPX_TMP/push1.err")"; }
    echo more | TMPDIR="$rdv" timeout 20 "$push" --ranks all --eof 2>"$SPX_TMP/push2.err" ||
        { kill "$job"; spx_fail "spmix-push --eof failed: $(cat "$SPX_TMP/push2.err")"; }
    wait "$job"
    SPX_RC=$?
    spx_expect_rc 0
    no_noise "$SPX_TMP/push1.err" "spmix-push ($nodes node(s))"
    no_noise "$SPX_TMP/push2.err" "spmix-push --eof ($nodes node(s))"
    no_noise "$SPX_ERR" "spmix-run ($nodes node(s)), its server"
done

# 2. the server goes with the tool's request unread in its socket
d="$SPX_TMP/hold"
mkdir -p "$d" || spx_fail "mkdir"
# (the rank also ends once the test's directory is gone: never a stray)
TMPDIR="$rdv" "$SPX_RUN" -n 1 sh -c 'while [ -d "$0" ] && [ ! -e "$0/done" ]; do sleep 0.05; done' "$d" \
    >"$SPX_OUT" 2>"$SPX_ERR" &
job=$!
i=0
while [ -z "$(spx_rdv_job "$rdv")" ]; do
    i=$((i + 1))
    [ $i -lt 400 ] || { : >"$d/done"; kill "$job"; spx_fail "the job did not start in 20 s"; }
    sleep 0.05
done
uri=$(head -1 "$(spx_rdv_job "$rdv")")
timeout 60 "$prog" hold "$uri" "$d" >"$SPX_TMP/hold.out" 2>"$SPX_TMP/hold.err" &
tool=$!
i=0
while [ ! -f "$d/attached" ]; do
    i=$((i + 1))
    [ $i -lt 400 ] || { : >"$d/done"; kill "$job" "$tool"; spx_fail "the tool did not attach in 20 s"; }
    sleep 0.05
done
kill -STOP "$job"
: >"$d/go"
i=0
while [ ! -f "$d/sent" ]; do
    i=$((i + 1))
    [ $i -lt 400 ] || { : >"$d/done"; kill -9 "$job"; kill "$tool"; spx_fail "the tool sent nothing in 20 s"; }
    sleep 0.05
done
kill -9 "$job"   # its socket goes with the tool's request unread
wait "$job" 2>/dev/null
: >"$d/done"     # its rank ends too
wait "$tool"
rc=$?
[ $rc -eq 0 ] || spx_fail "the tool: rc $rc: $(cat "$SPX_TMP/hold.out" "$SPX_TMP/hold.err")"
grep -qx "query PMIX_ERR_UNREACH" "$SPX_TMP/hold.out" ||
    spx_fail "the query to the killed server: $(cat "$SPX_TMP/hold.out")"
no_noise "$SPX_TMP/hold.err" "a tool whose server went with its request unread"
spx_pass "a tool's connection ends without warnings (spmix-push ending a job on 1 and 2 nodes; a server gone with the tool's request unread)"
