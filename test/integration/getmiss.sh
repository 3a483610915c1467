#!/bin/sh
# PMIx_Get of missing keys: a reserved key nobody provides is NOT_FOUND at
# once (own rank, local and remote peers), provided ones keep their values;
# PMIX_IMMEDIATE answers from what the local server holds now. A singleton,
# one node and 2 and 3 simulated nodes. A Get that waits fails the check of
# its duration or, if it never returns, the job's timeout.
SPX_TIMEOUT=${SPX_TIMEOUT:-40}
. "$(dirname "$0")/common.sh"
prog=$(spx_prog it_getmiss) || exit 1
(for v in $(env | sed -n "s/^\(PMIX_[A-Za-z0-9_]*\)=.*/\1/p"); do unset "$v"; done
 exec timeout -k 5 20 "$prog" singleton) >"$SPX_OUT" 2>"$SPX_ERR"
SPX_RC=$?
spx_expect_rc 0
spx_expect_out "^it_getmiss: singleton: OK$"
for SPX_NODES in 1 2 3; do
    n=$(spx_nodes_ranks $SPX_NODES)
    spx_run "$n" it_getmiss
    spx_expect_rc 0
    spx_expect_out "^it_getmiss: $n ranks on $SPX_NODES nodes: OK$"
    echo "ok: $n ranks on $SPX_NODES nodes in $SPX_ELAPSED s"
done
spx_pass "missing keys and PMIX_IMMEDIATE"
