#!/bin/sh
# PMIx_Get of node info qualified with PMIX_NODE_INFO + PMIX_HOSTNAME or
# PMIX_NODEID for every node of PMIX_NODE_LIST against what the ranks there
# see of themselves, unknown nodes, app info with PMIX_APP_INFO; on 1 and 3
# simulated nodes and as a singleton
. "$(dirname "$0")/common.sh"
for SPX_NODES in 1 3; do
    n=$(spx_nodes_ranks $SPX_NODES)
    spx_run "$n" it_nodeinfo
    spx_expect_rc 0
    spx_expect_out "^it_nodeinfo: $n ranks on $SPX_NODES nodes: OK$"
    echo "ok: node info on $SPX_NODES nodes ($n ranks)"
done
prog=$(spx_prog it_nodeinfo) || exit 1
for v in $(env | sed -n "s/^\(PMIX_[A-Za-z0-9_]*\)=.*/\1/p"); do unset "$v"; done
timeout -k 5 30 "$prog" >"$SPX_OUT" 2>"$SPX_ERR"
SPX_RC=$?
spx_expect_rc 0
spx_expect_out "^it_nodeinfo: 1 ranks on 1 nodes: OK$"
echo "ok: node info of a singleton"
spx_pass "nodeinfo: node-qualified Gets on 1 and 3 nodes and as a singleton"
