#!/bin/sh
# events relayed between nodes: 4 ranks on 3 simulated nodes, block and cyclic
. "$(dirname "$0")/common.sh"
SPX_NODES=3
for map in block cyclic; do
    SPX_RUN_OPTS="--map $map"
    spx_run 4 it_events
    spx_expect_rc 0
    spx_expect_out "^it_events: 4 ranks: OK$"
done
spx_pass "events across 3 nodes"
