#!/bin/sh
# fence variants: NULL, wildcard, lists in any order, subset, non-member, Fence_nb
. "$(dirname "$0")/common.sh"
spx_run 4 it_fence
spx_expect_rc 0
spx_expect_out "^it_fence: 4 ranks: OK$"
spx_pass "fence variants"
