#!/bin/sh
# fence data: no data without PMIX_COLLECT_DATA (direct modex instead, with
# PMIX_TIMEOUT/PMIX_OPTIONAL), collected data is local, delta counters,
# deletions; on 1, 3 and 16 simulated nodes
. "$(dirname "$0")/common.sh"
for SPX_NODES in 1 3 16; do
    n=$(spx_nodes_ranks $SPX_NODES)
    spx_run "$n" it_mnfence data
    spx_expect_rc 0
    spx_expect_out "^it_mnfence data: $n ranks on $SPX_NODES nodes: OK$"
    echo "ok: data on $SPX_NODES nodes ($n ranks) in $SPX_ELAPSED s"
done
spx_pass "fence: data on 1, 3 and 16 nodes"
