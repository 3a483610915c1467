#!/bin/sh
# event handlers: specific and default, source and status, deregistration
. "$(dirname "$0")/common.sh"
spx_run 3 it_events
spx_expect_rc 0
spx_expect_out "^it_events: 3 ranks: OK$"
spx_pass "events"
