#!/bin/sh
# the caller's own keys asked with a NULL proc, {own namespace, PMIX_RANK_INVALID},
# {"", PMIX_RANK_INVALID} or itself: PMIX_RANK and the launcher's keys, on 1 and 3
# simulated nodes and as a singleton
. "$(dirname "$0")/common.sh"
for SPX_NODES in 1 3; do
    n=$(spx_nodes_ranks $SPX_NODES)
    spx_run "$n" it_ownkeys
    spx_expect_rc 0
    spx_expect_out "^it_ownkeys: $n ranks: OK$"
    echo "ok: own keys on $SPX_NODES nodes ($n ranks)"
done
prog=$(spx_prog it_ownkeys) || exit 1
for v in $(env | sed -n "s/^\(PMIX_[A-Za-z0-9_]*\)=.*/\1/p"); do unset "$v"; done
timeout -k 5 30 "$prog" >"$SPX_OUT" 2>"$SPX_ERR"
SPX_RC=$?
spx_expect_rc 0
spx_expect_out "^it_ownkeys: 1 ranks: OK$"
echo "ok: own keys of a singleton"
spx_pass "ownkeys: PMIX_RANK and own keys by NULL, rank INVALID and self on 1 and 3 nodes and as a singleton"
