#!/bin/sh
# A rank that missed a timed-out fence and is alone on its node joins the next
# fence with the others (as when it shares a node, mn_timeout.sh, or on one
# node). 5 ranks on 4 nodes: rank 4 is alone on node 3. (lib/tree/coll.c:
# a late start skips an instance that already timed out everywhere.)
. "$(dirname "$0")/common.sh"
SPX_NODES=1
spx_run 5 it_mnfence late
spx_expect_rc 0
SPX_NODES=4
spx_run 5 it_mnfence late
spx_expect_rc 0
spx_expect_out "^it_mnfence late: 5 ranks on 4 nodes: OK$"
spx_pass "the next fence after a timeout works for a rank alone on its node"
