#!/bin/sh
# a directive flagged PMIX_INFO_REQD that a call does not honour fails the call
# with NOT_SUPPORTED (no callback); unflagged it is ignored; on one node and
# on 2 simulated nodes
. "$(dirname "$0")/common.sh"
spx_run 2 it_reqd
spx_expect_rc 0
spx_expect_out "^it_reqd: 2 ranks: OK$"
spx_expect_err "PMIx_Fence: required directive 'spmix.test.no.such.directive' is not supported"
SPX_NODES=2 spx_run 3 it_reqd
spx_expect_rc 0
spx_expect_out "^it_reqd: 3 ranks: OK$"
spx_pass "PMIX_INFO_REQD"
