#!/bin/sh
# blocking calls on the progress thread return WOULD_BLOCK at once; the job goes on
. "$(dirname "$0")/common.sh"
spx_run 3 it_wouldblock
spx_expect_rc 0
spx_expect_out "^it_wouldblock: 3 ranks: OK$"
spx_pass "WOULD_BLOCK"
