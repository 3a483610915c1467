#!/bin/sh
# failures mid-fence: a rank killed (1, 3, 16 nodes) and a node daemon killed
# (3, 16 nodes). Every surviving rank's fence fails promptly (PROC_ABORTED or
# UNREACH; UNREACH for a lost node), its handler hears of it, and the job ends
# with 137 and a message naming the rank or the node.
. "$(dirname "$0")/common.sh"
for SPX_NODES in 1 3 16; do
    n=$(spx_nodes_ranks $SPX_NODES)
    spx_run "$n" it_mnfail rank
    spx_expect_rc 137
    spx_expect_err "rank $((n - 1)) \(pid [0-9]+\) was killed by signal 9"
    got=$(grep -c "^it_mnfail: rank [0-9]*: fence PMIX_ERR_\(PROC_ABORTED\|UNREACH\) after .*, handler PMIX_ERR_" "$SPX_OUT")
    [ "$got" -eq $((n - 1)) ] || spx_fail "$got of $((n - 1)) surviving ranks saw the failure ($SPX_NODES nodes)"
    spx_expect_faster 15
    echo "ok: rank killed on $SPX_NODES nodes in $SPX_ELAPSED s"
done
for SPX_NODES in 3 16; do
    n=$(spx_nodes_ranks $SPX_NODES)
    last=$((SPX_NODES - 1))
    # ranks on the last node: 2 with 3 nodes, 1 with 16 (block placement)
    lost=$([ "$SPX_NODES" -eq 3 ] && echo 2 || echo 1)
    spx_run "$n" it_mnfail daemon
    spx_expect_rc 137
    spx_expect_err "the daemon of node $last \(pid [0-9]+\) was killed by signal 9"
    got=$(grep -c "^it_mnfail: rank [0-9]*: fence PMIX_ERR_UNREACH after .*, handler PMIX_ERR_UNREACH" "$SPX_OUT")
    [ "$got" -eq $((n - lost)) ] || spx_fail "$got of $((n - lost)) surviving ranks saw UNREACH ($SPX_NODES nodes)"
    spx_expect_faster 15
    echo "ok: daemon killed on $SPX_NODES nodes in $SPX_ELAPSED s"
done
spx_pass "a killed rank or node daemon fails the fence everywhere and ends the job"
