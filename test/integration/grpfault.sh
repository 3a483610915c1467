#!/bin/sh
# A process that dies during a group operation, under spmix-run --keep-going
# (it_grpfault.c): a member killed before a construct fails the others'
# construct promptly; a leader killed during its invitation ends every join
# with PMIX_GROUP_LEADER_FAILED; a member of a group constructed with
# PMIX_GROUP_NOTIFY_TERMINATION that dies later is announced to the others as
# PMIX_GROUP_MEMBER_FAILED; the survivors finish. 1 and 3 simulated nodes.
# A node lost (its daemon SIGKILLed) while the other nodes' ranks construct a
# group over every rank (one of them 3 s late): their construct fails with
# PMIX_ERR_UNREACH at the loss, or with PMIX_GROUP_OPTIONAL forms without
# the node's ranks (the last of 3 nodes, and node 1 of 4 with tree width 2,
# which relays for node 3).
. "$(dirname "$0")/common.sh"
SPX_RUN_OPTS=--keep-going
for SPX_NODES in 1 3; do
    n=$(spx_nodes_ranks $SPX_NODES)
    for mode in member optional leader reselect noleader notify deadinvitee; do
        spx_run "$n" it_grpfault $mode
        spx_expect_rc 137
        ok=$(grep -c "^it_grpfault: $mode: rank [0-9]*: OK$" "$SPX_OUT")
        [ "$ok" = $((n - 1)) ] || spx_fail "$mode on $SPX_NODES nodes: $ok of $((n - 1)) survivors OK"
        spx_expect_err "goes on"
        echo "ok: $mode dies on $SPX_NODES nodes ($n ranks), $ok survivors finished"
    done
done
# nodes, tree width, ranks, the node lost, its rank count
for c in "3 16 6 2 2" "4 2 8 1 2"; do
    set -- $c
    SPX_NODES=$1
    SPX_RUN_OPTS="--keep-going --width $2"
    for mode in nodelost nodeoptional; do
        spx_run "$3" it_grpfault $mode "$4"
        spx_expect_rc 1
        spx_expect_err "the daemon of node $4 \(pid [0-9]+\) ended before the job; the job goes on"
        want=PMIX_ERR_UNREACH
        [ $mode = nodeoptional ] && want=PMIX_SUCCESS
        ok=$(grep -c "^it_grpfault: $mode: rank [0-9]*: OK$" "$SPX_OUT")
        got=$(grep -c "^it_grpfault: $mode: rank [0-9]*: construct $want after " "$SPX_OUT")
        [ "$ok" = $(($3 - $5)) ] && [ "$got" = "$ok" ] ||
            spx_fail "$mode, node $4 of $1 lost: $ok of $(($3 - $5)) survivors OK, $got $want"
        spx_expect_faster 15
        echo "ok: $mode: node $4 of $1 lost, $ok survivors' construct $want, rank 0's in" \
            "$(sed -n "s/^it_grpfault: $mode: rank 0: construct .* after \(.*\) s$/\1/p" "$SPX_OUT") s"
    done
done
spx_pass "grpfault: dead member, dead leader and member-failed notice on 1 and 3 nodes; a node lost during a construct"

