#!/bin/sh
# publish/lookup/unpublish, query, job-control cleanup registration, store_internal
. "$(dirname "$0")/common.sh"
spx_run 3 it_pubsub
spx_expect_rc 0
spx_expect_out "^it_pubsub: 3 ranks: OK$"
spx_pass "publish/lookup, query, job control"
