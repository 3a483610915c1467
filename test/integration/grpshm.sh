#!/bin/sh
# The shared-memory construct of a whole namespace (it_grpshm.c): WILDCARD
# and listed, one member through the socket (construct_nb), a group info
# larger than a request slot, two threads constructing two groups in
# opposite orders, 50 constructs in a row; on 1 and 3 simulated nodes. The
# servers' debug lines show which constructs went through shared memory:
# every node's for the plain ones, none for the 4 KiB group info, none on
# the node whose rank 0 took the socket; none at all with SPMIX_SHM_GROUP=0.
. "$(dirname "$0")/common.sh"
shm_lines() { # GROUP: how many servers ran it through shared memory
    grep -c "construct of $1 through shared memory" "$SPX_ERR"
}
for SPX_NODES in 1 3; do
    n=$(spx_nodes_ranks $SPX_NODES)
    SPMIX_DEBUG=3 spx_run "$n" it_grpshm
    spx_expect_rc 0
    spx_expect_out "^it_grpshm: $n ranks: OK$"
    for g in shm-wild shm-list shm-loop-0 shm-loop-49; do
        [ "$(shm_lines $g)" = $SPX_NODES ] ||
            spx_fail "$SPX_NODES nodes: $g through shared memory on $(shm_lines $g) nodes"
    done
    [ "$(shm_lines shm-big)" = 0 ] || spx_fail "a 4 KiB group info went through shared memory"
    [ "$(shm_lines shm-mix)" -lt $SPX_NODES ] ||
        spx_fail "rank 0's node ran shm-mix through shared memory though rank 0 used the socket"
    echo "ok: $SPX_NODES nodes ($n ranks): whole-namespace constructs through shared memory," \
        "shm-mix on $(shm_lines shm-mix) of $SPX_NODES nodes, the threads' on" \
        "$(shm_lines shm-ta)+$(shm_lines shm-tb)"
    SPMIX_SHM_GROUP=0 SPMIX_DEBUG=3 spx_run "$n" it_grpshm
    spx_expect_rc 0
    spx_expect_out "^it_grpshm: $n ranks: OK$"
    [ "$(grep -c 'through shared memory' "$SPX_ERR")" = 0 ] ||
        spx_fail "SPMIX_SHM_GROUP=0 did not turn the shared-memory construct off"
    echo "ok: $SPX_NODES nodes: the same through the socket (SPMIX_SHM_GROUP=0)"
done
spx_pass "grpshm: whole-namespace constructs through shared memory and their socket fallbacks"
