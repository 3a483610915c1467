#!/bin/sh
# PMIx groups built by invitation (it_grpinvite.c): accept from the handler
# (non-blocking) and from a thread (blocking), decline (abort), optional
# members, an abort by the leader's decline handler, a leader that finalizes; on 1 and 3 simulated nodes
. "$(dirname "$0")/common.sh"
for SPX_NODES in 1 3; do
    n=$(spx_nodes_ranks $SPX_NODES)
    for mode in accept decline optional abort leaderfin add; do
        spx_run "$n" it_grpinvite $mode
        spx_expect_rc 0
        spx_expect_out "^it_grpinvite: $mode: $n ranks: OK$"
        echo "ok: $mode on $SPX_NODES nodes ($n ranks)"
    done
done
spx_pass "grpinvite: invite/join on 1 and 3 nodes"
