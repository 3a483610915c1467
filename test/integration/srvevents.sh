#!/bin/sh
# a server process's own event handlers (it_srvhook.so preloaded into
# spmix-run's servers, it_evsrv as ranks), on 1 and on 3 simulated nodes:
# every server's handlers hear rank 0's two NAMESPACE events (from its own
# node or relayed from another) and node 0's server's GLOBAL event exactly
# once each; node 0's server hears its own PROC_LOCAL event, no other does;
# every server gets the PROC_LOCAL event it raised before registering (kept
# for handlers registered later) once. Nothing else, nothing twice.
. "$(dirname "$0")/common.sh"
hook="$SPX_IT_DIR/.libs/it_srvhook.so"
[ -f "$hook" ] || spx_fail "not built: $hook (run 'make check')"
# an ASan build's runtime has to come first
if objdump -p "$SPX_LIBDIR/libpmix.so.2" 2>/dev/null | grep -q 'NEEDED.*libasan'; then
    hook="$(${CC:-cc} -print-file-name=libasan.so) $hook"
fi
early=-3051 rank=-3052 trigger=-3053 local=-3054 global=-3055

# count RE: the lines of the servers' log matching RE
count() { grep -Ec -- "$1" "$log"; }

for nodes in 1 3; do
    SPX_NODES=$nodes
    ranks=$(spx_nodes_ranks $nodes)
    log="$SPX_TMP/srvlog.$nodes"
    : >"$log"
    SPX_IT_SRVLOG=$log LD_PRELOAD=$hook
    export SPX_IT_SRVLOG LD_PRELOAD
    spx_run "$ranks" it_evsrv
    unset LD_PRELOAD SPX_IT_SRVLOG
    spx_expect_rc 0
    spx_expect_out "^it_evsrv: $ranks ranks: OK$"
    k=0
    while [ $k -lt $nodes ]; do
        for want in "$early from [^ ]+ tag early" "$rank from spmix-run\.[0-9]+:0 tag rank0" \
                    "$trigger from spmix-run\.[0-9]+:0 tag trigger" "$global from [^ ]+ tag srv-global"; do
            got=$(count "^node $k: $want\$")
            [ "$got" -eq 1 ] || { cat "$log" >&2; spx_fail "$nodes nodes: node $k logged '$want' $got times"; }
        done
        [ $k -eq 0 ] && want=1 || want=0
        got=$(count "^node $k: $local from [^ ]+ tag srv-local\$")
        [ "$got" -eq $want ] || { cat "$log" >&2; spx_fail "$nodes nodes: node $k heard the PROC_LOCAL event $got times"; }
        k=$((k + 1))
    done
    total=$(wc -l <"$log")
    [ "$total" -eq $((4 * nodes + 1)) ] ||
        { cat "$log" >&2; spx_fail "$nodes nodes: $total lines logged, expected $((4 * nodes + 1))"; }
    echo "ok: the servers' own handlers on $nodes node(s)"
done
spx_pass "a server process's own event handlers"
