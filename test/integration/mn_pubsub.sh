#!/bin/sh
# publish/lookup across simulated nodes: the server's own directory lives on
# node 0, the others forward to it (lib/server/pubsub.c); a lookup that waits
# (PMIX_WAIT) from node 1 for a key node 2 publishes later, duplicate keys,
# unpublish seen by every node; and the same with 4 ranks on 2 nodes.
. "$(dirname "$0")/common.sh"
SPX_NODES=3
spx_run 3 it_pubsub
spx_expect_rc 0
spx_expect_out "^it_pubsub: 3 ranks: OK$"
SPX_NODES=2
spx_run 4 it_pubsub
spx_expect_rc 0
spx_expect_out "^it_pubsub: 4 ranks: OK$"
spx_pass "publish/lookup/unpublish across nodes"
