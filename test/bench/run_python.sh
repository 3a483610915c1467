#!/bin/sh
# run_python.sh BUILDDIR [RANKS] [ROUNDS] - put/commit/fence/get from Python
# (py_bench.py, one script) with:
#   1. our pmix module on our libpmix.so.2, under BUILDDIR's spmix-run
#   2. Debian's python3-pmix (OpenPMIx 4.2's Cython binding) on our library,
#      under spmix-run (which puts our library first in LD_LIBRARY_PATH)
#   3. Debian's python3-pmix on OpenPMIx 4.2 itself, under Open MPI's mpirun
#      (its PMIx server is OpenPMIx 4.2: Debian's Open MPI links libpmix2),
#      when mpirun and the Debian module are there
# and prints each run's line and the ratio of total times ours / theirs.
# Needs a build with --enable-python; /usr/bin/python3 for the Debian module.
set -u
B=${1:?usage: run_python.sh BUILDDIR [RANKS] [ROUNDS]}
N=${2:-4}
R=${3:-100}
HERE=$(cd "$(dirname "$0")" && pwd)
PY=/usr/bin/python3
[ -f "$B/.libs/pmix.so" ] || { echo "no $B/.libs/pmix.so: configure --enable-python" >&2; exit 1; }
run() { grep '^py_bench:' | tee -a "$OUT"; }
OUT=$(mktemp)
PYTHONPATH="$B/.libs" "$B/tools/spmix-run" -n "$N" "$PY" "$HERE/py_bench.py" "$R" 2>/dev/null | run
if env -u PYTHONPATH "$PY" -W ignore -c 'import pmix' 2>/dev/null; then
    env -u PYTHONPATH "$B/tools/spmix-run" -n "$N" "$PY" "$HERE/py_bench.py" "$R" 2>/dev/null |
        sed 's/debian-python3-pmix/debian-python3-pmix-on-spmix/' | run
    if command -v mpirun >/dev/null; then
        env -u PYTHONPATH mpirun --allow-run-as-root --oversubscribe -n "$N" "$PY" \
            "$HERE/py_bench.py" "$R" 2>/dev/null |
            sed 's/debian-python3-pmix/debian-python3-pmix-on-openpmix/' | run
    fi
fi
awk '{ t[$2] = $NF } END {
    o = t["ours"]
    for (k in t) if (k != "ours" && t[k] > 0)
        printf "py_bench: ours / %s = %.3fx (total time)\n", k, o / t[k] }' "$OUT"
rm -f "$OUT"
