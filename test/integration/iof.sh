#!/bin/sh
# tools push into the ranks' stdin (spmix-run --stdin tool, PMIx_IOF_push), on
# 1 node and on 3 simulated nodes (one rank each; the tool talks to one server):
# to one rank, a list, WILDCARD, 1 MiB in one push, EOF by a zero-byte push
# and by PMIX_IOF_COMPLETE, bytes checked (sha256) at every rank; a 16 KiB
# cache with a rank that does not read yet: DROP_NEWEST / DROP_OLDEST lose
# counted bytes and keep order, no policy holds the pusher back and loses
# nothing; PMIX_IOF_BUFFERING_SIZE / _TIME deliver in blocks; pushes to a
# rank that closed its stdin or exited fail with PMIX_ERR_UNREACH (the
# launcher survives the broken pipe); a job without --stdin tool refuses
# pushes (PMIX_ERR_NOT_AVAILABLE)
. "$(dirname "$0")/common.sh"
prog=$(spx_prog it_iof) || exit 1
rdv="$SPX_TMP/rdv"
mkdir -p "$rdv" || spx_fail "mkdir"

# start_job DIR [spmix-run options] -- [job args]: the job in the background,
# its namespace in $ns once rank 0 is up
start_job() {
    d=$1; shift
    mkdir -p "$d" || spx_fail "mkdir $d"
    opts=
    while [ "$1" != -- ]; do opts="$opts $1"; shift; done
    shift
    # shellcheck disable=SC2086
    TMPDIR="$rdv" timeout -k 5 "$SPX_TIMEOUT" "$SPX_RUN" -n 3 --nodes "${SPX_NODES:-1}" \
        --timeout $((SPX_TIMEOUT - 10)) $opts "$prog" job "$d" "$@" \
        >"$SPX_OUT" 2>"$SPX_ERR" </dev/null &
    job=$!
    i=0
    while [ ! -f "$d/ready" ]; do
        i=$((i + 1))
        [ $i -lt 400 ] || { kill "$job"; spx_fail "the job did not start in 20 s"; }
        sleep 0.05
    done
    ns=$(cat "$d/ready")
    # several nodes too: one rendezvous file for the default search (node
    # 0's, named after spmix-run's pid; the nodes' own name the launcher);
    # pushes to the other nodes' ranks go through the servers' tree
    IT_IOF_URI=
    i=0
    while [ -z "$(spx_rdv_job "$rdv")" ]; do
        i=$((i + 1))
        [ $i -lt 400 ] || { kill "$job"; spx_fail "no rendezvous file"; }
        sleep 0.05
    done
    [ "$(spx_rdv_job "$rdv" | wc -l)" -eq 1 ] ||
        { kill "$job"; spx_fail "more than one job's rendezvous file: $(ls "$rdv")"; }
    export IT_IOF_URI
}

# run_tool TEST DIR: the tool must succeed
run_tool() {
    out=$(TMPDIR="$rdv" timeout 40 "$prog" tool "$1" "$2" "$ns" 2>&1)
    rc=$?
    [ $rc -eq 0 ] || { kill "$job" 2>/dev/null; wait "$job"; spx_fail "tool $1: rc $rc: $out"; }
    echo "$out"
}

end_job() {
    wait "$job"
    rc=$?
    [ $rc -eq 0 ] || spx_fail "the job ended with $rc"
}

sha() { sha256sum <"$1" | cut -d' ' -f1; }

for SPX_NODES in 1 3; do
    # 1. basic: one rank, a list, WILDCARD, 1 MiB, EOF both ways
    d="$SPX_TMP/$SPX_NODES.basic"
    start_job "$d" --stdin tool --
    run_tool basic "$d" >/dev/null
    end_job
    for r in 0 1 2; do
        [ -f "$d/done.$r" ] || spx_fail "rank $r did not see EOF"
        [ "$(sha "$d/got.$r")" = "$(sha "$d/expect.$r")" ] ||
            spx_fail "rank $r got $(wc -c <"$d/got.$r") bytes, not the $(wc -c <"$d/expect.$r") pushed"
    done
    [ "$(wc -c <"$d/got.0")" -gt 1048576 ] || spx_fail "rank 0 got too little: $(wc -c <"$d/got.0")"

    # 2. slow readers: drop policies and back-pressure
    d="$SPX_TMP/$SPX_NODES.slow"
    start_job "$d" --stdin tool -- gated
    out=$(run_tool slow "$d")
    end_job
    echo "$out" | grep "back-pressure"
    for r in 0 1 2; do
        [ -f "$d/done.$r" ] || spx_fail "rank $r did not see EOF"
    done
    [ "$(sha "$d/got.2")" = "$(sha "$d/expect.2")" ] ||
        spx_fail "back-pressure: rank 2 got $(wc -c <"$d/got.2") bytes of $(wc -c <"$d/expect.2")"
    for r in 0 1; do
        dropped=$(sed -n "s/.*rank $r: stdin ended.* \([0-9][0-9]*\) bytes pushed by tools were dropped.*/\1/p" "$SPX_ERR")
        [ -n "$dropped" ] || spx_fail "no count of dropped bytes for rank $r"
        [ $r -eq 0 ] && pol=newest || pol=oldest
        "$prog" check "$d/got.$r" "$d/sent.$r" "$dropped" $pol || spx_fail "rank $r ($pol)"
    done

    # 3. PMIX_IOF_BUFFERING_SIZE: whole blocks; PMIX_IOF_BUFFERING_TIME: the rest
    # after that time
    d="$SPX_TMP/$SPX_NODES.blocks"
    start_job "$d" --stdin tool --
    run_tool blocks "$d" >/dev/null
    end_job
    [ "$(sha "$d/got.0")" = "$(sha "$d/expect.0")" ] || spx_fail "blocks: rank 0 got other bytes"
    awk -v pushed="$(cat "$d/pushed")" '
        { n++; size[n] = $1; at[n] = $2 }
        END {
            if (n < 2) { print "blocks: " n " reads"; exit 1 }
            for (i = 1; i < n; i++)
                if (size[i] % 1000 != 0) { print "blocks: read " i " of " size[i] " bytes"; exit 1 }
            if (size[n] != 50) { print "blocks: last read of " size[n] " bytes"; exit 1 }
            if (at[n] - pushed < 0.9) { print "blocks: the last 50 bytes came after " at[n] - pushed " s"; exit 1 }
            printf "blocks: %d reads of whole blocks, the rest %.2f s after its push\n", n - 1, at[n] - pushed
        }' "$d/reads.0" || spx_fail "PMIX_IOF_BUFFERING_SIZE/TIME"

    # 4. a rank that closed its stdin, a rank that exits with pushes held for it
    d="$SPX_TMP/$SPX_NODES.closed"
    start_job "$d" --stdin tool -- closed
    out=$(run_tool closed "$d")
    end_job
    echo "$out" | grep "^closed"

    # 5. a job without --stdin tool refuses pushes, and says why
    d="$SPX_TMP/$SPX_NODES.plain"
    start_job "$d" -- gated
    out=$(run_tool refused "$d")
    end_job
    echo "$out" | grep -q "NOT-AVAILABLE\|NOT_AVAILABLE\|not available" || spx_fail "refused: $out"
    grep -q "not started with --stdin tool" "$SPX_ERR" || spx_fail "no log line for the refused push"
    echo "ok: on $SPX_NODES node(s)"
done

spx_pass "pushes reach one rank, a list and WILDCARD byte-exact; EOF by zero bytes and COMPLETE; drop policies count and keep order; back-pressure loses nothing; buffering in blocks and by time; UNREACH once a stdin ended; refused without --stdin tool"
