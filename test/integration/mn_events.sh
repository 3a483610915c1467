#!/bin/sh
# events relayed between nodes: 4 ranks on 3 simulated nodes, block and cyclic,
# the notifier's own handlers in every range and PROC_LOCAL events kept for
# handlers registered later on 3 nodes (6 ranks, cyclic);
# PROC_LOCAL events and return objects on 2 nodes; ranks 1 and 2 on 2 nodes
# wait through their PMIX_EVENT_RETURN_OBJECT for PMIX_ERR_PROC_ABORTED about
# rank 0, which aborts or is killed (one of them shares rank 0's node)
. "$(dirname "$0")/common.sh"
SPX_NODES=3
for map in block cyclic; do
    SPX_RUN_OPTS="--map $map"
    spx_run 4 it_events
    spx_expect_rc 0
    spx_expect_out "^it_events: 4 ranks: OK$"
done
for prog in it_evself it_evcache; do
    spx_run 6 $prog
    spx_expect_rc 0
    spx_expect_out "^$prog: 6 ranks: OK$"
done
SPX_NODES=2
SPX_RUN_OPTS=
spx_run 4 it_evobj local
spx_expect_rc 0
spx_expect_out "^it_evobj: local: 4 ranks: OK$"
for how in abort kill; do
    spx_run 3 it_evobj $how
    [ $how = abort ] && spx_expect_rc 3 || spx_expect_rc 137
    got=$(grep -c "^it_evobj: rank [12] (node [01], rank 0 on node [01]): PMIX_ERR_PROC_ABORTED from rank 0$" "$SPX_OUT")
    [ "$got" -eq 2 ] || spx_fail "$got of 2 ranks got the PROC_ABORTED event of rank 0 ($how, 2 nodes)"
    grep -Eq "^it_evobj: rank [12] \(node 1, rank 0 on node 0\)" "$SPX_OUT" ||
        spx_fail "no rank on another node than rank 0 ($how)"
    spx_expect_faster 15
done
spx_pass "events across nodes"
