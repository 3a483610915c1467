#!/bin/sh
# mpi4py (Debian's python3-mpi4py on Open MPI 4.1) and our pmix module
# (python/, --enable-python) in one process, both on the build tree's
# libpmix.so.2, under tools/spmix-run: test/python/mpi4py_pmix.py in both
# orders (MPI_Init then PMIx init, PMIx finalize first and MPI still working;
# PMIx init then MPI_Init, MPI_Finalize first and our module still working;
# the module's PMIx torn down before MPI_Init and initialised again, and once
# more after both finalized) on 3 ranks of 1 node and of 2 simulated nodes. Skipped (77) when the module
# was not built, or no python3 of the module's version has mpi4py.
. "$SPX_TOP_SRCDIR/test/integration/common.sh"
MOD="$SPX_LIBDIR/pmix.so"
if [ ! -f "$MOD" ] || [ -z "${SPX_PYTHON:-}" ]; then
    echo "SKIP: the pmix Python module was not built (configure --enable-python)"
    exit 77
fi
# an interpreter that has mpi4py and can load the module: the one it was
# built for, else Debian's (where python3-mpi4py lives) if it is the same
# Python version
ver() { "$1" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null; }
PY=""
for p in "$SPX_PYTHON" /usr/bin/python3; do
    if [ "$(ver "$p")" = "$(ver "$SPX_PYTHON")" ] && "$p" -c 'import mpi4py' >/dev/null 2>&1; then
        PY=$p; break
    fi
done
if [ -z "$PY" ]; then
    echo "SKIP: no Python $(ver "$SPX_PYTHON") with mpi4py (Debian: apt-get install python3-mpi4py)"
    exit 77
fi
command -v mpicc.openmpi >/dev/null 2>&1 || { echo "SKIP: Open MPI is not installed"; exit 77; }
. "$SPX_TOP_SRCDIR/test/python/pyenv.sh"
spx_py_expect_module "$PY" "$MOD"
unset OMPI_MCA_schizo OMPI_MCA_ess
export SPMIX_EXPECT_LIBDIR="$SPX_LIBDIR" OMPI_MCA_mpi_yield_when_idle=1
for nodes in 1 2; do
    # simulated nodes share this host: Open MPI's shared-memory transport
    # would map the other "node's" segments, so they talk over TCP
    btl=self,vader,tcp real=1
    [ $nodes = 1 ] || { btl=self,tcp real=0; }
    for mode in mpi-first pmix-first pmix-again; do
        timeout -k 5 "$SPX_TIMEOUT" "$SPX_RUN" -n 3 --nodes $nodes --timeout $((SPX_TIMEOUT - 10)) \
            -x OMPI_MCA_btl=$btl -x MPI4PY_PMIX_REAL_HOSTS=$real ${PRELOAD:+-x LD_PRELOAD="$PRELOAD"} \
            "$PY" "$SPX_TOP_SRCDIR/test/python/mpi4py_pmix.py" $mode >"$SPX_OUT" 2>"$SPX_ERR"
        SPX_RC=$?
        spx_expect_rc 0
        [ "$(grep -c "^mpi4py_pmix.py $mode rank [0-2]: OK$" "$SPX_OUT")" = 3 ] ||
            spx_fail "mpi4py_pmix.py $mode: not every rank OK"
        echo "ok: mpi4py and pmix in one process, $mode, $nodes node(s)"
    done
done
spx_pass "mpi4py: Open MPI's and our module's PMIx_Init/Finalize in one process, both orders, and init again after a teardown"
