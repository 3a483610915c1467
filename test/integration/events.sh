#!/bin/sh
# event handlers: specific and default, source and status, deregistration;
# PMIX_EVENT_RETURN_OBJECT handed back exactly, PMIX_RANGE_PROC_LOCAL events
# run the process's own handlers (as ranks and as a singleton), so do events
# of every wider range, once (it_evself), PMIX_EVENT_NON_DEFAULT keeps default
# handlers out, PROC_LOCAL events are kept for handlers registered later
# (it_evcache), and ranks wait through their return object for
# PMIX_ERR_PROC_ABORTED about a failed rank 0
. "$(dirname "$0")/common.sh"
spx_run 3 it_events
spx_expect_rc 0
spx_expect_out "^it_events: 3 ranks: OK$"

for prog in it_evself it_evcache; do
    spx_run 4 $prog
    spx_expect_rc 0
    spx_expect_out "^$prog: 4 ranks: OK$"
    path=$(spx_prog $prog) || exit 1
    (
        for v in $(env | sed -n "s/^\(PMIX_[A-Za-z0-9_]*\)=.*/\1/p"); do unset "$v"; done
        exec timeout -k 5 30 "$path"
    ) >"$SPX_OUT" 2>"$SPX_ERR"
    SPX_RC=$?
    spx_expect_rc 0
    spx_expect_out "^$prog: 1 ranks: OK$"
done

spx_run 2 it_evobj local
spx_expect_rc 0
spx_expect_out "^it_evobj: local: 2 ranks: OK$"

prog=$(spx_prog it_evobj) || exit 1
(
    for v in $(env | sed -n "s/^\(PMIX_[A-Za-z0-9_]*\)=.*/\1/p"); do unset "$v"; done
    exec timeout -k 5 30 "$prog" local
) >"$SPX_OUT" 2>"$SPX_ERR"
SPX_RC=$?
spx_expect_rc 0
spx_expect_out "^it_evobj: local: 1 ranks: OK$"

for how in abort kill; do
    spx_run 3 it_evobj $how
    [ $how = abort ] && spx_expect_rc 3 || spx_expect_rc 137
    got=$(grep -c "^it_evobj: rank [12] (node 0, rank 0 on node 0): PMIX_ERR_PROC_ABORTED from rank 0$" "$SPX_OUT")
    [ "$got" -eq 2 ] || spx_fail "$got of 2 ranks got the PROC_ABORTED event of rank 0 ($how)"
    spx_expect_faster 15
done
spx_pass "events"
