#!/bin/sh
# a client started without a launcher runs as a singleton
. "$(dirname "$0")/common.sh"
prog=$(spx_prog it_singleton) || exit 1
for v in $(env | sed -n "s/^\(PMIX_[A-Za-z0-9_]*\)=.*/\1/p"); do unset "$v"; done
timeout -k 5 30 "$prog" >"$SPX_OUT" 2>"$SPX_ERR"
SPX_RC=$?
spx_expect_rc 0
spx_expect_out "^it_singleton: OK$"
spx_pass "singleton"
