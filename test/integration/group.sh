#!/bin/sh
# PMIx groups: construct with context ids and group info, endpoint data
# brought by the construct, a group id as namespace in Get and Fence,
# concurrent constructs, destruct, bad parameters and a member that never
# comes (it_group.c); on 1 and 3 simulated nodes
. "$(dirname "$0")/common.sh"
for SPX_NODES in 1 3; do
    n=$(spx_nodes_ranks $SPX_NODES)
    spx_run "$n" it_group
    spx_expect_rc 0
    spx_expect_out "^it_group: $n ranks: OK$"
    echo "ok: groups on $SPX_NODES nodes ($n ranks)"
done
# a member list far longer than a tree frame's set name (210 listed ranks)
SPX_NODES=2
spx_run 210 it_group
spx_expect_rc 0
spx_expect_out "^it_group: 210 ranks: OK$"
echo "ok: groups of 210 listed ranks on 2 nodes"
spx_pass "group: construct/destruct on 1 and 3 nodes, 210 ranks on 2"
