#!/bin/bash
# test/slurm/bench_munge.sh - what munge authentication of the tree links
# costs at step start, against the step secret, in one run on one 4-node
# virtual cluster (test/slurm/cluster.sh). As root, holding the cluster lock:
#   flock /tmp/spmix-vc.lock test/slurm/bench_munge.sh --build DIR [--runs K]
# DIR is a configured build tree with libmunge; the script runs `make
# install` there, builds test/slurm/bench_pmix.c on our library, brings up
# 4 nodes with 4 CPUs each and then K times (default 9), per layout 3x2 and
# 4x4 (nodes x tasks per node), runs bench_pmix once with the default
# (SPMIX_STEP_AUTH=munge) and once with SPMIX_TREE_AUTH=secret in srun's
# environment (the step secret), alternating which goes first. Each run
# gives PMIx_Init as rank 0 sees it, the maximum over all ranks (bench_pmix
# gathers them with a fence) and srun's wall time (the whole step: the
# servers' start in slurmstepd, where the links are proven, the tasks, the
# end). Prints the raw values and a markdown table of medians with the
# median of the paired differences munge - secret, then tears the cluster down.
set -u

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
CLUSTER=$HERE/cluster.sh
BUILD="" RUNS=9
while [ $# -gt 0 ]; do
    case $1 in
        --build) BUILD=${2:?}; shift 2 ;;
        --runs) RUNS=${2:?}; shift 2 ;;
        *) echo "usage: $0 --build DIR [--runs K]" >&2; exit 2 ;;
    esac
done
[ -n "$BUILD" ] && [ -f "$BUILD/Makefile" ] || { echo "$0: --build DIR is required" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "$0: must run as root" >&2; exit 2; }
BUILD=$(cd "$BUILD" && pwd)
grep -q '^#define SPX_HAVE_MUNGE 1' "$BUILD/config.h" || { echo "$0: $BUILD has no libmunge" >&2; exit 2; }
OUT=$(mktemp -d /tmp/spmix-benchmunge.XXXXXX)
chmod 755 "$OUT"
CLUSTER_UP=0
cleanup() {
    [ $CLUSTER_UP = 0 ] || "$CLUSTER" down >/dev/null 2>&1
    rm -rf "$OUT"
}
trap cleanup EXIT

make -s -C "$BUILD" -j2 install >"$OUT/install.log" 2>&1 || { cat "$OUT/install.log"; exit 1; }
read -r PLUGDIR LIBDIR < <(make -s -C "$BUILD" --no-print-directory \
    --eval='spx-print-dirs: ; @echo $(slurmplugindir) $(spmixlibdir)' spx-print-dirs | tail -n 1)
gcc -std=gnu11 -O2 -Wall -Wextra -Werror -I"$TOP/include" "$HERE/bench_pmix.c" -o "$OUT/bench" \
    -L"$LIBDIR" -lpmix -Wl,-rpath,"$LIBDIR" || exit 1

CLUSTER_UP=1
"$CLUSTER" up -n 4 --cpus 4 --plugin-dir "$PLUGDIR" >"$OUT/up.log" 2>&1 ||
    { cat "$OUT/up.log"; echo "$0: cluster up failed" >&2; exit 1; }
. "$("$CLUSTER" env)"
cat >"$SPMIX_VC_DIR/mpi.conf" <<EOF
# written by bench_munge.sh; everything else at its default
SpmixPortRange=31200-31299
SpmixLibDir=$LIBDIR
SpmixSetLdLibraryPath=yes
EOF
"$CLUSTER" reconfigure >"$OUT/reconf.log" 2>&1 || { cat "$OUT/reconf.log"; exit 1; }

# one step: MODE (munge|secret) LAYOUT; appends "mode layout init max wall" to OUT/raw
one() {
    local mode=$1 lay=$2 n=${2%x*} t=${2#*x} t0 t1 ask=""
    [ "$mode" = secret ] && ask=secret
    t0=$(date +%s.%N)
    SPMIX_TREE_AUTH=$ask timeout 120 srun --mpi=spmix -N "$n" -n $((n * t)) \
        --ntasks-per-node="$t" "$OUT/bench" bench 5 >"$OUT/o" 2>"$OUT/e" ||
        { echo "$0: $mode $lay failed" >&2; cat "$OUT/e" >&2; return 1; }
    t1=$(date +%s.%N)
    awk -v m="$mode" -v l="$lay" -v w="$(echo "($t1 - $t0) * 1000" | bc)" '
        $1 == "init" { i = $2 } $1 == "init_max" { x = $2 }
        END { printf "%s %s %s %s %.1f\n", m, l, i, x, w }' "$OUT/o" | tee -a "$OUT/raw"
}
# a warm-up of each (page cache, munged's first credentials)
for lay in 3x2 4x4; do one munge $lay >/dev/null && one secret $lay >/dev/null || exit 1; done
: >"$OUT/raw"
echo "mode layout init_rank0_ms init_max_ms srun_wall_ms"
for r in $(seq "$RUNS"); do
    for lay in 3x2 4x4; do
        if [ $((r % 2)) = 1 ]; then one munge $lay && one secret $lay
        else one secret $lay && one munge $lay; fi || exit 1
    done
done
# medians of each mode, and the median of the paired differences (run r's
# munge minus run r's secret: the two ran back to back, so a slow phase of
# the shared machine weighs on both)
python3 - "$OUT/raw" "$RUNS" "$(srun --version 2>/dev/null)" <<'EOF'
import statistics as st, sys
rows = [l.split() for l in open(sys.argv[1])]
print("\nMedians of %s runs each (%s, 4 nodes x 4 CPUs):\n" % (sys.argv[2], sys.argv[3]))
print("| measure | layout | secret (ms) | munge (ms) | munge - secret, paired (ms) |")
print("| --- | --- | ---: | ---: | ---: |")
for lay in ("3x2", "4x4"):
    m = [r for r in rows if r[0] == "munge" and r[1] == lay]
    s = [r for r in rows if r[0] == "secret" and r[1] == lay]
    for c, name in ((2, "PMIx_Init, rank 0"), (3, "PMIx_Init, max over ranks"),
                    (4, "srun wall time (whole step)")):
        d = [float(a[c]) - float(b[c]) for a, b in zip(m, s)]
        print("| %s | %s | %.2f | %.2f | %+.2f |" % (name, lay, st.median(float(b[c]) for b in s),
              st.median(float(a[c]) for a in m), st.median(d)))
EOF
