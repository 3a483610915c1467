#!/bin/sh
# fence sets: NULL/WILDCARD/lists, BAD_PARAM, NOT_A_MEMBER, subset fence (uninvolved
# nodes send nothing), WILDCARD vs list callers, Fence_nb results, optional
# directives; on 1, 3 and 16 simulated nodes
. "$(dirname "$0")/common.sh"
for SPX_NODES in 1 3 16; do
    n=$(spx_nodes_ranks $SPX_NODES)
    spx_run "$n" it_mnfence sets
    spx_expect_rc 0
    spx_expect_out "^it_mnfence sets: $n ranks on $SPX_NODES nodes: OK$"
    echo "ok: sets on $SPX_NODES nodes ($n ranks) in $SPX_ELAPSED s"
done
spx_pass "fence: sets on 1, 3 and 16 nodes"
