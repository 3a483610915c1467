#!/bin/bash
# test/slurm/test_mpich.sh - unchanged MPICH programs (Debian's mpich 4.0,
# PMI-1 over PMI_FD: the server's PMI wire engine) over mpi/spmix on the
# virtual Slurm cluster (test/slurm/cluster.sh), and an sbatch script that
# runs Open MPI and MPICH programs one after the other, both with
# `srun --mpi=spmix`. Run as root, holding the cluster lock:
#   flock /tmp/spmix-vc.lock test/slurm/test_mpich.sh --build DIR [--keep]
# DIR is a configured build tree (configure --prefix=P); the script runs
# `make install` there, builds test/integration/mpich_check.c with
# mpicc.mpich and test/slurm/mpi/ompi_check.c with mpicc.openmpi, brings up
# 4 nodes with 4 CPUs each (no mpi.conf: the plugin's defaults) and runs,
# on 1x2, 3x2 and 4x4 (nodes x tasks per node):
#   mpich_check (hello, ring, MPI_Allreduce, MPI_Alltoall, every result
#   checked; every rank prints "mpich ok R/N"), and mpich_check abort
#   (rank 1 calls MPI_Abort(MPI_COMM_WORLD, 7) while the others wait in a
#   barrier): srun must exit with 7 within 15 s and leave no task;
# then one sbatch job (-N3 -n6) whose script runs ompi_check allreduce and
# mpich_check under srun --mpi=spmix.
# Prints PASS:/FAIL: lines and "N passed, M failed"; exit 1 on failure.
# Skipped (said so, exit 0) when mpicc.mpich is not installed.
set -u

. "$(dirname "$0")/testlib.sh"
spx_vc_args "$@"
command -v mpicc.mpich >/dev/null 2>&1 || { echo "SKIP: mpicc.mpich not installed (scripts/install-deps.sh installs mpich)"; exit 0; }

NPASS=0 NFAIL=0
T0=$(date +%s.%N)
pass() { echo "PASS: $*"; NPASS=$((NPASS + 1)); }
fail() { echo "FAIL: $*"; NFAIL=$((NFAIL + 1)); }
OUT=$(mktemp -d /tmp/spmix-mpichtest.XXXXXX)
chmod 755 "$OUT"

if ! make -s -C "$BUILD" -j2 install >"$OUT/install.log" 2>&1; then
    cat "$OUT/install.log"; echo "$0: build/install failed" >&2; rm -rf "$OUT"; exit 1
fi
spx_vc_dirs
[ -f "$PLUGDIR/mpi_spmix.so" ] ||
    { echo "$0: no $PLUGDIR/mpi_spmix.so after make install" >&2; rm -rf "$OUT"; exit 1; }
if ! mpicc.mpich -std=gnu11 -O2 -Wall -Werror -o "$OUT/mpich_check" "$HERE/../integration/mpich_check.c" 2>"$OUT/cc.log" ||
   ! mpicc.openmpi -std=gnu11 -O2 -Wall -Werror -o "$OUT/ompi_check" "$HERE/mpi/ompi_check.c" 2>>"$OUT/cc.log"; then
    cat "$OUT/cc.log"; echo "$0: mpicc failed" >&2; rm -rf "$OUT"; exit 1
fi
chmod 755 "$OUT/mpich_check" "$OUT/ompi_check"
# unchanged MPICH: its own libmpi, no libpmix
if ldd "$OUT/mpich_check" | grep -q 'libmpich\.so' && ! ldd "$OUT/mpich_check" | grep -q libpmix; then
    pass "mpich_check built with mpicc.mpich links Debian's libmpich, no libpmix"
else fail "mpich_check linkage: $(ldd "$OUT/mpich_check" | grep -E 'mpi|pmix' | tr -s ' \t' ' ')"; fi

cleanup() {
    rm -rf "$OUT"
    if [ "$KEEP" = 0 ]; then "$CLUSTER" down >/dev/null 2>&1; fi
}
trap cleanup EXIT
"$CLUSTER" up -n 4 --cpus 4 --plugin-dir "$PLUGDIR" >"$OUT/up.log" 2>&1 ||
    { cat "$OUT/up.log"; echo "$0: cluster up failed" >&2; exit 1; }
. "$("$CLUSTER" env)"

export SPMIX_EXPECT_LIBDIR=$LIBDIR OMPI_MCA_mpi_yield_when_idle=1
S="timeout 90 srun --mpi=spmix"
show() { sed 's/^/    /' "$OUT/o" "$OUT/e" | tail -n "${1:-15}"; }

for lay in 1x2 3x2 4x4; do
    nn=${lay%x*}; ppn=${lay#*x}; np=$((nn * ppn))
    L="-N$nn -n$np --ntasks-per-node=$ppn"
    t=$(date +%s.%N)
    $S $L "$OUT/mpich_check" >"$OUT/o" 2>"$OUT/e"; rc=$?
    dt=$(echo "$(date +%s.%N) - $t" | bc | cut -c1-4)
    nok=$(grep -c "^mpich ok [0-9]*/$np\$" "$OUT/o")
    if [ $rc = 0 ] && [ "$nok" = $np ]; then
        pass "$lay MPICH hello, ring, Allreduce, Alltoall: $nok ranks ok (${dt} s)"
    else fail "$lay MPICH: srun rc $rc, $nok/$np ranks ok (${dt} s)"; show; fi

    t=$(date +%s.%N)
    $S $L "$OUT/mpich_check" abort >"$OUT/o" 2>"$OUT/e"; rc=$?
    dt=$(echo "$(date +%s.%N) - $t" | bc | cut -c1-4)
    left=0
    for _ in $(seq 25); do
        left=$(pgrep -c -f "^$OUT/mpich_check" || true)
        [ "$left" = 0 ] && break
        sleep 0.2
    done
    if [ $rc = 7 ] && [ "$left" = 0 ] && [ "$(echo "$dt < 15" | bc)" = 1 ]; then
        pass "$lay MPICH MPI_Abort(7) in rank 1: srun exits 7, no task left, step over in ${dt} s"
    else fail "$lay MPICH MPI_Abort(7): srun rc $rc (want 7), $left tasks left, ${dt} s"; show; fi
done

# ---- both MPIs in one batch script ----
cat >"$OUT/job.sh" <<JOB
#!/bin/bash
export SPMIX_EXPECT_LIBDIR=$LIBDIR OMPI_MCA_mpi_yield_when_idle=1
srun --mpi=spmix "$OUT/ompi_check" allreduce || echo "ompi step failed: \$?"
srun --mpi=spmix "$OUT/mpich_check" || echo "mpich step failed: \$?"
JOB
chmod 755 "$OUT/job.sh"
if timeout 120 sbatch --wait -N3 -n6 --ntasks-per-node=2 -o "$OUT/batch.out" "$OUT/job.sh" >/dev/null 2>"$OUT/e" &&
   grep -q "allreduce ok size 6 value 21" "$OUT/batch.out" &&
   [ "$(grep -c '^mpich ok [0-9]/6$' "$OUT/batch.out")" = 6 ] && ! grep -q "step failed" "$OUT/batch.out"; then
    pass "one sbatch job (-N3 -n6): Open MPI allreduce and MPICH checks, both srun --mpi=spmix"
else fail "sbatch job with both MPIs"; cat "$OUT/batch.out" "$OUT/e" 2>/dev/null | tail -n 15 | sed 's/^/    /'; fi

echo "test_mpich: $(echo "$(date +%s.%N) - $T0" | bc | cut -c1-5) s"
echo "$NPASS passed, $NFAIL failed"
[ $NFAIL = 0 ]
