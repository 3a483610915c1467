#!/bin/sh
# reserved job/node/proc keys: values and strict types; Resolve_peers/Resolve_nodes
. "$(dirname "$0")/common.sh"
spx_run 3 it_keys
spx_expect_rc 0
spx_expect_out "^it_keys: 3 ranks: OK$"
spx_pass "reserved keys"
