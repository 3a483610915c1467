#!/bin/bash
# test/slurm/test_python.sh - our pmix Python module (python/, a build
# configured with --enable-python) under srun --mpi=spmix on a real 3-node
# Slurm 22.05 cluster (test/slurm/cluster.sh). Run as root, holding
# /tmp/spmix-vc.lock like the other cluster tests:
#   flock /tmp/spmix-vc.lock test/slurm/test_python.sh --build DIR [--keep]
# DIR is a configured build tree; the script runs `make install` there (the
# module goes to the build's $(pyexecdir) under its prefix), brings the
# cluster up with the installed plugin directory first and runs the steps
# with that directory in PYTHONPATH (srun passes it to the tasks), with
# Debian's /usr/bin/python3 when it is the module's Python version (it has
# python3-mpi4py), else the interpreter the module was built for. Checks:
#   every task on the 3 nodes imports the installed module and runs on the
#   installed libpmix.so.2 (/proc/self/maps);
#   the spec's Python examples, verbatim (test/python/spec_run.py with
#   SPEC_RUN_RENAME=1: Slurm names the namespace slurm.spmix.JOB.STEP, the
#   examples' "testnspace"/"target-nspace" are mapped to it): PMIx_Fence's
#   blocking fence and fence_nb (each task's donecb prints "fence completed:
#   PMIX_SUCCESS"; after them every node's server holds the key each task
#   committed before) on 3 x 2; PMIx_Group_join's blocking block and the
#   invitation handler's group_join_nb (mycb prints "JOIN COMPLETE 0 [...]"
#   at every task but the leader; both results name the group and all the
#   step's tasks) on 3 x 1 and 3 x 2; PMIx_IOF_push's tool
#   run in vn3's namespaces, attached to vn3's server of a SPMIX_STDIN=tool
#   step of 3 x 2, pushes "some input text" into the stdin of every task;
#   mpi4py (Open MPI 4.1) and our module in one process
#   (test/python/mpi4py_pmix.py: both init and finalize orders; the module's
#   PMIx torn down before MPI_Init, then initialised again, and once more
#   after MPI_Finalize and its finalize) on 3 x 2,
#   each task's PMIX_HOSTNAME equal to its MPI_Get_processor_name; skipped
#   (SKIP line) without a python3 that has mpi4py and fits the module.
# Prints PASS:/FAIL:/SKIP: lines and the time; exit 1 if anything failed.
set -u

. "$(dirname "$0")/testlib.sh"
spx_vc_args "$@"

spx_vc_checks
OUT=$(mktemp -d /tmp/spmix-pytest.XXXXXX)
chmod 755 "$OUT"

spx_vc_install "$OUT"
mkvar() { make -s -C "$BUILD" --no-print-directory --eval="spx-print-var: ; @echo \$($1)" \
    spx-print-var | tail -n 1; }
PYDIR=$(mkvar pyexecdir)
BPY=$(mkvar PYTHON)
if [ -z "$PYDIR" ] || [ ! -f "$PYDIR/pmix.so" ]; then
    echo "$0: no pmix.so in '$PYDIR' after make install ($BUILD not configured with --enable-python?)" >&2
    rm -rf "$OUT"; exit 2
fi
PYT=$HERE/../python

BG=""
spx_vc_up "$OUT"
ver() { "$1" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null; }
if [ "$(ver "$SPMIX_VC_PYTHON")" = "$(ver "$BPY")" ]; then PY=$SPMIX_VC_PYTHON
else PY=$("$BPY" -c 'import sys; print(sys.executable)'); fi
export PYTHONPATH="$PYDIR" SPMIX_EXPECT_LIBDIR="$LIBDIR" OMPI_MCA_mpi_yield_when_idle=1
S="timeout 90 srun --mpi=spmix"
count() { grep -c -- "$1" "$OUT/o"; }
since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }'; }
show() { sed 's/^/    /' "$OUT/o" "$OUT/e" | tail -n 15; }

# ---- the installed module on every node ----
$S -N3 -n3 "$PY" -c '
import os, pmix
libs = set(l.split()[-1] for l in open("/proc/self/maps") if "/libpmix.so" in l)
print("module %s lib %s" % (pmix.__file__, " ".join(sorted(os.path.realpath(p) for p in libs))))' \
    >"$OUT/o" 2>"$OUT/e"; rc=$?
want="module $PYDIR/pmix.so lib $(realpath "$LIBDIR/libpmix.so.2")"
if [ $rc = 0 ] && [ "$(count "^$want$")" = 3 ]; then
    pass "3 nodes: every task imports $PYDIR/pmix.so on the installed libpmix.so.2 ($PY)"
else fail "the installed module on 3 nodes: rc $rc, want '$want'"; show; fi

# ---- the spec's examples ----
t=$(date +%s.%N)
SPEC_RUN_RENAME=1 $S -N3 -n6 "$PY" "$PYT/spec_run.py" fence >"$OUT/o" 2>"$OUT/e"; rc=$?
dt=$(since "$t")
if [ $rc = 0 ] && [ "$(count 'fence completed: PMIX_SUCCESS')" = 6 ] &&
   [ "$(count '^spec_run.py: fence rank [0-5]: OK$')" = 6 ]; then
    pass "3 nodes x 2: PMIx_Fence's example (fence, fence_nb: 6 x 'fence completed: PMIX_SUCCESS'; every task's key at every node's server after it) ($dt s)"
else fail "PMIx_Fence's example: rc $rc"; show; fi

for n in 3 6; do
    t=$(date +%s.%N)
    SPEC_RUN_RENAME=1 $S -N3 -n$n "$PY" "$PYT/spec_run.py" group_join >"$OUT/o" 2>"$OUT/e"; rc=$?
    dt=$(since "$t")
    if [ $rc = 0 ] && [ "$(count "JOIN COMPLETE 0 \[{'key': 'pmix.grp.id'")" = $((n - 1)) ] &&
       [ "$(count '^spec_run.py: group_join rank [0-5]: OK$')" = $n ]; then
        pass "3 nodes, $n tasks: PMIx_Group_join's examples (group_join; group_join_nb from the invitation handler: $((n - 1)) x 'JOIN COMPLETE 0'; results name the group and its $n members) ($dt s)"
    else fail "PMIx_Group_join's examples on $n tasks: rc $rc"; show; fi
done

rm -f "$OUT"/id.*
t=$(date +%s.%N)
SPMIX_STDIN=tool SPEC_RUN_RENAME=1 $S -N3 -n6 sh -c \
    "echo \$SLURM_JOB_ID.\$SLURM_STEP_ID >$OUT/id.\$SLURM_PROCID; exec \"$PY\" \"$PYT/spec_run.py\" iof_job" \
    </dev/null >"$OUT/o" 2>"$OUT/e" &
BG=$!
for _ in $(seq 200); do [ "$(ls "$OUT"/id.* 2>/dev/null | wc -l)" = 6 ] && break; sleep 0.05; done
read -r JS <"$OUT/id.0" 2>/dev/null || JS=""
timeout 60 "$CLUSTER" exec vn3 env PYTHONPATH="$PYDIR" LD_LIBRARY_PATH="$LIBDIR" \
    SPEC_RUN_SERVER_NSPACE="slurm.spmix.srv.$JS.vn3" SPEC_RUN_TARGET="slurm.spmix.$JS" \
    "$PY" "$PYT/spec_run.py" iof_tool >"$OUT/tool.o" 2>&1; trc=$?
for _ in $(seq 300); do kill -0 "$BG" 2>/dev/null || break; sleep 0.1; done
kill "$BG" 2>/dev/null
wait "$BG"; rc=$?
BG=""
dt=$(since "$t")
if [ -n "$JS" ] && [ $trc = 0 ] && [ $rc = 0 ] && grep -q '^spec_run.py: iof_tool rank 0: OK$' "$OUT/tool.o" &&
   [ "$(count "^spec_run.py: iof_job rank [0-5]: stdin 'some input text'$")" = 6 ] &&
   [ "$(count '^spec_run.py: iof_job rank [0-5]: OK$')" = 6 ]; then
    pass "3 nodes x 2, SPMIX_STDIN=tool: PMIx_IOF_push's example as a tool on vn3 (its server): 'some input text' in every task's stdin ($dt s)"
else fail "PMIx_IOF_push's example: step '$JS' rc $rc, tool rc $trc"; sed 's/^/    /' "$OUT/tool.o" | tail -n 8; show; fi

# ---- mpi4py and our module in one process ----
if "$PY" -c 'import mpi4py' 2>/dev/null; then
    for mode in mpi-first pmix-first pmix-again; do
        t=$(date +%s.%N)
        MPI4PY_PMIX_REAL_HOSTS=1 $S -N3 -n6 "$PY" "$PYT/mpi4py_pmix.py" $mode >"$OUT/o" 2>"$OUT/e"; rc=$?
        dt=$(since "$t")
        if [ $rc = 0 ] && [ "$(count "^mpi4py_pmix.py $mode rank [0-5]: OK$")" = 6 ]; then
            pass "3 nodes x 2: mpi4py (Open MPI 4.1) and our module in one process, $mode: allreduce, put/commit/fence/get, hostnames, MPI's published name and modex key, a group, the first finalize leaves the library to the other ($dt s)"
        else fail "mpi4py and our module, $mode: rc $rc"; show; fi
    done
else
    echo "SKIP: mpi4py and our module: $PY has no mpi4py (Debian: apt-get install python3-mpi4py; the module must be built for Debian's python3)"
fi

echo "test_python: $NFAIL failure(s), $(since "$T0") s"
[ $NFAIL = 0 ]
