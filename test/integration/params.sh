#!/bin/sh
# bad parameters give BAD_PARAM, calls before init give ERR_INIT, nested init/finalize
. "$(dirname "$0")/common.sh"
spx_run 2 it_params
spx_expect_rc 0
spx_expect_out "^it_params: 2 ranks: OK$"
spx_pass "parameter checks"
