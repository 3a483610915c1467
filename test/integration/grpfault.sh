#!/bin/sh
# A process that dies during a group operation, under spmix-run --keep-going
# (it_grpfault.c): a member killed before a construct fails the others'
# construct promptly; a leader killed during its invitation ends every join
# with PMIX_GROUP_LEADER_FAILED; a member of a group constructed with
# PMIX_GROUP_NOTIFY_TERMINATION that dies later is announced to the others as
# PMIX_GROUP_MEMBER_FAILED; the survivors finish. 1 and 3 simulated nodes.
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
spx_pass "grpfault: dead member, dead leader and member-failed notice on 1 and 3 nodes"
