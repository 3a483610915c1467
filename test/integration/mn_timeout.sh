#!/bin/sh
# fence PMIX_TIMEOUT (all callers fail, the next fence works) and collect
# disagreement (BAD_PARAM for all); on 1, 3 and 16 simulated nodes
. "$(dirname "$0")/common.sh"
for SPX_NODES in 1 3 16; do
    n=$(spx_nodes_ranks $SPX_NODES)
    spx_run "$n" it_mnfence timeout
    spx_expect_rc 0
    spx_expect_out "^it_mnfence timeout: $n ranks on $SPX_NODES nodes: OK$"
    echo "ok: timeout on $SPX_NODES nodes ($n ranks) in $SPX_ELAPSED s"
done
spx_pass "fence: timeout on 1, 3 and 16 nodes"
