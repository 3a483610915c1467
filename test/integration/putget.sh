#!/bin/sh
# put/commit/fence/get of every value type between 4 ranks, scopes, waiting get, OPTIONAL and TIMEOUT
. "$(dirname "$0")/common.sh"
spx_run 4 it_putget
spx_expect_rc 0
spx_expect_out "^it_putget: 4 ranks, [0-9]+ types: OK$"
spx_pass "put/get between 4 ranks"
