#!/bin/sh
# KNOWN BUG (listed in XFAIL_TESTS): a rank that missed a timed-out fence and is
# alone on its node gets PMIX_ERR_TIMEOUT again from its next fence, while the
# same program works when that rank shares a node (mn_timeout.sh) or runs on
# one node. 5 ranks on 4 nodes: rank 4 is alone on node 3.
. "$(dirname "$0")/common.sh"
SPX_NODES=1
spx_run 5 it_mnfence late
spx_expect_rc 0
SPX_NODES=4
spx_run 5 it_mnfence late
spx_expect_rc 0
spx_expect_out "^it_mnfence late: 5 ranks on 4 nodes: OK$"
spx_pass "the next fence after a timeout works for a rank alone on its node"
