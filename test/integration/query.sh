#!/bin/sh
# PMIx_Query_info: ABI versions before/after init, partial answers (blocking
# and _nb); PMIX_NODE_LIST/PMIX_NUM_NODES against the node map and every
# rank's PMIX_HOSTNAME/PMIX_NODEID; on 1 and 3 simulated nodes
. "$(dirname "$0")/common.sh"
for SPX_NODES in 1 3; do
    n=$(spx_nodes_ranks $SPX_NODES)
    spx_run "$n" it_query
    spx_expect_rc 0
    spx_expect_out "^it_query: $n ranks on $SPX_NODES nodes: OK$"
    echo "ok: query and node list on $SPX_NODES nodes ($n ranks)"
done
spx_pass "query: ABI versions, partial answers, node list on 1 and 3 nodes"
