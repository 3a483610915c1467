#!/bin/bash
# test/slurm/test_openmpi.sh - unchanged Open MPI (4.1, 5, 6) and mpi4py jobs (Debian's
# packages) over mpi/spmix on the virtual Slurm cluster (test/slurm/cluster.sh);
# over mpi/pmix when DIR is the drop-in build (--enable-pmix-typename).
# Run as root, holding the cluster lock:
#   flock /tmp/spmix-vc.lock test/slurm/test_openmpi.sh --build DIR [--keep]
# DIR is a configured build tree (configure --prefix=P); the script runs
# `make install` there, builds test/slurm/mpi/ompi_check.c with Debian's
# mpicc.openmpi (an ordinary MPI binary: linked to libmpi only; Open MPI's
# pmix component loads libpmix.so.2 at MPI_Init), brings up 4 nodes with 4
# CPUs each and the installed plugin directory first in PluginDir, with no
# mpi.conf (the plugin's defaults: SpmixLibDir = the install's library
# directory, put first in LD_LIBRARY_PATH), and runs under
# `srun --mpi=spmix` with OMPI_MCA_mpi_yield_when_idle=1, on 1x2, 3x2 and 4x4
# (nodes x tasks per node):
#   hello (rank/size), ring (MPI_Send/MPI_Recv token), allreduce (sums),
#   alltoall (every element), MPI_Abort(..., 5) in rank 1 (srun's exit status
#   is recorded and must be non-zero, the step must end within 15 s, no task
#   left), and mpi4py reductions (test/slurm/mpi/reduce.py); also the
#   transports: the shared-memory BTL alone works on one node and fails
#   across nodes, TCP alone works across nodes.
# Every program first checks that the libpmix.so.2 mapped in it is in
# SPMIX_EXPECT_LIBDIR (the install's library directory) and fails otherwise.
# Prints PASS:/FAIL: lines and "N passed, M failed"; exit 1 on failure.
# About a minute here. SPMIX_OMPI_VERBOSE=1 adds OMPI_MCA_pmix_base_verbose=10.
set -u

. "$(dirname "$0")/testlib.sh"
spx_vc_args "$@"

NPASS=0 NFAIL=0
T0=$(date +%s.%N)
pass() { echo "PASS: $*"; NPASS=$((NPASS + 1)); }
fail() { echo "FAIL: $*"; NFAIL=$((NFAIL + 1)); }
OUT=$(mktemp -d /tmp/spmix-ompitest.XXXXXX)
chmod 755 "$OUT"

# ---- build and install (first, so a re-run of config.status cannot mix into mkvars) ----
if ! make -s -C "$BUILD" -j2 install >"$OUT/install.log" 2>&1; then
    cat "$OUT/install.log"; echo "$0: build/install failed" >&2; rm -rf "$OUT"; exit 1
fi
spx_vc_dirs
# the plugin's type: mpi/spmix, or mpi/pmix for the drop-in build
# (--enable-pmix-typename installs mpi_pmix.so instead)
MPITYPE=spmix
[ -f "$PLUGDIR/mpi_spmix.so" ] || MPITYPE=pmix
[ -f "$PLUGDIR/mpi_$MPITYPE.so" ] && [ -e "$LIBDIR/libpmix.so.2" ] ||
    { echo "$0: no $PLUGDIR/mpi_spmix.so (or mpi_pmix.so) or $LIBDIR/libpmix.so.2 after make install" >&2; rm -rf "$OUT"; exit 1; }
if ! mpicc.openmpi -std=gnu11 -O2 -Wall -Wextra -Werror -o "$OUT/ompi_check" "$HERE/mpi/ompi_check.c" 2>"$OUT/cc.log"; then
    cat "$OUT/cc.log"; echo "$0: mpicc.openmpi failed" >&2; rm -rf "$OUT"; exit 1
fi
cp "$HERE/mpi/reduce.py" "$OUT/reduce.py"
chmod 755 "$OUT/ompi_check"; chmod 644 "$OUT/reduce.py"
# the binary is unchanged Open MPI: it needs libmpi, no libpmix of its own
# (libpmix comes with Open MPI: its pmix component in 4.1, libopen-pal in 5)
if objdump -p "$OUT/ompi_check" | grep -q 'NEEDED.*libmpi\.so' &&
   ! objdump -p "$OUT/ompi_check" | grep -q 'NEEDED.*libpmix'; then
    pass "ompi_check built with mpicc.openmpi needs libmpi only (libpmix comes with Open MPI)"
else fail "ompi_check linkage: $(objdump -p "$OUT/ompi_check" | grep NEEDED | tr -s ' \t' ' ')"; fi

# ---- cluster ----
cleanup() {
    rm -rf "$OUT"
    if [ "$KEEP" = 0 ]; then "$CLUSTER" down >/dev/null 2>&1; fi
}
trap cleanup EXIT
"$CLUSTER" up -n 4 --cpus 4 --plugin-dir "$PLUGDIR" >"$OUT/up.log" 2>&1 ||
    { cat "$OUT/up.log"; echo "$0: cluster up failed" >&2; exit 1; }
. "$("$CLUSTER" env)"

export SPMIX_EXPECT_LIBDIR=$LIBDIR OMPI_MCA_mpi_yield_when_idle=1
[ "${SPMIX_OMPI_VERBOSE:-0}" = 1 ] && export OMPI_MCA_pmix_base_verbose=10
S="timeout 90 srun --mpi=$MPITYPE"
echo "test_openmpi: $(mpirun.openmpi --version 2>/dev/null | head -n 1) under srun --mpi=$MPITYPE ($PLUGDIR/mpi_$MPITYPE.so)"
RESULTS=$OUT/results    # "layout test result" lines for the summary table

show() { sed 's/^/    /' "$OUT/o" "$OUT/e" | tail -n "${1:-15}"; }
run_ok() { # layout name expected-regex srun-args... -- command...
    local lay=$1 name=$2 want=$3 t dt rc; shift 3
    t=$(date +%s.%N)
    $S "$@" >"$OUT/o" 2>"$OUT/e"; rc=$?
    dt=$(echo "$(date +%s.%N) - $t" | bc | cut -c1-4)
    if [ $rc = 0 ] && grep -Eq -- "$want" "$OUT/o" && ! grep -q FAIL "$OUT/e"; then
        pass "$lay $name: $(grep -Eo -- "$want" "$OUT/o" | head -1) (${dt} s)"; echo "$lay $name ok ${dt}s" >>"$RESULTS"
    else
        fail "$lay $name (srun rc $rc, ${dt} s)"; show; echo "$lay $name FAIL(rc=$rc) ${dt}s" >>"$RESULTS"
    fi
}

for lay in 1x2 3x2 4x4; do
    nn=${lay%x*}; ppn=${lay#*x}; np=$((nn * ppn))
    L="-N$nn -n$np --ntasks-per-node=$ppn"
    run_ok "$lay" hello "hello ok size $np lib $LIBDIR/libpmix.so[.0-9]*" $L "$OUT/ompi_check" hello
    run_ok "$lay" ring "ring ok size $np value $((np * (np + 1)))" $L "$OUT/ompi_check" ring
    run_ok "$lay" allreduce "allreduce ok size $np value $((np * (np + 1) / 2))" $L "$OUT/ompi_check" allreduce
    run_ok "$lay" alltoall "alltoall ok size $np" $L "$OUT/ompi_check" alltoall

    # MPI_Abort(MPI_COMM_WORLD, 5) in rank 1 while the others wait in MPI_Recv
    t=$(date +%s.%N)
    $S $L "$OUT/ompi_check" abort >"$OUT/o" 2>"$OUT/e"; rc=$?
    dt=$(echo "$(date +%s.%N) - $t" | bc | cut -c1-4)
    nwait=$(grep -c '^waiting rank' "$OUT/o")
    left=0
    for _ in $(seq 25); do
        left=$(pgrep -c -f "^$OUT/ompi_check" || true)
        [ "$left" = 0 ] && break
        sleep 0.2
    done
    if [ $rc != 0 ] && [ $rc != 124 ] && [ "$nwait" -ge $((np - 1)) ] && [ "$left" = 0 ] &&
       ! grep -q UNEXPECTED "$OUT/o" && [ "$(echo "$dt < 15" | bc)" = 1 ]; then
        pass "$lay MPI_Abort(5) in rank 1: srun exits $rc, the $((np - 1)) waiting ranks end, step over in ${dt} s"
        echo "$lay abort ok(srun_rc=$rc) ${dt}s" >>"$RESULTS"
    else
        fail "$lay MPI_Abort(5): srun rc $rc, $nwait/$((np - 1)) waited, $left tasks left, ${dt} s"; show
        echo "$lay abort FAIL(rc=$rc) ${dt}s" >>"$RESULTS"
    fi
    grep -m1 -i "abort" "$OUT/e" | sed 's/^/    srun: /' | cut -c1-200
done

# ---- MPI-4 sessions (Open MPI 5 and later) through this plugin ----
# MPI_Comm_create_from_group and MPI_Intercomm_create_from_groups across 3
# nodes (test/slurm/mpi/mpi_sessions.c checks every result); Open MPI 4.1 has
# no sessions: the program does not compile there (SKIP line).
if mpicc.openmpi -o "$OUT/mpi_sessions" "$HERE/mpi/mpi_sessions.c" 2>"$OUT/cc.err"; then
    chmod 755 "$OUT/mpi_sessions"
    run_ok 3x2 "MPI sessions (communicator and intercommunicator from groups)" \
        "mpi_sessions: 6 processes: OK" -N3 -n6 --ntasks-per-node=2 "$OUT/mpi_sessions"
else
    echo "SKIP: MPI sessions: this Open MPI has no MPI_Session_init ($(head -c 200 "$OUT/cc.err" | tr '\n' ' '))"
fi

# ---- transports: shared memory within a node, TCP between nodes ----
# Open MPI decides from what the server registered (local peers, node map,
# locality) which ranks share a node. With the shared-memory BTL alone a ring
# must work on one node and must fail across nodes; with TCP alone it works
# across nodes.
run_ok 1x2 "ring over shared memory only (btl self,vader)" "ring ok size 2 value 6" \
    -N1 -n2 env OMPI_MCA_btl=self,vader "$OUT/ompi_check" ring
run_ok 3x2 "ring over TCP only (btl self,tcp)" "ring ok size 6 value 42" \
    -N3 -n6 --ntasks-per-node=2 env OMPI_MCA_btl=self,tcp "$OUT/ompi_check" ring
# Open MPI 6.0 reports the unreachable peers but does not end such a job
# itself (its ranks wait in MPI_Reduce; the same under its own mpirun with
# OpenPMIx 7): there the step is ended after 10 s and the report must be there.
ompi_major=$(mpirun.openmpi --version 2>/dev/null | sed -n '1s/.*Open MPI) \([0-9]*\).*/\1/p')
[ "${ompi_major:-0}" -ge 6 ] && shm_wait=10 || shm_wait=90
timeout $shm_wait srun --mpi=$MPITYPE -N3 -n6 --ntasks-per-node=2 env OMPI_MCA_btl=self,vader \
    "$OUT/ompi_check" ring >"$OUT/o" 2>"$OUT/e"; rc=$?
if [ $rc != 0 ] && [ $rc != 124 ] && ! grep -q "ring ok" "$OUT/o"; then
    pass "3x2 ring over shared memory only fails (ranks on other nodes unreachable; srun rc $rc)"
elif [ $rc = 124 ] && [ "${ompi_major:-0}" -ge 6 ] && ! grep -q "ring ok" "$OUT/o" &&
     grep -q "unable to reach each other" "$OUT/e"; then
    pass "3x2 ring over shared memory only: Open MPI $ompi_major reports the ranks on other nodes unreachable (the job does not end by itself: ended after $shm_wait s)"
else fail "3x2 ring over shared memory only: srun rc $rc (must fail, not hang)"; show; fi

# ---- mpi4py ----
for lay in 1x2 3x2 4x4; do
    nn=${lay%x*}; ppn=${lay#*x}; np=$((nn * ppn))
    run_ok "$lay" "mpi4py reduce" "reduce ok size $np sum $((np * (np + 1) / 2)) lib $LIBDIR/libpmix.so[.0-9]*" \
        -N$nn -n$np --ntasks-per-node=$ppn "$SPMIX_VC_PYTHON" "$OUT/reduce.py"
done

# ---- a check of the check: a job that does not get our library must fail ----
$S -N1 -n2 env SPMIX_EXPECT_LIBDIR=/usr/lib/x86_64-linux-gnu "$OUT/ompi_check" hello >"$OUT/o" 2>"$OUT/e"; rc=$?
if [ $rc != 0 ] && grep -q "FAIL rank .*libpmix mapped is $LIBDIR" "$OUT/e"; then
    pass "the library check fails a job when the expected directory is another one (rc $rc)"
else fail "the library check did not notice a wrong directory (rc $rc)"; show; fi

echo "results:"; sed 's/^/    /' "$RESULTS"
echo "test_openmpi: $(echo "$(date +%s.%N) - $T0" | bc | cut -c1-5) s"
echo "$NPASS passed, $NFAIL failed"
[ $NFAIL = 0 ]
