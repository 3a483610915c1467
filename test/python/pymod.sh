#!/bin/sh
# Our pmix Python module (python/, --enable-python) under tools/spmix-run, on
# 1 node and on 2 simulated nodes: api.py (every method with its dict forms,
# the _nb forms, events, groups, a callback that raises, a callback that
# blocks, the GIL released in a blocking call) on 3 ranks; the spec's
# examples run verbatim by spec_run.py: PMIx_Fence's (a job named
# "testnspace"; each rank prints "fence completed: PMIX_SUCCESS" from its
# callback; every rank's key is at every server after it), PMIx_Group_join's
# two blocks (a job of 3; the handler's group_join_nb: "JOIN COMPLETE 0
# [...]" at ranks 1 and 2; each client the examples made finalized: no
# server warns of one lost before PMIx_Finalize), PMIx_IOF_push's
# (a tool pushes "some input text" into the stdin of every rank of
# "target-nspace"). Skipped (77) when the module was not built.
. "$SPX_TOP_SRCDIR/test/integration/common.sh"
MOD="$SPX_LIBDIR/pmix.so"
if [ ! -f "$MOD" ] || [ -z "$SPX_PYTHON" ]; then
    echo "SKIP: the pmix Python module was not built (configure --enable-python)"
    exit 77
fi
PY=$SPX_PYTHON
DIR="$SPX_TOP_SRCDIR/test/python"
. "$SPX_TOP_SRCDIR/test/python/pyenv.sh"
spx_py_expect_module "$PY" "$MOD"
run() { # run NODES RANKS ARGS...: the job, output in SPX_OUT / SPX_ERR
    nodes=$1 ranks=$2; shift 2
    timeout -k 5 "$SPX_TIMEOUT" "$SPX_RUN" -n "$ranks" --nodes "$nodes" \
        --timeout $((SPX_TIMEOUT - 10)) ${PRELOAD:+-x LD_PRELOAD="$PRELOAD"} "$@" \
        >"$SPX_OUT" 2>"$SPX_ERR"
    SPX_RC=$?
}
count() { grep -o "$1" "$SPX_OUT" | wc -l; }
for nodes in 1 2; do
    run $nodes 3 "$PY" "$DIR/api.py"
    spx_expect_rc 0
    [ "$(grep -c '^api.py: rank [0-9]: OK$' "$SPX_OUT")" = 3 ] || spx_fail "api.py: not every rank OK"
    # the raising callback is reported with its traceback, once per rank: each
    # traceback names spx-boom twice (the raise line, the message); the ranks'
    # tracebacks may interleave on the shared stderr, so count the words
    [ "$(grep -o 'spx-boom' "$SPX_ERR" | wc -l)" = 6 ] || spx_fail "raising callback not reported"
    echo "ok: api.py on $nodes node(s)"

    SPMIX_RUN_NSPACE=testnspace run $nodes 3 "$PY" "$DIR/spec_run.py" fence
    spx_expect_rc 0
    [ "$(count 'fence completed: PMIX_SUCCESS')" = 3 ] || spx_fail "PMIx_Fence example: donecb output"
    [ "$(count 'spec_run.py: fence rank [0-9]: OK')" = 3 ] || spx_fail "PMIx_Fence example"
    ! grep -q 'before PMIx_Finalize' "$SPX_ERR" || spx_fail "PMIx_Fence example: a client did not finalize"
    echo "ok: PMIx_Fence example on $nodes node(s)"

    SPMIX_RUN_NSPACE=testnspace run $nodes 3 "$PY" "$DIR/spec_run.py" group_join
    spx_expect_rc 0
    [ "$(count "JOIN COMPLETE 0 \[{'key': 'pmix.grp.id'")" = 2 ] || spx_fail "PMIx_Group_join example: mycb output"
    [ "$(count 'spec_run.py: group_join rank [0-9]: OK')" = 3 ] || spx_fail "PMIx_Group_join example"
    ! grep -q 'before PMIx_Finalize' "$SPX_ERR" || spx_fail "PMIx_Group_join example: a client did not finalize"
    echo "ok: PMIx_Group_join examples on $nodes node(s)"

    rdv="$SPX_TMP/rdv.$nodes"
    mkdir -p "$rdv" || spx_fail "mkdir"
    SPMIX_RUN_NSPACE=target-nspace TMPDIR="$rdv" run $nodes 3 --stdin tool "$PY" "$DIR/spec_run.py" iof_job &
    job=$!
    i=0
    until [ -n "$(spx_rdv_job "$rdv")" ]; do   # the job's (with nodes: the launcher's)
        i=$((i + 1))
        [ $i -lt 400 ] || { kill $job; spx_fail "no rendezvous file"; }
        sleep 0.05
    done
    TMPDIR="$rdv" timeout 40 env ${PRELOAD:+LD_PRELOAD="$PRELOAD"} "$PY" "$DIR/spec_run.py" iof_tool >"$SPX_TMP/tool.out" 2>&1 ||
        { kill $job; spx_fail "the IOF tool failed: $(cat "$SPX_TMP/tool.out")"; }
    wait $job || spx_fail "the IOF job failed: $(cat "$SPX_OUT" "$SPX_ERR")"
    grep -q '^spec_run.py: iof_tool rank 0: OK$' "$SPX_TMP/tool.out" || spx_fail "the IOF tool said $(cat "$SPX_TMP/tool.out")"
    [ "$(count "stdin 'some input text'")" = 3 ] || spx_fail "PMIx_IOF_push example: stdin of the ranks"
    echo "ok: PMIx_IOF_push example on $nodes node(s)"
done
spx_pass "pymod: our pmix Python module, its methods and the spec's examples"
