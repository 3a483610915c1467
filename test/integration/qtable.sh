#!/bin/sh
# The queries tools and programs ask (it_qtable.c): every rank checks the
# process table (every rank with its host, pid, program, state), the local
# one (its node's ranks), the job's status, the namespaces' info, spawn
# support, the groups (one has members on other nodes only), every node's
# URI; then a tool attached to node 0's server checks them while the job
# runs and once every rank finalized (TERMINATED, PMIX_EVENT_JOB_END); in a
# second job (--keep-going) once its last rank died without finalizing
# (TERM_WO_SYNC, PMIX_ERR_JOB_TERM_WO_SYNC); on 1 and 3 simulated nodes.
. "$(dirname "$0")/common.sh"
prog=$(spx_prog it_qtable) || exit 1

# start_job DIR OPTS [die]: the job in the background ($job), ready ($uri, $ns)
start_job() {
    d=$1
    opts=$2
    shift 2
    mkdir -p "$d/rdv" || spx_fail "mkdir"
    SPX_OUT="$d/out"
    SPX_ERR="$d/err"
    # shellcheck disable=SC2086
    TMPDIR="$d/rdv" timeout -k 5 "$SPX_TIMEOUT" "$SPX_RUN" -n "$n" --nodes "$SPX_NODES" $opts \
        --timeout $((SPX_TIMEOUT - 10)) "$prog" job "$d" "$@" >"$SPX_OUT" 2>"$SPX_ERR" &
    job=$!
    i=0
    while [ ! -f "$d/ready" ]; do
        i=$((i + 1))
        if [ $i -ge 1000 ] || ! kill -0 "$job" 2>/dev/null; then
            kill "$job" 2>/dev/null
            spx_fail "the job of $d did not get ready ($SPX_NODES nodes)"
        fi
        sleep 0.05
    done
    # the job's own file (node 0's server, under spmix-run's pid): each
    # node's server also has one, naming the launcher (spx_rdv_job skips those)
    set -- $(spx_rdv_job "$d/rdv")
    [ $# -eq 1 ] && [ -f "$1" ] || { touch "$d/exit"; spx_fail "not one job rendezvous file in $d/rdv: $*"; }
    uri=$(head -1 "$1")
    ns=$(cat "$d/ready")
}

# tool DIR PHASE: the tool's checks must pass
tool() {
    out=$(timeout 60 "$prog" tool "$uri" "$ns" "$1" "$2" 2>&1)
    rc=$?
    if [ $rc -ne 0 ] || ! echo "$out" | grep -q "^tool $2 ok"; then
        touch "$1/exit" "$1/finalize" "$1/die"
        spx_fail "tool ($2, $SPX_NODES nodes): rc $rc: $out"
    fi
}

# finalized DIR COUNT: wait until ranks 0..COUNT-1 finalized
finalized() {
    touch "$1/finalize"
    i=0
    r=0
    while [ $r -lt "$2" ]; do
        if [ -f "$1/fin.$r" ]; then
            r=$((r + 1))
            continue
        fi
        i=$((i + 1))
        [ $i -lt 1000 ] || { touch "$1/exit"; spx_fail "rank $r did not finalize"; }
        sleep 0.05
    done
}

for SPX_NODES in 1 3; do
    n=$(spx_nodes_ranks $SPX_NODES)
    a="$SPX_TMP/a$SPX_NODES"
    start_job "$a" ""
    tool "$a" run
    finalized "$a" "$n"
    tool "$a" end
    touch "$a/exit"
    wait "$job" || spx_fail "the job ended with $? ($SPX_NODES nodes)"
    echo "ok: clients and a tool on $SPX_NODES node(s): tables, status, info, groups, URIs"

    b="$SPX_TMP/b$SPX_NODES"
    start_job "$b" --keep-going die
    touch "$b/die"
    tool "$b" die
    finalized "$b" $((n - 1))
    touch "$b/exit"
    wait "$job"
    echo "ok: a rank gone without PMIx_Finalize on $SPX_NODES node(s): TERM_WO_SYNC"
done
spx_pass "queries: process tables, job status, namespace info, spawn support, groups, URIs (clients and a tool, 1 and 3 nodes)"
