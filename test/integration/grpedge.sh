#!/bin/sh
# Group and fence corner cases that OpenPMIx's example programs run into
# (it_grpedge.c): an invitee that finalizes without answering (the invite
# aborts, the leader gets the event), a leader that only invites; an
# invitation accepted from the handler with a NULL
# callback; members' PMIX_REMOTE data readable at once by every member after
# an invite or a construct, on its own node too; a construct_nb/destruct_nb
# with a NULL callback; a member that dies (alone on its node on 3 and 4
# nodes) during a construct or a destruct of the others: PMIX_GROUP_CONSTRUCT_ABORT
# / a failure within 10 s, never a hang; a fence over a namespace two of
# whose ranks finalized and exited: it completes without them.
. "$(dirname "$0")/common.sh"
for SPX_NODES in 1 3; do
    n=$(spx_nodes_ranks $SPX_NODES)
    for mode in nullcb construct nullcons; do
        spx_run "$n" it_grpedge $mode
        spx_expect_rc 0
        ok=$(grep -c "^it_grpedge: $mode: rank [0-9]*: OK$" "$SPX_OUT")
        [ "$ok" = "$n" ] || spx_fail "$mode on $SPX_NODES nodes: $ok of $n ranks OK"
        echo "ok: $mode on $SPX_NODES nodes ($n ranks)"
    done
done
# the leader and one invitee alone on one node, the others elsewhere
SPX_NODES=2
spx_run 3 it_grpedge nullcb
spx_expect_rc 0
[ "$(grep -c '^it_grpedge: nullcb: rank [0-9]*: OK$' "$SPX_OUT")" = 3 ] ||
    spx_fail "nullcb on 2 nodes, 3 ranks"
echo "ok: nullcb on 2 nodes (3 ranks)"

# a member dies: 4 ranks on 1, 2, 3 and 4 nodes (on 3 and 4 the last rank is
# alone on its node)
SPX_RUN_OPTS=--keep-going
for SPX_NODES in 1 2 3 4; do
    for mode in dead deaddestr; do
        spx_run 4 it_grpedge $mode
        ok=$(grep -c "^it_grpedge: $mode: rank [0-9]*: OK$" "$SPX_OUT")
        [ "$ok" = 3 ] || spx_fail "$mode on $SPX_NODES nodes: $ok of 3 survivors OK"
        echo "ok: $mode on $SPX_NODES nodes: 3 survivors, rank 0:" \
            "$(sed -n "s/^it_grpedge: $mode: rank 0: \(.*\)$/\1/p" "$SPX_OUT" | head -n 1)"
    done
done
# an invitee that finalizes without answering (on the leader's node, and on
# another: 2 ranks on 2 nodes); a leader that invites others only
for c in "1 4" "2 2" "3 4"; do
    set -- $c
    SPX_NODES=$1
    spx_run "$2" it_grpedge invfin
    spx_expect_rc 0
    ok=$(grep -c "^it_grpedge: invfin: rank [0-9]*: OK$" "$SPX_OUT")
    [ "$ok" = $(($2 - 1)) ] || spx_fail "invfin on $1 nodes: $ok of $(($2 - 1)) OK"
    echo "ok: invfin on $1 nodes ($2 ranks): $(sed -n 's/^it_grpedge: invfin: rank 0: //p' "$SPX_OUT" | head -n 1)"
    n=$2
    [ "$n" -lt 3 ] && n=3
    spx_run "$n" it_grpedge invout
    spx_expect_rc 0
    ok=$(grep -c "^it_grpedge: invout: rank [0-9]*: OK$" "$SPX_OUT")
    [ "$ok" = "$n" ] || spx_fail "invout on $1 nodes: $ok of $n OK"
    echo "ok: invout on $1 nodes ($n ranks)"
done
# two ranks finalize and exit, the other two fence over the namespace: on 2
# and 4 nodes the leavers' nodes have nobody left (they stand in for them)
SPX_RUN_OPTS=
for SPX_NODES in 1 2 3 4; do
    for mode in finfence finfencehi; do
        spx_run 4 it_grpedge $mode
        spx_expect_rc 0
        ok=$(grep -c "^it_grpedge: $mode: rank [0-9]*: OK$" "$SPX_OUT")
        [ "$ok" = 2 ] || spx_fail "$mode on $SPX_NODES nodes: $ok of 2 ranks OK"
        echo "ok: $mode on $SPX_NODES nodes"
    done
done
spx_pass "grpedge: NULL-callback join/construct, members' REMOTE data, a dead member, a fence after finalized ranks"
