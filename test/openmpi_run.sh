#!/bin/sh
# test/openmpi_run.sh - unchanged Open MPI 4.1 and mpi4py programs (Debian's
# packages) under an *installed* spmix-run, without Slurm:
#   sh test/openmpi_run.sh PREFIX
# PREFIX is where `make install` put spmix (PREFIX/bin/spmix-run,
# PREFIX/lib/spmix/libpmix.so.2). Nothing else points the programs at our
# library: spmix-run must put its library directory first in the ranks'
# LD_LIBRARY_PATH and tell Open MPI 4.x that it was direct-launched.
# Builds test/slurm/mpi/ompi_check.c with mpicc.openmpi and runs, on one node
# (4 ranks) and on 2 simulated nodes (--nodes 2, 4 ranks): hello, ring,
# allreduce, alltoall (each checks its results and that the libpmix.so.2
# mapped in every rank is ours), MPI_Abort(5) in rank 1 (spmix-run must exit
# 5 and leave no rank behind), the mpi4py reduction, and that
# --no-lib-path really leaves LD_LIBRARY_PATH alone (the job then loads the
# system's OpenPMIx and must fail its library check).
# Exit 0 all passed, 1 a failure, 77 Open MPI or mpi4py not installed.
# (Also run in the Debian 13 and forky chroots by test/slurm/chroot_suite.sh:
# Open MPI 5 and 6.)
set -u
prefix=${1:?usage: openmpi_run.sh PREFIX}
here=$(cd "$(dirname "$0")" && pwd)
run="$prefix/bin/spmix-run"
libdir="$prefix/lib/spmix"
[ -x "$run" ] || { echo "FAIL: no $run (run make install first)"; exit 1; }
command -v mpicc.openmpi >/dev/null 2>&1 || { echo "SKIP: mpicc.openmpi not installed"; exit 77; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/spmix-ompirun.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
npass=0 nfail=0
pass() { echo "PASS: $*"; npass=$((npass + 1)); }
fail() { echo "FAIL: $*"; sed -n '1,20p' "$tmp/o" "$tmp/e" | sed 's/^/    /'; nfail=$((nfail + 1)); }

mpicc.openmpi -std=gnu11 -O2 -Wall -Wextra -Werror -o "$tmp/ompi_check" \
    "$here/slurm/mpi/ompi_check.c" 2>"$tmp/cc.log" || { cat "$tmp/cc.log"; echo "FAIL: mpicc.openmpi"; exit 1; }

# A clean environment: no LD_LIBRARY_PATH, no Open MPI settings of the caller.
unset LD_LIBRARY_PATH OMPI_MCA_schizo OMPI_MCA_ess
export SPMIX_EXPECT_LIBDIR="$libdir" OMPI_MCA_mpi_yield_when_idle=1 OMPI_MCA_btl=self,vader,tcp

# job NAME REGEX spmix-run-args...: the job must succeed and print REGEX
job() {
    name=$1 re=$2; shift 2
    timeout 120 "$run" --timeout 60 "$@" >"$tmp/o" 2>"$tmp/e"; rc=$?
    if [ "$rc" = 0 ] && grep -Eq "$re" "$tmp/o"; then pass "$name: $(grep -Em1 "$re" "$tmp/o")"
    else fail "$name (exit $rc)"; fi
}

# SPX_OMPI_RUN_NODES: the node counts to run (default "1 2"); Open MPI 5 and
# 6 find no TCP pairing between simulated nodes of one host, so the Debian 13
# and forky chroots run "1" only.
for nodes in ${SPX_OMPI_RUN_NODES:-1 2}; do
    # Simulated nodes share this one host: Open MPI names its shared-memory
    # (vader) segments after the real host name and the local rank, so two
    # "nodes" would map each other's segments; they talk over TCP instead.
    lay="-n 4"; [ "$nodes" = 1 ] || lay="--nodes $nodes -n 4 -x OMPI_MCA_btl=self,tcp"
    w="[$nodes node(s) x 4 ranks]"
    # shellcheck disable=SC2086
    job "$w hello" "^hello ok size 4 lib $libdir/libpmix.so" $lay "$tmp/ompi_check" hello
    job "$w ring" "^ring ok size 4 value 20 " $lay "$tmp/ompi_check" ring
    job "$w allreduce" "^allreduce ok size 4 value 10 " $lay "$tmp/ompi_check" allreduce
    job "$w alltoall" "^alltoall ok size 4" $lay "$tmp/ompi_check" alltoall
    t0=$(date +%s)
    timeout 120 "$run" --timeout 60 $lay "$tmp/ompi_check" abort >"$tmp/o" 2>"$tmp/e"; rc=$?
    dt=$(( $(date +%s) - t0 ))
    for _ in 1 2 3 4 5 6 7 8 9 10; do
        left=$(pgrep -c -f "^$tmp/ompi_check" || true)
        [ "$left" = 0 ] && break
        sleep 0.2
    done
    if [ "$rc" = 5 ] && [ "$left" = 0 ] && [ "$(grep -c '^waiting rank' "$tmp/o")" = 3 ] &&
       ! grep -q UNEXPECTED "$tmp/o"; then
        pass "$w MPI_Abort(5) in rank 1: spmix-run exits 5 after ${dt} s, no rank left"
    else fail "$w MPI_Abort(5): exit $rc, $left ranks left, ${dt} s"; fi
done

py=/usr/bin/python3   # Debian's, where python3-mpi4py lives
if "$py" -c 'import mpi4py' 2>/dev/null; then
    job "mpi4py reduce on 3 ranks" "^reduce ok size 3 sum 6 lib $libdir/" -n 3 "$py" "$here/slurm/mpi/reduce.py"
else
    echo "SKIP: python3-mpi4py not installed (mpi4py reduction)"
fi

timeout 120 "$run" --timeout 60 --no-lib-path -n 2 "$tmp/ompi_check" hello >"$tmp/o" 2>"$tmp/e"; rc=$?
if [ "$rc" != 0 ] && ! grep -q "^hello ok" "$tmp/o"; then
    pass "--no-lib-path: the job does not get our library (exit $rc)"
else fail "--no-lib-path: the job still ran on our library (exit $rc)"; fi

echo "$npass passed, $nfail failed"
[ "$nfail" = 0 ]
