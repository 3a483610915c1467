#!/bin/sh
# The PMI-1 / PMI-2 wire server (lib/server/pmi_wire.c): a raw client of
# both protocols on 1 node and 3 simulated nodes, malformed commands, then
# Debian's MPICH (PMI-1 over PMI_FD) unchanged: hello/ring/Allreduce/
# Alltoall checked, and MPI_Abort ending the job with its status. The MPICH
# part is skipped (said so) when mpicc.mpich is not installed.
. "$(dirname "$0")/common.sh"
for nodes in 1 3; do
    SPX_NODES=$nodes
    n=$(spx_nodes_ranks $nodes)
    for mode in v1 v2; do
        spx_run "$n" it_pmiwire $mode
        spx_expect_rc 0
        [ "$(grep -c "^ok $mode " "$SPX_OUT")" -eq "$n" ] || spx_fail "$mode on $nodes node(s): not every rank passed"
    done
    spx_expect_out "^ok v2 "
done
SPX_NODES=1
spx_run 1 it_pmiwire bad
spx_expect_out "^ok bad 0"
spx_expect_err "malformed PMI message"
if ! command -v mpicc.mpich >/dev/null 2>&1; then
    spx_pass "PMI wire protocols (MPICH part skipped: mpicc.mpich not installed)"
fi
here=$(cd "$(dirname "$0")" && pwd)
mpicc.mpich -O1 -o "$SPX_IT_DIR/mpich_check" "$here/mpich_check.c" 2>"$SPX_TMP/cc.log" ||
    { cat "$SPX_TMP/cc.log" >&2; spx_fail "mpicc.mpich failed"; }
trap 'rm -rf "$SPX_TMP"; rm -f "$SPX_IT_DIR/mpich_check"' EXIT
for nodes in 1 3; do
    SPX_NODES=$nodes
    n=$(spx_nodes_ranks $nodes)
    spx_run "$n" mpich_check
    spx_expect_rc 0
    [ "$(grep -c "^mpich ok " "$SPX_OUT")" -eq "$n" ] || spx_fail "MPICH on $nodes node(s): not every rank passed"
    spx_run "$n" mpich_check abort
    spx_expect_rc 7
    spx_expect_faster 20
done
spx_pass "PMI-1 and PMI-2 wire clients and MPICH (hello, ring, Allreduce, Alltoall, MPI_Abort) on 1 and 3 nodes"
